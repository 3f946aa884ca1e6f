/**
 * Parses an API server URL path into what it addresses: a collection, an object, a subresource,
 * a proxy target or a discovery document. Paths follow the real API server exactly, including the
 * legacy `/watch/` prefix and `name:port` proxy targets.
 */
import type { ResourceDef } from './resources.js';

/** Finds the served resource a URL names by group, version and plural. */
export type ResourceLookup = (group: string, version: string, plural: string) => ResourceDef | undefined;

/** What a request path addresses. */
export type Route =
  | { type: 'discovery'; path: string }
  | {
      type: 'resource';
      resource: ResourceDef;
      namespace: string | undefined;
      name: string | undefined;
      subresource: 'status' | 'scale' | undefined;
      watchPrefix: boolean;
    }
  | { type: 'proxy'; target: 'pods' | 'services'; namespace: string; name: string; port: string; scheme: ProxyScheme; rest: string }
  | { type: 'badProxy'; message: string }
  | { type: 'unknown'; path: string };

/** The scheme the API server uses towards the pod: `http` unless the proxy target says `https:`. */
export type ProxyScheme = 'http' | 'https';

/** Parses `/api/v1/...` and `/apis/{group}/{version}/...` against the served resources. */
export function parseRoute(pathname: string, resourceByPlural: ResourceLookup): Route {
  const parts = pathname.split('/').filter((p) => p.length > 0).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return { type: 'discovery', path: '/' + parts.join('/') };
  }
  if (rest.length === 0) return { type: 'discovery', path: '/' + parts.join('/') };
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, nameWithPort, sub, ...tail] = rest;
  if (plural === undefined) return { type: 'unknown', path: pathname };
  if (group === '' && (plural === 'pods' || plural === 'services') && sub === 'proxy' && namespace && nameWithPort) {
    const split = splitSchemeNamePort(nameWithPort);
    if (!split) return { type: 'badProxy', message: `invalid ${plural === 'pods' ? 'pod' : 'service'} request "${nameWithPort}"` };
    const [scheme, name, port] = split;
    return { type: 'proxy', target: plural, namespace, name, port, scheme, rest: '/' + tail.join('/') + (pathname.endsWith('/') && tail.length ? '/' : '') };
  }
  const resource = resourceByPlural(group, version, plural);
  if (!resource) return { type: 'unknown', path: pathname };
  // A subresource the kind does not serve (a custom resource without `subresources.scale`, a
  // ConfigMap's status) is no route at all: the real server answers 404.
  if (sub !== undefined && ((sub !== 'status' && sub !== 'scale') || !resource.subresources.includes(sub))) return { type: 'unknown', path: pathname };
  if (tail.length > 0) return { type: 'unknown', path: pathname };
  // `/api/v1/namespaces/{name}` addresses the Namespace object itself.
  if (resource === undefined) return { type: 'unknown', path: pathname };
  return { type: 'resource', resource, namespace, name: nameWithPort, subresource: sub, watchPrefix };
}

/**
 * As the API server's `net.SplitSchemeNamePort`: `name`, `name:port` or `scheme:name:port`, the
 * scheme `http` (also when empty) or `https`, the name non-empty; anything else is invalid
 * (undefined), which the API server answers with 400 "invalid pod request".
 */
export function splitSchemeNamePort(s: string): [ProxyScheme, string, string] | undefined {
  const parts = s.split(':');
  if (parts.length > 3) return undefined;
  const [scheme, name, port] = parts.length === 3 ? parts : ['', parts[0], parts[1]];
  if (!name || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return [scheme === 'https' ? 'https' : 'http', name, port ?? ''];
}
