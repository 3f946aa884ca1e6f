/**
 * Parses an API server URL path into what it addresses: a collection, an object, a subresource,
 * a proxy target or a discovery document. Paths follow the real API server exactly, including the
 * legacy `/watch/` prefix and `name:port` proxy targets.
 */
import { type ResourceDef, resourceByPlural } from './resources.js';

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
  | { type: 'proxy'; target: 'pods' | 'services'; namespace: string; name: string; port: string; rest: string }
  | { type: 'unknown'; path: string };

/** Parses `/api/v1/...` and `/apis/{group}/{version}/...`. */
export function parseRoute(pathname: string): Route {
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
    const [name, port] = splitNamePort(nameWithPort);
    return { type: 'proxy', target: plural, namespace, name, port, rest: '/' + tail.join('/') + (pathname.endsWith('/') && tail.length ? '/' : '') };
  }
  const resource = resourceByPlural(group, version, plural);
  if (!resource) return { type: 'unknown', path: pathname };
  if (sub !== undefined && sub !== 'status' && sub !== 'scale') return { type: 'unknown', path: pathname };
  if (tail.length > 0) return { type: 'unknown', path: pathname };
  // `/api/v1/namespaces/{name}` addresses the Namespace object itself.
  if (resource === undefined) return { type: 'unknown', path: pathname };
  return { type: 'resource', resource, namespace, name: nameWithPort, subresource: sub, watchPrefix };
}

/** `basic-pd:2379` → [`basic-pd`, `2379`]; `http:basic-pd:2379` drops the scheme. */
function splitNamePort(s: string): [string, string] {
  const parts = s.split(':');
  if (parts.length === 3) return [parts[1] ?? '', parts[2] ?? ''];
  return [parts[0] ?? '', parts[1] ?? ''];
}
