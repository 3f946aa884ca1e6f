/**
 * RBAC escalation prevention, as pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/
 * policybased/storage.go and pkg/registry/rbac/validation/rule.go (`ConfirmNoEscalation`) apply it:
 * creating or replacing a Role or ClusterRole needs every permission it grants (or the `escalate`
 * verb on it); creating or replacing a binding needs the `bind` verb on the role it references, or
 * every permission of that role. Refused with 403 and the API server's message (`user "u"
 * (groups=[…]) is attempting to grant RBAC permissions not currently held:` and the missing rules,
 * compacted per group and resource). Checked on create and update; a patch is not checked here.
 */
import { ApiError } from './api-error.js';
import type { KubeObject } from './object.js';
import { type RbacObjects, type RbacUser, authorize, authorizeNonResource } from './rbac.js';

const GROUP = 'rbac.authorization.k8s.io';

type PolicyRule = { verbs?: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };

/** Throws the 403 when `user` may not write `body` as `resource` (roles, clusterroles, rolebindings, clusterrolebindings). */
export function confirmNoEscalation(objects: RbacObjects, user: RbacUser, resource: string, namespace: string, body: unknown): void {
  const object = body as KubeObject & { rules?: PolicyRule[]; roleRef?: { kind?: string; name?: string } };
  const name = object.metadata?.name ?? '';
  const allowed = (verb: string, res: string, objectName: string): boolean => authorize(objects, user, { verb, apiGroup: GROUP, resource: res, namespace, name: objectName }).allowed;
  let rules: PolicyRule[];
  if (resource === 'roles' || resource === 'clusterroles') {
    if (allowed('escalate', resource, name)) return;
    rules = object.rules ?? [];
  } else if (resource === 'rolebindings' || resource === 'clusterrolebindings') {
    const ref = object.roleRef ?? {};
    const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
    if (allowed('bind', refResource, ref.name ?? '')) return;
    const role = ref.kind === 'ClusterRole' ? objects.get('ClusterRole', undefined, ref.name ?? '') : objects.get('Role', namespace, ref.name ?? '');
    rules = ((role?.['rules'] as PolicyRule[] | undefined) ?? []);
  } else {
    return;
  }
  const missing = breakdown(rules).filter((r) => !holds(objects, user, namespace, r));
  if (missing.length === 0) return;
  const groups = `[${user.groups.map((g) => JSON.stringify(g)).join(' ')}]`;
  throw new ApiError(403, 'Forbidden', `${resource}.${GROUP} ${JSON.stringify(name)} is forbidden: user ${JSON.stringify(user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${compact(missing).join('\n')}`, { name, group: GROUP, kind: resource });
}

/** One rule per verb × group × resource × name (rule.go breaks rules down so before comparing). */
function breakdown(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const rule of rules) {
    for (const verb of rule.verbs ?? []) {
      for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
      for (const group of rule.apiGroups ?? []) {
        for (const res of rule.resources ?? []) {
          const names = rule.resourceNames ?? [];
          if (names.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [res] });
          for (const n of names) out.push({ verbs: [verb], apiGroups: [group], resources: [res], resourceNames: [n] });
        }
      }
    }
  }
  return out;
}

function holds(objects: RbacObjects, user: RbacUser, namespace: string, r: PolicyRule): boolean {
  const verb = r.verbs?.[0] ?? '';
  if (r.nonResourceURLs) return authorizeNonResource(objects, user, { verb, path: r.nonResourceURLs[0] ?? '' }).allowed;
  const [resource = '', subresource] = (r.resources?.[0] ?? '').split('/');
  return authorize(objects, user, {
    verb,
    apiGroup: r.apiGroups?.[0] ?? '',
    resource,
    namespace,
    ...(subresource ? { subresource } : {}),
    ...(r.resourceNames ? { name: r.resourceNames[0] ?? '' } : {}),
  }).allowed;
}

/** As rbacv1helpers' `CompactRules` and `CompactString`: verbs merged per group, resource and names; sorted, as rule.go sorts them. */
function compact(rules: readonly PolicyRule[]): string[] {
  const merged = new Map<string, PolicyRule>();
  for (const r of rules) {
    const key = JSON.stringify([r.apiGroups, r.resources, r.resourceNames, r.nonResourceURLs]);
    const seen = merged.get(key);
    if (seen) seen.verbs = [...(seen.verbs ?? []), ...(r.verbs ?? [])];
    else merged.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
  }
  const list = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
  return [...merged.values()].map((r) => {
    const parts: string[] = [];
    if (r.apiGroups) parts.push(`APIGroups:${list(r.apiGroups)}`);
    if (r.resources) parts.push(`Resources:${list(r.resources)}`);
    if (r.resourceNames) parts.push(`ResourceNames:${list(r.resourceNames)}`);
    if (r.nonResourceURLs) parts.push(`NonResourceURLs:${list(r.nonResourceURLs)}`);
    parts.push(`Verbs:${list(r.verbs ?? [])}`);
    return `{${parts.join(', ')}}`;
  }).sort();
}
