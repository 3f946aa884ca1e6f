/**
 * Where a simulated stack counts the requests of its functions and its exporter (request-counts.ts),
 * each at the boundary it crosses: the API server (by the authenticated user), the in-VPC network
 * (by the component the address belongs to), and the exporter's watch source. A request a function
 * sends through the API server's pod or service proxy reaches a component: it is that component's
 * request, not the API server's (the proxy is how it travels, not what it asks for).
 */
import type { DialTarget } from '../components/network.js';
import type { RbacUser } from '../sim/rbac.js';
import { parseRoute } from '../sim/routes.js';
import type { SimApiServer } from '../sim/server.js';
import type { ObjectStore } from '../sim/store.js';
import { type ComponentTarget, COMPONENT_TARGETS, componentOfLabels, type RequestCounter, type RequestTarget } from './request-counts.js';

/** The Kubernetes user names of the callers counted: the functions (reconcile, sweep, timer, admin) and the exporter. */
export type CountedCallers = { readonly functions: ReadonlySet<string>; readonly exporter: ReadonlySet<string> };

/**
 * What a request to the API server at `path` by `user` counts as: `apiServer` for a function's
 * request, the component reached for a function's proxied one, `exporter` for the exporter's; undefined
 * for anyone else's (the timeline's kubectl, the simulated controllers).
 */
export function apiRequestTarget(store: ObjectStore, callers: CountedCallers, path: string, user: RbacUser): RequestTarget | undefined {
  if (callers.exporter.has(user.name)) return 'exporter';
  if (!callers.functions.has(user.name)) return undefined;
  const route = parseRoute(path, (g, v, p) => store.resources.byPlural(g, v, p));
  if (route.type !== 'proxy') return 'apiServer';
  const target = store.get(route.target === 'pods' ? 'Pod' : 'Service', route.namespace, route.name);
  return componentOfLabels(target?.metadata.labels) ?? 'apiServer';
}

/**
 * Counts every request of `callers` that `server` accepts into `counter` (see `apiRequestTarget`),
 * keeping any `onRequest` hook already set.
 */
export function countApiRequests(server: SimApiServer, callers: CountedCallers, counter: RequestCounter): void {
  const previous = server.onRequest;
  server.onRequest = (method, url, user) => {
    previous?.(method, url, user);
    const target = apiRequestTarget(server.store, callers, url.pathname, user);
    if (target !== undefined) counter.count(target);
  };
}

/**
 * The component an in-VPC exchange goes to: the labels of the pod with that IP, else the cluster DNS
 * name TiDB Operator gives it (`<tc>-pd.<ns>.svc`, `<pod>.<tc>-tikv-peer.<ns>.svc`); undefined when
 * neither names a component.
 */
export function componentOfTarget(store: ObjectStore, target: DialTarget): ComponentTarget | undefined {
  const pod = store.list('Pod', undefined, (p) => p.status?.podIP === target.ip)[0];
  const byPod = componentOfLabels(pod?.metadata.labels);
  if (byPod !== undefined) return byPod;
  const [first = '', second = ''] = target.serverName.split('.');
  return COMPONENT_TARGETS.find((c) => first.endsWith(`-${c}`) || second.endsWith(`-${c}-peer`) || second.endsWith(`-${c}`));
}

/** A `SimComponentNetwork` observer counting each exchange under its component (`apiServer` never: these bypass it). */
export function countExchanges(store: ObjectStore, counter: RequestCounter): (target: DialTarget) => void {
  return (target) => {
    const component = componentOfTarget(store, target);
    if (component !== undefined) counter.count(component);
  };
}
