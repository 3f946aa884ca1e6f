/**
 * The API server's filter chain before a request is served, as
 * staging/src/k8s.io/apiserver/pkg/server/config.go's `DefaultBuildHandlerChain` orders it:
 * authentication (bearer token → user, 401 otherwise), impersonation (filters/impersonation.go:
 * `Impersonate-User` / `Impersonate-Group` honoured when the caller may `impersonate` those users
 * and groups), then authorisation of the request's attributes by RBAC (403 with the server's
 * wording). Records what each user was allowed (verb, group, resource/subresource) and every refusal,
 * so a run can show which rules were used and fail on a denial.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from './api-error.js';
import { confirmNoEscalation } from './escalation.js';
import { type TokenRegistry, withAuthenticated } from './authn.js';
import { type RbacDecision, type RbacObjects, type RbacUser, authorize, authorizeNonResource } from './rbac.js';
import { type RequestAttributes, forbidden, requestAttributes } from './request-attributes.js';

/** A refused request: who, what, and the message the client got. */
export type RbacDenial = { readonly atMs: number; readonly user: string; readonly attributes: RequestAttributes; readonly message: string };

/** Authenticates, impersonates and authorises requests (see the module comment). */
export class ApiGate {
  /** Per user name, every `verb group resource[/subresource]` allowed (resource requests only). */
  readonly usage = new Map<string, Set<string>>();
  /** Per user name, every namespace its allowed resource requests named (cluster-wide ones name none). */
  readonly namespaces = new Map<string, Set<string>>();
  /** Every refusal, in order. */
  readonly denials: RbacDenial[] = [];
  /** Told of each refusal as it happens. */
  onDenial: ((denial: RbacDenial) => void) | undefined;

  constructor(
    readonly tokens: TokenRegistry,
    private readonly objects: RbacObjects,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The user a request acts as; throws the 401 or 403 the API server would answer. */
  check(method: string, url: URL, headers: IncomingHttpHeaders): RbacUser {
    const caller = this.tokens.authenticate(headerValue(headers.authorization));
    const user = this.impersonated(caller, headers);
    this.require(user, requestAttributes(method, url.pathname, url.searchParams));
    return user;
  }

  /** RBAC's decision on `attributes` for `user`. */
  decide(user: RbacUser, a: RequestAttributes): RbacDecision {
    if (a.kind === 'nonResource') return authorizeNonResource(this.objects, user, { verb: a.verb, path: a.path });
    return authorize(this.objects, user, {
      verb: a.verb,
      apiGroup: a.apiGroup,
      resource: a.resource,
      namespace: a.namespace,
      ...(a.subresource === '' ? {} : { subresource: a.subresource }),
      ...(a.name === '' ? {} : { name: a.name }),
    });
  }

  /**
   * Escalation prevention on a write of an RBAC object (escalation.ts); a refusal is recorded as a
   * denial like any other, and thrown.
   */
  confirmNoEscalation(user: RbacUser, resource: string, namespace: string, body: unknown, verb: 'create' | 'update'): void {
    try {
      confirmNoEscalation(this.objects, user, resource, namespace, body);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const name = (body as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? '';
      const denial = { atMs: this.nowMs(), user: user.name, attributes: { kind: 'resource' as const, verb, apiGroup: 'rbac.authorization.k8s.io', resource, subresource: '', namespace, name }, message: err.message };
      this.denials.push(denial);
      this.onDenial?.(denial);
      throw err;
    }
  }

  private require(user: RbacUser, a: RequestAttributes): void {
    const decision = this.decide(user, a);
    if (!decision.allowed) {
      const error = forbidden(user.name, a, decision.reason);
      const denial = { atMs: this.nowMs(), user: user.name, attributes: a, message: error.message };
      this.denials.push(denial);
      this.onDenial?.(denial);
      throw error;
    }
    if (a.kind === 'resource') {
      const used = this.usage.get(user.name) ?? new Set<string>();
      used.add(usageKey(a.verb, a.apiGroup, a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`));
      this.usage.set(user.name, used);
      if (a.namespace !== '') {
        const named = this.namespaces.get(user.name) ?? new Set<string>();
        named.add(a.namespace);
        this.namespaces.set(user.name, named);
      }
    }
  }

  /**
   * As filters/impersonation.go: each requested user and group must be allowed the `impersonate`
   * verb on `users` / `groups` (or `serviceaccounts` in its namespace), named; the impersonated user
   * is authenticated (`system:authenticated` added). Groups without a user is an error.
   */
  private impersonated(caller: RbacUser, headers: IncomingHttpHeaders): RbacUser {
    const name = headerValue(headers['impersonate-user']);
    const groups = headerList(headers['impersonate-group']);
    if (name === undefined) {
      if (groups.length > 0) throw new ApiError(500, 'InternalError', `Internal error occurred: requested [${groups.map((g) => `{Group  ${g}  }`).join(' ')}] without impersonating a user`);
      return caller;
    }
    const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
    const userAttributes: RequestAttributes = sa
      ? { kind: 'resource', verb: 'impersonate', apiGroup: '', resource: 'serviceaccounts', subresource: '', namespace: sa[1] ?? '', name: sa[2] ?? '' }
      : { kind: 'resource', verb: 'impersonate', apiGroup: '', resource: 'users', subresource: '', namespace: '', name };
    this.require(caller, userAttributes);
    for (const group of groups) this.require(caller, { kind: 'resource', verb: 'impersonate', apiGroup: '', resource: 'groups', subresource: '', namespace: '', name: group });
    const saGroups = sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1] ?? ''}`] : [];
    return withAuthenticated({ name, groups: [...new Set([...groups, ...saGroups])] });
  }
}

/** The key `usage` records: `verb group resource` (the core group as `""`). */
export function usageKey(verb: string, apiGroup: string, resource: string): string {
  return `${verb} ${apiGroup === '' ? '""' : apiGroup} ${resource}`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A repeated header's values (Node joins unknown repeated headers with `, `). */
function headerList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}
