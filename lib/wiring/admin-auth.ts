/**
 * Authorising an admin action by the caller's own Kubernetes identity (ADR 0015): the caller's IAM
 * ARN (verified by Lambda's function URL) → its EKS access entry (user name and groups) → a
 * SubjectAccessReview asking the cluster's RBAC whether that user may do what the action's kubectl
 * equivalent does to the TidbCluster. Kubernetes RBAC decides, so giving a person admin rights on one
 * namespace is a RoleBinding there, as for `kubectl patch tc` with TiDB Operator.
 */
import type { AccessEntries, AccessEntry } from '../eks/port.js';
import type { KubePort } from '../kube/port.js';
import { principalOfCaller, renderAccessEntryUsername, type AdminCaller, type CallerPrincipal } from '../platform/admin-caller.js';
import type { AdminClusterRef, MutatingAdminAction } from '../platform/admin-request.js';
import type { Requester } from '../state/port.js';

/** A Kubernetes permission on the TidbCluster: `verb` on `resource` of API group `group`. */
export type AdminPermission = { readonly verb: string; readonly group: string; readonly resource: string };

const PATCH_TIDBCLUSTERS: AdminPermission = { verb: 'patch', group: 'pingcap.com', resource: 'tidbclusters' };

/**
 * What each mutating action needs, as its TiDB Operator equivalent: force-upgrade is
 * `kubectl annotate tc … tidb.pingcap.com/force-upgrade=true`, pause/resume `kubectl patch tc … spec.paused`,
 * and reconcile-now stands for nudging the controller by annotating the TidbCluster — all a `patch`.
 */
export const ADMIN_PERMISSIONS: Readonly<Record<MutatingAdminAction, AdminPermission>> = {
  'force-upgrade': PATCH_TIDBCLUSTERS,
  pause: PATCH_TIDBCLUSTERS,
  resume: PATCH_TIDBCLUSTERS,
  reconcile: PATCH_TIDBCLUSTERS,
};

/** The authorised requester (with the groups RBAC saw), or why the caller may not act. */
export type AdminAuthorization = { readonly ok: true; readonly requester: Requester & { readonly groups: readonly string[] } } | { readonly ok: false; readonly error: string };

/** The ports authorising reads: the cluster's access entries and its API server's SubjectAccessReview. */
export type AdminAuthPorts = { readonly accessEntries: AccessEntries; readonly kube: Pick<KubePort, 'reviewAccess'> };

// EKS's authenticator adds this group to every authenticated identity, as Kubernetes authenticators do.
const AUTHENTICATED_GROUP = 'system:authenticated';

/**
 * Decides whether `caller` may do `action` on the TidbCluster `cluster`. Guarantees: reads only (an
 * access-entry lookup and one SubjectAccessReview); a refusal names the caller, the namespace and the
 * missing permission; port failures are thrown (the caller answers them; nothing was changed).
 */
export async function authorizeAdmin(ports: AdminAuthPorts, caller: AdminCaller, action: MutatingAdminAction, cluster: AdminClusterRef): Promise<AdminAuthorization> {
  const permission = ADMIN_PERMISSIONS[action];
  const needs = `${permission.verb} ${permission.resource}.${permission.group} in namespace "${cluster.namespace}"`;
  const user = await kubernetesUserOf(ports, caller, action, needs);
  if (!user.ok) return user;
  const { username, groups } = user;
  const decision = await ports.kube.reviewAccess({ user: username, groups, ...permission, namespace: cluster.namespace, name: cluster.name });
  const requester = { arn: caller.arn, username, groups };
  if (decision.allowed) return { ok: true, requester };
  const why = [decision.reason, decision.evaluationError].filter((t) => t !== undefined && t !== '').join('; ');
  const who = `${caller.arn} (Kubernetes user "${username}", groups [${groups.join(', ')}])`;
  return { ok: false, error: `${who} may not ${permission.verb} ${permission.resource}.${permission.group} "${cluster.name}" in namespace "${cluster.namespace}": ${action} needs it; nothing was changed${why ? ` (${why})` : ''}` };
}

/**
 * Decides whether `caller` may start a dead-letter redrive. The redriven messages step clusters of
 * every namespace, so it needs what reconcile-now needs on each of them at once: `patch
 * tidbclusters.pingcap.com` in all namespaces (a SubjectAccessReview with no namespace, which only a
 * ClusterRoleBinding satisfies). Same guarantees as `authorizeAdmin`.
 */
export async function authorizeRedrive(ports: AdminAuthPorts, caller: AdminCaller): Promise<AdminAuthorization> {
  const permission = PATCH_TIDBCLUSTERS;
  const needs = `${permission.verb} ${permission.resource}.${permission.group} in every namespace`;
  const user = await kubernetesUserOf(ports, caller, 'redrive', needs);
  if (!user.ok) return user;
  const { username, groups } = user;
  const decision = await ports.kube.reviewAccess({ user: username, groups, ...permission, namespace: '' });
  if (decision.allowed) return { ok: true, requester: { arn: caller.arn, username, groups } };
  const why = [decision.reason, decision.evaluationError].filter((t) => t !== undefined && t !== '').join('; ');
  return { ok: false, error: `${caller.arn} (Kubernetes user "${username}", groups [${groups.join(', ')}]) may not ${needs}: redrive needs it (a ClusterRoleBinding); nothing was moved${why ? ` (${why})` : ''}` };
}

/** The caller's Kubernetes user name and groups from its EKS access entry, or why it has none. */
async function kubernetesUserOf(ports: AdminAuthPorts, caller: AdminCaller, action: string, needs: string): Promise<{ ok: true; username: string; groups: string[] } | { ok: false; error: string }> {
  const mapped = principalOfCaller(caller.arn);
  if (!mapped.ok) return { ok: false, error: `${mapped.error}; ${action} needs a caller mapped to a Kubernetes user allowed to ${needs}` };
  const entry = await findAccessEntry(ports.accessEntries, mapped.principal);
  if (entry === undefined) {
    return { ok: false, error: `no EKS access entry for ${mapped.principal.principalArn} (the caller ${caller.arn}): ${action} needs one mapping it to a Kubernetes user allowed to ${needs}` };
  }
  if (entry.type !== 'STANDARD') return { ok: false, error: `the EKS access entry of ${entry.principalArn} is of type ${entry.type}, not STANDARD: a node identity cannot be an admin caller` };
  const rendered = renderAccessEntryUsername(entry.username, mapped.principal);
  if (!rendered.ok) return { ok: false, error: `${rendered.error} (the caller ${caller.arn})` };
  return { ok: true, username: rendered.username, groups: [...new Set([...entry.kubernetesGroups, AUTHENTICATED_GROUP])] };
}

/**
 * The caller's access entry. A role's entry names the role's ARN, which carries the role's path; an
 * STS session ARN does not, so a role not found under its path-less ARN is looked for by name among
 * the cluster's entries (a role's name is unique in its account, whatever its path).
 */
async function findAccessEntry(entries: AccessEntries, principal: CallerPrincipal): Promise<AccessEntry | undefined> {
  const direct = await entries.describe(principal.principalArn);
  if (direct !== undefined || principal.roleName === undefined) return direct;
  const prefix = principal.principalArn.slice(0, principal.principalArn.indexOf(':role/') + ':role/'.length);
  const withPath = (await entries.listPrincipalArns()).find((arn) => arn.startsWith(prefix) && arn.endsWith(`/${principal.roleName}`));
  return withPath === undefined ? undefined : entries.describe(withPath);
}
