/**
 * The admin callers of the local stack and the simulator, set up as an EKS cluster's would be: the
 * `tidb-reconciler-admin` ClusterRole (infra/k8s/admin-rbac.yaml, the same rules), an operator IAM
 * role whose access entry puts it in a group, and a ClusterRoleBinding of that ClusterRole to the
 * group — so the admin function's RBAC check passes for the operator in every namespace, and for
 * anyone else only where the world's RBAC objects say so.
 */
import { defaultAccessEntryUsername } from '../platform/admin-caller.js';
import type { AccessEntry } from '../eks/port.js';
import type { KubeObject } from '../sim/object.js';
import { LOCAL_ACCOUNT } from './iam/resolve.js';

/** The account of every local and simulated IAM principal: the local world's (iam/resolve.ts). */
export const LOCAL_ACCOUNT_ID = LOCAL_ACCOUNT;

/** The ClusterRole of infra/k8s/admin-rbac.yaml (a unit test keeps the two equal). */
export const ADMIN_CLUSTER_ROLE: KubeObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'tidb-reconciler-admin' },
  rules: [{ apiGroups: ['pingcap.com'], resources: ['tidbclusters'], verbs: ['get', 'patch'] }],
};

/** An operator identity: its IAM role and the Kubernetes group its access entry gives it. */
export type OperatorIdentity = { readonly roleArn: string; readonly group: string };

/** `npm start`'s operator: the role the local credentials stand for (see admin-endpoint.ts). */
export const LOCAL_OPERATOR: OperatorIdentity = { roleArn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/local-operator`, group: 'tidb-reconciler:local-admins' };

/** A scenario's default admin caller (`admin:` without `as:`), admin of every namespace. */
export const SCENARIO_OPERATOR: OperatorIdentity = { roleArn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/scenario-operator`, group: 'tidb-reconciler:scenario-admins' };

/** The access entry EKS would hold for `operator` (created without a user name: the default one). */
export function operatorAccessEntry(operator: OperatorIdentity): AccessEntry {
  return { principalArn: operator.roleArn, username: defaultAccessEntryUsername(operator.roleArn), kubernetesGroups: [operator.group], type: 'STANDARD' };
}

/** The objects that make `operator` an admin of every namespace: the admin ClusterRole and a ClusterRoleBinding to its group. */
export function operatorRbacObjects(operator: OperatorIdentity): readonly KubeObject[] {
  const bindingName = `${operator.group.replace(/[^a-z0-9.-]/g, '-')}`;
  return [
    ADMIN_CLUSTER_ROLE,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: bindingName },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tidb-reconciler-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: operator.group }],
    },
  ];
}

/** The STS session ARN a role's caller signs as (what Lambda names in the function URL event). */
export function sessionArnOf(roleArn: string, sessionName: string): string {
  const m = /^arn:([a-z-]+):iam::(\d{12}):role\/(?:.*\/)?([\w+=,.@-]+)$/.exec(roleArn);
  if (!m) throw new Error(`${roleArn} is not an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME)`);
  return `arn:${m[1]}:sts::${m[2]}:assumed-role/${m[3]}/${sessionName}`;
}
