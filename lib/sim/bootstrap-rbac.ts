/**
 * The default ClusterRoles and ClusterRoleBindings every Kubernetes cluster ships that matter to
 * the simulator, as plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go defines them:
 * `cluster-admin` (bound to `system:masters`), `system:discovery` and `system:basic-user` (bound to
 * `system:authenticated`), `system:public-info-viewer` (bound to `system:authenticated` and
 * `system:unauthenticated`). Installed in every world.
 */
import type { KubeObject } from './object.js';

const RBAC = 'rbac.authorization.k8s.io';
const BOOTSTRAP = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

function clusterRole(name: string, rules: Record<string, unknown>[]): KubeObject {
  return { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name, labels: BOOTSTRAP, annotations: AUTOUPDATE }, rules } as KubeObject;
}

function binding(name: string, role: string, groups: string[]): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: BOOTSTRAP, annotations: AUTOUPDATE },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: RBAC, kind: 'Group', name: g })),
  } as KubeObject;
}

/** The objects, ClusterRoles first. */
export function bootstrapRbacObjects(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('system:discovery', [{ nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
    clusterRole('system:basic-user', [{ apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] }]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
    binding('cluster-admin', 'cluster-admin', ['system:masters']),
    binding('system:discovery', 'system:discovery', ['system:authenticated']),
    binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    binding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  ];
}
