/**
 * Who a request comes from: bearer tokens mapped to Kubernetes users, as the API server's token
 * authenticators map them (EKS: an IAM role's access entry gives a username and groups; a
 * ServiceAccount token gives `system:serviceaccount:<ns>:<name>`). Every authenticated user also
 * has the group `system:authenticated` (apiserver's `authenticatedgroup` wrapper). There is no
 * anonymous user: EKS answers 401 to a request without valid credentials on resources, and the
 * simulator takes that stricter reading for every path.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from './api-error.js';
import { SYSTEM_MASTERS, type RbacUser } from './rbac.js';

/** The group every authenticated user is in (user.AllAuthenticated). */
export const SYSTEM_AUTHENTICATED = 'system:authenticated';

/** The admin a world's default kubeconfig authenticates as (what `eksctl`/kubeadm give the creator). */
export const CLUSTER_ADMIN_USER: RbacUser = { name: 'kubernetes-admin', groups: [SYSTEM_MASTERS] };

/** The user a ServiceAccount's token authenticates as (serviceaccount.UserInfo). */
export function serviceAccountUser(namespace: string, name: string): RbacUser {
  return { name: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

/** The 401 kube-apiserver answers a request it cannot authenticate. */
export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

/** Bearer tokens and the users they stand for. */
export class TokenRegistry {
  private readonly users = new Map<string, RbacUser>();

  /** A new random token for `user`. */
  issue(user: RbacUser): string {
    const token = randomBytes(24).toString('base64url');
    this.users.set(token, { name: user.name, groups: [...user.groups] });
    return token;
  }

  /** Registers a given token for `user` (`sim serve --token`). */
  add(token: string, user: RbacUser): void {
    if (token === '') throw new Error('a bearer token must not be empty');
    this.users.set(token, { name: user.name, groups: [...user.groups] });
  }

  /** The user of an `Authorization` header, with `system:authenticated`; 401 when there is none. */
  authenticate(authorization: string | undefined): RbacUser {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const user = match?.[1] === undefined ? undefined : this.users.get(match[1]);
    if (user === undefined) throw unauthorized();
    return withAuthenticated(user);
  }
}

/** `user` with the group `system:authenticated` added once. */
export function withAuthenticated(user: RbacUser): RbacUser {
  return user.groups.includes(SYSTEM_AUTHENTICATED) ? user : { name: user.name, groups: [...user.groups, SYSTEM_AUTHENTICATED] };
}
