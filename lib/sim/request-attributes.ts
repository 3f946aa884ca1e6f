/**
 * What a request asks, as the API server's authorizer sees it: the attributes its
 * `RequestInfoFactory` reads from the method and path
 * (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go), and the 403 it answers when
 * they are refused (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go,
 * `forbiddenMessage`, wrapped by apimachinery's `errors.NewForbidden`).
 */
import { ApiError } from './api-error.js';

/** A request on a resource: its verb, API group, resource and subresource, namespace and object name. */
export type ResourceAttributes = {
  readonly kind: 'resource';
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
};

/** A request on any other path (`/version`, `/api`, `/openapi/v2`): the lower-case method and the path. */
export type NonResourceAttributes = { readonly kind: 'nonResource'; readonly verb: string; readonly path: string };

/** What the authorizer decides on. */
export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

const SPECIAL_VERBS = new Set(['proxy', 'redirect', 'watch']);
/** Subresources of a namespace that are the namespace's own (requestinfo.go's `namespaceSubresources`). */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * As `RequestInfoFactory.NewRequestInfo`: `/api/{v}/…` and `/apis/{group}/{v}/…` are resource
 * requests (an API group or version root alone is discovery, a non-resource request); the verb is
 * the method's (`get`/`list`/`watch` for GET, `create`, `update`, `patch`, `delete`/`deletecollection`),
 * `watch` with `?watch=1|true` or the legacy `/watch/` prefix; a list or watch with the single field
 * selector `metadata.name=x` names the object `x`.
 */
export function requestAttributes(method: string, pathname: string, query: URLSearchParams): RequestAttributes {
  const m = method.toUpperCase();
  const parts = pathname.split('/').filter((p) => p.length > 0).map(safeDecode);
  const prefixLength = parts[0] === 'api' ? 2 : parts[0] === 'apis' ? 3 : 0;
  if (prefixLength === 0 || parts.length <= prefixLength) return { kind: 'nonResource', verb: m.toLowerCase(), path: pathname };
  const apiGroup = parts[0] === 'api' ? '' : (parts[1] ?? '');
  let rest = parts.slice(prefixLength);
  let verb = httpVerb(m);
  if (rest[0] !== undefined && SPECIAL_VERBS.has(rest[0])) {
    // The legacy `/watch/…` (and `/proxy/…`) prefixes.
    verb = rest[0];
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1] ?? '';
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  if (verb === 'get' || verb === 'watch' || verb === 'delete') {
    if (name === '' && verb === 'get') verb = 'list';
    if (name === '' && verb === 'delete') verb = 'deletecollection';
    if ((verb === 'list' || verb === 'get') && (query.get('watch') === 'true' || query.get('watch') === '1')) verb = 'watch';
  }
  let objectName = name;
  if ((verb === 'list' || verb === 'watch') && objectName === '') objectName = singleNameSelector(query.get('fieldSelector')) ?? '';
  return { kind: 'resource', verb, apiGroup, resource, subresource, namespace, name: objectName };
}

/** The Status error the API server answers a refused request with (403, reason `Forbidden`). */
export function forbidden(user: string, a: RequestAttributes, reason = ''): ApiError {
  const detail = forbiddenMessage(user, a) + (reason === '' ? '' : `: ${reason}`);
  if (a.kind === 'nonResource') return new ApiError(403, 'Forbidden', `forbidden: ${detail}`, { });
  const qualified = a.apiGroup === '' ? a.resource : `${a.resource}.${a.apiGroup}`;
  const message = a.name === '' ? `${qualified} is forbidden: ${detail}` : `${qualified} ${q(a.name)} is forbidden: ${detail}`;
  return new ApiError(403, 'Forbidden', message, { ...(a.name === '' ? {} : { name: a.name }), group: a.apiGroup, kind: a.resource });
}

/** errors.go's `forbiddenMessage`. */
export function forbiddenMessage(user: string, a: RequestAttributes): string {
  if (a.kind === 'nonResource') return `User ${q(user)} cannot ${a.verb} path ${q(a.path)}`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const scope = a.namespace === '' ? 'at the cluster scope' : `in the namespace ${q(a.namespace)}`;
  return `User ${q(user)} cannot ${a.verb} resource ${q(resource)} in API group ${q(a.apiGroup)} ${scope}`;
}

function httpVerb(method: string): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

/** `x` when the selector is exactly `metadata.name=x` (or `==`), as requestinfo.go reads it. */
function singleNameSelector(selector: string | null): string | undefined {
  if (!selector || selector.includes(',')) return undefined;
  const match = /^metadata\.name(?:==?)(.+)$/.exec(selector.trim());
  return match?.[1];
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Go's %q for the names the API server prints. */
function q(text: string): string {
  return JSON.stringify(text);
}
