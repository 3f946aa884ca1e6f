/**
 * The functions' RBAC for the namespace-scoped mode (`WATCH_NAMESPACES`, TiDB Operator's
 * `clusterScoped: false`), derived from the cluster-wide manifest so the two never drift: each
 * ClusterRole's rules on namespaced resources become a Role of the same name in every watched
 * namespace, bound by a RoleBinding named as the ClusterRoleBinding; its rules on cluster-scoped
 * resources (PersistentVolumes, Nodes, SubjectAccessReviews) stay in a ClusterRole
 * `<name>-cluster-scoped` and its ClusterRoleBinding, as TiDB Operator's chart keeps a small
 * ClusterRole for them when `clusterScoped: false` (charts/tidb-operator/templates/controller-manager-rbac.yaml).
 * A Role's rules on cluster-scoped resources would grant nothing (RBAC applies a RoleBinding only
 * within its namespace), hence the split.
 */
import type { KubeObject } from '../sim/object.js';

/**
 * The cluster-scoped resources the reconciler's manifests name (Kubernetes: `kubectl api-resources
 * --namespaced=false`). A resource not listed is taken as namespaced.
 */
export const CLUSTER_SCOPED_RESOURCES: ReadonlySet<string> = new Set([
  'persistentvolumes',
  'nodes',
  'namespaces',
  'subjectaccessreviews',
  'selfsubjectaccessreviews',
  'clusterroles',
  'clusterrolebindings',
  'storageclasses',
  'customresourcedefinitions',
]);

/** The suffix of the ClusterRole (and its binding) that keeps a ClusterRole's cluster-scoped rules. */
export const CLUSTER_SCOPED_SUFFIX = '-cluster-scoped';

type Rule = { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
type RoleRef = { apiGroup: string; kind: string; name: string };

/**
 * The namespaced form of `objects` (ClusterRoles and ClusterRoleBindings; other kinds are refused)
 * for `namespaces`: Roles and RoleBindings per namespace, and the cluster-scoped remainder.
 * Throws a `TypeError` naming the object it cannot convert.
 */
export function namespacedRbac(objects: readonly KubeObject[], namespaces: readonly string[]): KubeObject[] {
  if (namespaces.length === 0) throw new TypeError('namespacedRbac: no namespace given');
  const split = new Map<string, { namespaced: Rule[]; cluster: Rule[] }>();
  const out: KubeObject[] = [];
  for (const object of objects) {
    if (object.kind !== 'ClusterRole') continue;
    const name = String(object.metadata.name);
    const parts = splitRules((object['rules'] ?? []) as Rule[], name);
    split.set(name, parts);
    if (parts.namespaced.length > 0) {
      for (const namespace of namespaces) out.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules: parts.namespaced });
    }
    if (parts.cluster.length > 0) out.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `${name}${CLUSTER_SCOPED_SUFFIX}` }, rules: parts.cluster });
  }
  for (const object of objects) {
    if (object.kind === 'ClusterRole') continue;
    const name = String(object.metadata.name);
    if (object.kind !== 'ClusterRoleBinding') throw new TypeError(`namespacedRbac: ${String(object.kind)} ${name} is not a ClusterRole or ClusterRoleBinding`);
    const ref = object['roleRef'] as RoleRef;
    const parts = split.get(ref.name);
    if (ref.kind !== 'ClusterRole' || parts === undefined) throw new TypeError(`namespacedRbac: ClusterRoleBinding ${name} binds ${ref.kind} ${ref.name}, not a ClusterRole of the manifest`);
    const subjects = object['subjects'];
    if (parts.namespaced.length > 0) {
      for (const namespace of namespaces) {
        out.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name, namespace }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ref.name }, subjects });
      }
    }
    if (parts.cluster.length > 0) {
      const clusterRole = `${ref.name}${CLUSTER_SCOPED_SUFFIX}`;
      out.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${name}${CLUSTER_SCOPED_SUFFIX}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole }, subjects });
    }
  }
  return out;
}

/** A ClusterRole's rules split by the scope of their resources (a rule naming both is cut in two). */
function splitRules(rules: readonly Rule[], role: string): { namespaced: Rule[]; cluster: Rule[] } {
  const namespaced: Rule[] = [];
  const cluster: Rule[] = [];
  for (const rule of rules) {
    if (rule.nonResourceURLs !== undefined) throw new TypeError(`namespacedRbac: ClusterRole ${role} has a nonResourceURLs rule, which no Role can hold`);
    const resources = rule.resources ?? [];
    if (resources.includes('*')) throw new TypeError(`namespacedRbac: ClusterRole ${role} grants resources '*', which cannot be split by scope`);
    const inCluster = resources.filter((r) => CLUSTER_SCOPED_RESOURCES.has(r.split('/')[0] ?? r));
    const inNamespace = resources.filter((r) => !inCluster.includes(r));
    if (inNamespace.length > 0) namespaced.push({ ...rule, resources: inNamespace });
    if (inCluster.length > 0) cluster.push({ ...rule, resources: inCluster });
  }
  return { namespaced, cluster };
}
