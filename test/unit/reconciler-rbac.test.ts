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
const rules = docs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'tidb-reconciler')?.rules ?? [];
const allows = (group: string, resource: string, verb: string): boolean =>
  rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
// The API-server proxy path's grants: their own ClusterRole, applied only with COMPONENT_ACCESS=api-proxy.
const proxyDocs = parseAllDocuments(readFileSync(new URL('../../infra/k8s/reconciler-rbac-api-proxy.yaml', import.meta.url), 'utf8')).map((d) => d.toJS() as Doc);
const proxyRules = proxyDocs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'tidb-reconciler-api-proxy')?.rules ?? [];
const proxyAllows = (resource: string, verb: string): boolean => proxyRules.some((r) => r.apiGroups.includes('') && r.resources.includes(resource) && r.verbs.includes(verb));

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

  it.each([
    { name: 'reading a Lease by name (TiDB Operator\'s leader election)', group: 'coordination.k8s.io', resource: 'leases', verb: 'get', want: true },
    { name: 'listing Leases', group: 'coordination.k8s.io', resource: 'leases', verb: 'list', want: false },
    { name: 'writing a Lease', group: 'coordination.k8s.io', resource: 'leases', verb: 'update', want: false },
    { name: 'listing Deployments (discovery\'s, and TiDB Operator\'s controller manager by label)', group: 'apps', resource: 'deployments', verb: 'list', want: true },
    { name: 'reading a Deployment by name', group: 'apps', resource: 'deployments', verb: 'get', want: false },
  ])('TiDB Operator detection: $name is allowed: $want', ({ group, resource, verb, want }) => {
    expect(allows(group, resource, verb)).toBe(want);
  });

  it('allows reading, listing and writing the status of TidbClusters, and is bound to the reconciler group', () => {
    expect(['get', 'list'].every((v) => allows('pingcap.com', 'tidbclusters', v))).toBe(true);
    expect(allows('pingcap.com', 'tidbclusters/status', 'update')).toBe(true);
    const binding = docs.find((d) => d.kind === 'ClusterRoleBinding' && d.metadata.name === 'tidb-reconciler') as Doc & { subjects: { kind: string; name: string }[] };
    expect(binding.roleRef?.name).toBe('tidb-reconciler');
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'tidb-reconciler' }]);
  });

  it.each([
    { name: 'GET through both (PD reads, TiDB /status)', resource: 'pods/proxy', verb: 'get', want: true },
    { name: 'POST to a pod (PD leader transfer)', resource: 'pods/proxy', verb: 'create', want: true },
    { name: 'PUT to a pod (TiCDC drain, Pump offline)', resource: 'pods/proxy', verb: 'update', want: true },
    { name: 'DELETE to a pod', resource: 'pods/proxy', verb: 'delete', want: false },
    { name: 'POST through the service (schedulers)', resource: 'services/proxy', verb: 'create', want: true },
    { name: 'DELETE through the service (PD member, store, scheduler)', resource: 'services/proxy', verb: 'delete', want: true },
    { name: 'PUT through the service', resource: 'services/proxy', verb: 'update', want: false },
  ])('proxy (reconciler-rbac-api-proxy.yaml only): $name is allowed: $want', ({ resource, verb, want }) => {
    expect(proxyAllows(resource, verb)).toBe(want);
    // Direct access, the default, needs no proxy grant at all.
    expect(allows('', resource, verb)).toBe(false);
  });

  it('the proxy grants are bound to the reconciler group, and direct access may read Endpoints and pods', () => {
    const binding = proxyDocs.find((d) => d.kind === 'ClusterRoleBinding') as Doc & { subjects: { kind: string; name: string }[] };
    expect(binding.roleRef?.name).toBe('tidb-reconciler-api-proxy');
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'tidb-reconciler' }]);
    expect(allows('', 'endpoints', 'get')).toBe(true);
    expect(allows('', 'pods', 'get')).toBe(true);
  });

  it.each([
    { name: 'creating pods (the StatefulSet controller does)', group: '', resource: 'pods', verb: 'create' },
    { name: 'creating claims', group: '', resource: 'persistentvolumeclaims', verb: 'create' },
    { name: 'replacing a TidbCluster (it is patched)', group: 'pingcap.com', resource: 'tidbclusters', verb: 'update' },
    { name: 'watching (the exporter has its own group)', group: 'apps', resource: 'statefulsets', verb: 'watch' },
  ])('does not allow $name', ({ group, resource, verb }) => {
    expect(allows(group, resource, verb)).toBe(false);
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
