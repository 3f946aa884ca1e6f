/**
 * The Endpoints controller: for every Service with a selector, an Endpoints object of the same name
 * lists the selected pods that have an IP — ready ones under `addresses`, the others under
 * `notReadyAddresses` (all under `addresses` with publishNotReadyAddresses) — with the service's
 * ports, a named targetPort resolved against each pod's container ports. Terminating pods are left
 * out unless publishNotReadyAddresses. A pod's hostname is published when its subdomain is the
 * service (StatefulSet DNS). Headless services get the `service.kubernetes.io/headless` label.
 */
import { type KubeObject, jsonEqual } from '../object.js';
import { isTerminating, podCondition } from '../pod-status.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type ErrorSink, LevelController, type SyncResult, keyOf, splitKey } from './base.js';

type ServicePort = { name?: string; port: number; targetPort?: number | string; protocol?: string; appProtocol?: string };
type Address = { ip: string; hostname?: string; nodeName?: string; targetRef: { kind: string; namespace: string; name: string; uid: string } };
type EndpointPort = { name?: string; port: number; protocol: string; appProtocol?: string };
type Subset = { addresses?: Address[]; notReadyAddresses?: Address[]; ports: EndpointPort[] };

const HEADLESS_LABEL = 'service.kubernetes.io/headless';

/** Keeps Endpoints in step with Services and pods; allocates cluster IPs. */
export class EndpointsController {
  private readonly loop: LevelController;

  constructor(
    private readonly store: ObjectStore,
    onError?: ErrorSink,
  ) {
    const spec = { name: 'endpoints', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (key: string) => this.sync(key), initialKeys: () => store.list('Service').map(keyOf) };
    this.loop = new LevelController(store, spec, onError);
  }

  /** Starts watching services, pods and endpoints. */
  start(): void {
    this.loop.start();
  }

  /** Stops watching. */
  stop(): void {
    this.loop.stop();
  }

  private keysFor(ev: StoreEvent): string[] {
    if (ev.kind === 'Service' || ev.kind === 'Endpoints') return [keyOf(ev.object)];
    if (ev.kind !== 'Pod') return [];
    // Any service of the namespace may select the pod (before or after the change).
    return this.store.list('Service', ev.object.metadata.namespace).map(keyOf);
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const svc = this.store.get('Service', namespace, name);
    const current = this.store.get('Endpoints', namespace, name);
    if (!svc) {
      if (current) this.store.delete('Endpoints', namespace, name);
      return;
    }
    const selector = svc.spec?.selector as Record<string, string> | undefined;
    // Without a selector the Endpoints are the user's to manage.
    if (!selector || Object.keys(selector).length === 0) return;
    const pods = this.store.list('Pod', namespace, (p) => Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v));
    const desired = desiredEndpoints(svc, pods);
    if (!current) {
      this.store.create('Endpoints', desired);
      return;
    }
    if (jsonEqual(current.subsets ?? [], desired.subsets ?? []) && jsonEqual(current.metadata.labels ?? {}, desired.metadata.labels ?? {})) return;
    this.store.update('Endpoints', { ...current, metadata: { ...current.metadata, labels: desired.metadata.labels }, subsets: desired.subsets });
  }
}

/** The port a service port reaches on `pod` (FindPort), or undefined when a named port is missing. */
function podPort(pod: KubeObject, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of (pod.spec?.containers ?? []) as { ports?: { name?: string; containerPort: number; protocol?: string }[] }[]) {
    const found = (c.ports ?? []).find((p) => p.name === target && (p.protocol ?? 'TCP') === (sp.protocol ?? 'TCP'));
    if (found) return found.containerPort;
  }
  return undefined;
}

function addressOf(pod: KubeObject, svc: KubeObject): Address {
  const hostname = pod.spec?.hostname && pod.spec?.subdomain === svc.metadata.name ? { hostname: pod.spec.hostname as string } : {};
  return {
    ip: pod.status?.podIP as string,
    ...hostname,
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName as string } : {}),
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
  };
}

/** The Endpoints object `svc` should have for `pods` (the pods its selector matches). */
export function desiredEndpoints(svc: KubeObject, pods: readonly KubeObject[]): KubeObject {
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  const ports = (svc.spec?.ports ?? []) as ServicePort[];
  const groups = new Map<string, Subset>();
  for (const pod of pods) {
    const phase = pod.status?.phase;
    if (!pod.status?.podIP || phase === 'Failed' || phase === 'Succeeded' || (isTerminating(pod) && !publishNotReady)) continue;
    const resolved = ports.map((sp) => ({ sp, port: podPort(pod, sp) })).filter((r): r is { sp: ServicePort; port: number } => r.port !== undefined);
    const epPorts = resolved.map(({ sp, port }) => ({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) }));
    // Pods reaching the same ports share a subset (RepackSubsets).
    const groupKey = JSON.stringify(epPorts);
    const subset = groups.get(groupKey) ?? { ports: epPorts };
    groups.set(groupKey, subset);
    const ready = publishNotReady || podCondition(pod, 'Ready')?.status === 'True';
    const list = ready ? (subset.addresses ??= []) : (subset.notReadyAddresses ??= []);
    list.push(addressOf(pod, svc));
  }
  const byIp = (a: Address, b: Address): number => a.ip.localeCompare(b.ip, undefined, { numeric: true }) || a.targetRef.uid.localeCompare(b.targetRef.uid);
  const subsets = [...groups.values()].map((s) => ({ ...s, addresses: s.addresses?.sort(byIp), notReadyAddresses: s.notReadyAddresses?.sort(byIp) }));
  const headless = svc.spec?.clusterIP === 'None';
  const labels = { ...(svc.metadata.labels ?? {}), ...(headless ? { [HEADLESS_LABEL]: '' } : {}) };
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: svc.metadata.name, namespace: svc.metadata.namespace, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
    // The real object omits an empty subsets list.
    ...(subsets.length > 0 ? { subsets: subsets.map(dropEmpty) } : {}),
  };
}

function dropEmpty(s: Subset): Subset {
  return { ...(s.addresses?.length ? { addresses: s.addresses } : {}), ...(s.notReadyAddresses?.length ? { notReadyAddresses: s.notReadyAddresses } : {}), ports: s.ports };
}
