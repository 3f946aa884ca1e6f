/**
 * Discovery documents (`/version`, `/api`, `/apis`, `/api/v1`, `/apis/{group}[/{version}]`) in the
 * legacy formats, which kubectl and client libraries fall back to when aggregated discovery is absent.
 */
import { RESOURCE_VERBS, type ResourceDef, apiVersionOf, groupVersions } from './resources.js';

/** The Kubernetes version the simulator reports. */
export const SIM_VERSION = { major: '1', minor: '34', gitVersion: 'v1.34.0-sim', platform: 'linux/amd64' };

/** The discovery document for `path` over the served `resources`, or undefined when there is none. */
export function discoveryDocument(path: string, resources: readonly ResourceDef[]): Record<string, unknown> | undefined {
  if (path === '/version' || path === '/version/') {
    return { ...SIM_VERSION, gitCommit: 'sim', gitTreeState: 'clean', buildDate: '2026-01-01T00:00:00Z', goVersion: 'go1.24', compiler: 'gc' };
  }
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
  if (path === '/apis') return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups(resources), REVIEW_GROUP] };
  if (path === '/api/v1') return resourceList(resources, '', 'v1');
  const m = /^\/apis\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
  if (!m) return undefined;
  const [, group, version] = m;
  if (group === REVIEW_GROUP.name) {
    if (!version) return { kind: 'APIGroup', apiVersion: 'v1', ...REVIEW_GROUP };
    return version === 'v1' ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: REVIEW_GROUP.preferredVersion.groupVersion, resources: REVIEW_RESOURCES } : undefined;
  }
  const g = groups(resources).find((x) => x.name === group);
  if (!g) return undefined;
  if (!version) return { kind: 'APIGroup', apiVersion: 'v1', ...g };
  if (!g.versions.some((v) => v.version === version)) return undefined;
  return resourceList(resources, group ?? '', version);
}

type GroupVersion = { groupVersion: string; version: string };

/** authorization.k8s.io: the SubjectAccessReview, create-only and never stored (see access-review.ts). */
const REVIEW_GROUP = { name: 'authorization.k8s.io', versions: [{ groupVersion: 'authorization.k8s.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'authorization.k8s.io/v1', version: 'v1' } };
const REVIEW_RESOURCES = [
  { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
  { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
];

/** One entry per group, its versions in the order served (a CRD's storage version first, preferred). */
function groups(resources: readonly ResourceDef[]): { name: string; versions: GroupVersion[]; preferredVersion: GroupVersion }[] {
  const byGroup = new Map<string, GroupVersion[]>();
  for (const gv of groupVersions(resources)) {
    if (gv.group === '') continue;
    byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), { groupVersion: `${gv.group}/${gv.version}`, version: gv.version }]);
  }
  return [...byGroup].map(([name, versions]) => ({ name, versions, preferredVersion: versions[0] as GroupVersion }));
}

function resourceList(served: readonly ResourceDef[], group: string, version: string): Record<string, unknown> {
  const rs = served.filter((r) => r.group === group && r.version === version);
  const resources: Record<string, unknown>[] = [];
  for (const r of rs) {
    resources.push({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: RESOURCE_VERBS,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories?.length ? { categories: r.categories } : {}),
    });
    for (const sub of r.subresources) {
      resources.push({
        name: `${r.plural}/${sub}`,
        singularName: '',
        namespaced: r.namespaced,
        kind: sub === 'scale' ? 'Scale' : r.kind,
        ...(sub === 'scale' ? { group: 'autoscaling', version: 'v1' } : {}),
        verbs: ['get', 'patch', 'update'],
      });
    }
    if (r.kind === 'Pod' || r.kind === 'Service') {
      resources.push({ name: `${r.plural}/proxy`, singularName: '', namespaced: true, kind: r.kind === 'Pod' ? 'PodProxyOptions' : 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(rs[0] ?? { group, version } as never), resources };
}
