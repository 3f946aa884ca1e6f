/**
 * The namespace-scoped RBAC derived from infra/k8s/reconciler-rbac.yaml (lib/local/namespaced-rbac.ts),
 * judged by the simulated API server's RBAC evaluation: the reconciler group may do in a watched
 * namespace exactly what the cluster-wide manifest allows there, nothing in another namespace or
 * across all namespaces, and keeps the cluster-scoped reads.
 */
import { describe, expect, it } from '@jest/globals';

import { API_PROXY_RBAC_FILE, RECONCILER_RBAC_FILE, rbacObjectsOf } from '../../lib/local/function-rbac.js';
import { namespacedRbac } from '../../lib/local/namespaced-rbac.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { type RbacObjects, type RbacRequest, authorize } from '../../lib/sim/rbac.js';

function objectsOf(list: readonly KubeObject[]): RbacObjects {
  return {
    get: (kind, namespace, name) => list.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name),
    list: (kind, namespace) => list.filter((o) => o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace)),
  };
}

const clusterWide = objectsOf(rbacObjectsOf(RECONCILER_RBAC_FILE));
const namespaced = objectsOf(namespacedRbac([...rbacObjectsOf(RECONCILER_RBAC_FILE), ...rbacObjectsOf(API_PROXY_RBAC_FILE)], ['tidb-a', 'tidb-c']));
const reconciler = { name: 'fn', groups: ['tidb-reconciler', 'system:authenticated'] };
const exporter = { name: 'ex', groups: ['tidb-reconciler-exporter', 'system:authenticated'] };
const ask = (verb: string, apiGroup: string, resource: string, namespace: string, subresource?: string): RbacRequest => ({ verb, apiGroup, resource, namespace, ...(subresource ? { subresource } : {}) });

describe('the namespace-scoped RBAC', () => {
  it.each([
    { name: 'TidbClusters listed in a watched namespace', user: reconciler, request: ask('list', 'pingcap.com', 'tidbclusters', 'tidb-a'), want: true },
    { name: 'TidbCluster status written in the second watched namespace', user: reconciler, request: ask('update', 'pingcap.com', 'tidbclusters', 'tidb-c', 'status'), want: true },
    { name: 'pods deleted in a watched namespace', user: reconciler, request: ask('delete', '', 'pods', 'tidb-a'), want: true },
    { name: 'TidbClusters listed in another namespace', user: reconciler, request: ask('list', 'pingcap.com', 'tidbclusters', 'tidb-b'), want: false },
    { name: 'TidbClusters listed across all namespaces', user: reconciler, request: ask('list', 'pingcap.com', 'tidbclusters', ''), want: false },
    { name: 'pods listed across all namespaces', user: reconciler, request: ask('list', '', 'pods', ''), want: false },
    { name: 'Secrets read in another namespace', user: reconciler, request: ask('get', '', 'secrets', 'tidb-b'), want: false },
    { name: 'PersistentVolumes listed (cluster-scoped)', user: reconciler, request: ask('list', '', 'persistentvolumes', ''), want: true },
    { name: 'PersistentVolumes patched (cluster-scoped)', user: reconciler, request: ask('patch', '', 'persistentvolumes', ''), want: true },
    { name: 'Nodes read (cluster-scoped)', user: reconciler, request: ask('get', '', 'nodes', ''), want: true },
    { name: 'a SubjectAccessReview created (cluster-scoped)', user: reconciler, request: ask('create', 'authorization.k8s.io', 'subjectaccessreviews', ''), want: true },
    { name: 'pods proxied in a watched namespace (with --api-proxy)', user: reconciler, request: ask('get', '', 'pods', 'tidb-a', 'proxy'), want: true },
    { name: 'the exporter watching TidbClusters in a watched namespace', user: exporter, request: ask('watch', 'pingcap.com', 'tidbclusters', 'tidb-c'), want: true },
    { name: 'the exporter watching TidbClusters across all namespaces', user: exporter, request: ask('watch', 'pingcap.com', 'tidbclusters', ''), want: false },
  ])('$name: allowed $want', ({ user, request, want }) => {
    expect(authorize(namespaced, user, request).allowed).toBe(want);
  });

  it('grants in a watched namespace whatever the cluster-wide manifest grants there, rule by rule', () => {
    // Prepare: every verb and resource of the cluster-wide ClusterRoles, asked in a watched namespace.
    const asks: { user: typeof reconciler; request: RbacRequest }[] = [];
    for (const role of rbacObjectsOf(RECONCILER_RBAC_FILE).filter((o) => o.kind === 'ClusterRole')) {
      const user = role.metadata.name === 'tidb-reconciler-exporter' ? exporter : reconciler;
      for (const rule of role['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[]) {
        for (const [resource, subresource] of rule.resources.map((r) => r.split('/'))) {
          for (const verb of rule.verbs) asks.push({ user, request: ask(verb, rule.apiGroups[0] ?? '', resource ?? '', 'tidb-a', subresource) });
        }
      }
    }
    // Act
    const differing = asks.filter(({ user, request }) => authorize(namespaced, user, request).allowed !== authorize(clusterWide, user, request).allowed);
    // Assess
    expect(asks.length).toBeGreaterThan(30);
    expect(differing).toEqual([]);
  });

  it.each([
    { name: 'no namespace', objects: rbacObjectsOf(RECONCILER_RBAC_FILE), namespaces: [], error: 'namespacedRbac: no namespace given' },
    { name: 'a Role in the input', objects: [{ kind: 'Role', metadata: { name: 'r', namespace: 'x' } }], namespaces: ['a'], error: 'namespacedRbac: Role r is not a ClusterRole or ClusterRoleBinding' },
    { name: 'a wildcard resource', objects: [{ kind: 'ClusterRole', metadata: { name: 'all' }, rules: [{ apiGroups: [''], resources: ['*'], verbs: ['get'] }] }], namespaces: ['a'], error: "namespacedRbac: ClusterRole all grants resources '*', which cannot be split by scope" },
  ])('refuses what it cannot convert: $name', ({ objects, namespaces, error }) => {
    expect(() => namespacedRbac(objects as KubeObject[], namespaces)).toThrow(error);
  });
});
