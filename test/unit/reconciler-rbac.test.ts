import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';

import { kindInfo } from '../../lib/kube/kinds.js';
import { OWNED_KINDS } from '../../lib/kube/port.js';
import { ADMIN_CLUSTER_ROLE } from '../../lib/local/admin-identity.js';
import { ADMIN_PERMISSIONS } from '../../lib/wiring/admin-auth.js';

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
type Doc = { kind: string; metadata: { name: string }; rules?: Rule[]; roleRef?: { name: string } };

const docs = parseAllDocuments(readFileSync(new URL('../../infra/k8s/reconciler-rbac.yaml', import.meta.url), 'utf8')).map((d) => d.toJS() as Doc);
const rules = docs.find((d) => d.kind === 'ClusterRole')?.rules ?? [];
const allows = (group: string, resource: string, verb: string): boolean =>
  rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));

describe('the reconciler ClusterRole', () => {
  it.each(OWNED_KINDS.map((kind) => ({ name: kind, kind })))('allows the label-selected LIST of $name each step observes', ({ kind }) => {
    const info = kindInfo(kind);
    expect(allows(info.group, info.plural, 'list')).toBe(true);
  });

  it.each([
    { name: 'reading the claims\' volumes by label', verb: 'list', want: true },
    { name: 'reading a volume not labelled yet', verb: 'get', want: true },
    { name: 'patching a volume\'s reclaim policy and labels', verb: 'patch', want: true },
    { name: 'deleting a volume', verb: 'delete', want: false },
    { name: 'creating a volume', verb: 'create', want: false },
    { name: 'replacing a volume', verb: 'update', want: false },
  ])('PersistentVolumes: $name is allowed: $want', ({ verb, want }) => {
    const info = kindInfo('PersistentVolume');
    expect(allows(info.group, info.plural, verb)).toBe(want);
  });

  it('allows reading, listing and writing the status of TidbClusters, and is bound to the reconciler group', () => {
    expect(['get', 'list'].every((v) => allows('pingcap.com', 'tidbclusters', v))).toBe(true);
    expect(allows('pingcap.com', 'tidbclusters/status', 'update')).toBe(true);
    const binding = docs.find((d) => d.kind === 'ClusterRoleBinding') as Doc & { subjects: { kind: string; name: string }[] };
    expect(binding.roleRef?.name).toBe('tidb-reconciler');
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'tidb-reconciler' }]);
  });

  it.each([
    { name: 'GET (PD reads, TiDB /status)', verb: 'get' },
    { name: 'POST (PD leader transfer, schedulers)', verb: 'create' },
    { name: 'PUT (TiCDC drain, Pump offline)', verb: 'update' },
    { name: 'DELETE (PD member, store, scheduler)', verb: 'delete' },
  ])('allows $name through the service and pod proxy', ({ verb }) => {
    expect(allows('', 'services/proxy', verb) && allows('', 'pods/proxy', verb)).toBe(true);
  });

  it('allows reading the cluster client Secret a TLS cluster needs', () => {
    expect(allows('', 'secrets', 'get')).toBe(true);
  });
});


describe('the admin RBAC', () => {
  it('lets the admin function ask the API server whether its caller may act (create subjectaccessreviews)', () => {
    expect(allows('authorization.k8s.io', 'subjectaccessreviews', 'create')).toBe(true);
  });

  it('infra/k8s/admin-rbac.yaml holds the ClusterRole the local stack and the simulator install', () => {
    const admin = parseAllDocuments(readFileSync(new URL('../../infra/k8s/admin-rbac.yaml', import.meta.url), 'utf8')).map((d) => d.toJS() as unknown);
    expect(admin).toEqual([ADMIN_CLUSTER_ROLE]);
  });

  it('the admin ClusterRole grants what every mutating admin action needs', () => {
    const rules = ADMIN_CLUSTER_ROLE['rules'] as Rule[];
    for (const p of Object.values(ADMIN_PERMISSIONS)) {
      expect(rules.some((r) => r.apiGroups.includes(p.group) && r.resources.includes(p.resource) && r.verbs.includes(p.verb))).toBe(true);
    }
  });
});
