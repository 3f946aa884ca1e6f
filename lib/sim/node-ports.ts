/**
 * NodePort allocation for Services, as kube-apiserver does it
 * (pkg/registry/core/service/storage/alloc.go, pkg/registry/core/service/portallocator): a
 * NodePort or LoadBalancer Service gets a node port in 30000–32767 (the default
 * --service-node-port-range) for every port that names none; a requested port outside the range,
 * or already held by another Service, is refused with 422. An update keeps the ports the Service
 * already holds for ports that leave nodePort empty (patchAllocatedValues, matching by port name);
 * turning the Service into a ClusterIP one drops the node ports it held (dropTypeDependentFields).
 * Dynamic picks prefer the upper band above the static subrange (KEP-3668, offset
 * min(max(16, size/32), 128) = 86 here), lowest free port first so runs are reproducible — the
 * real allocator picks at random within that band.
 */
import type { KubeObject } from './object.js';
import { keyOf } from './store-bucket.js';

/** The default --service-node-port-range. */
export const NODE_PORT_MIN = 30_000;
export const NODE_PORT_MAX = 32_767;
const STATIC_BAND_END = NODE_PORT_MIN + 86;

/** A field error in the API server's words. */
export type NodePortCause = { field: string; message: string; reason: string };

type Port = { name?: string; port?: number; nodePort?: number };

/** Whether the Service type needs node ports (NodePort, and LoadBalancer unless allocateLoadBalancerNodePorts is false). */
export function needsNodePorts(svc: KubeObject | undefined): boolean {
  const type = svc?.spec?.type;
  return type === 'NodePort' || (type === 'LoadBalancer' && svc?.spec?.allocateLoadBalancerNodePorts !== false);
}

function portsOf(svc: KubeObject | undefined): Port[] {
  return Array.isArray(svc?.spec?.ports) ? (svc.spec.ports as Port[]) : [];
}

/**
 * The node ports the stored Services hold. Guarantees: `assign` never hands out a port another
 * stored Service holds, and `follow` keeps the book in step with every stored write.
 */
export class NodePorts {
  private readonly byService = new Map<string, number[]>();
  private readonly holder = new Map<number, string>();

  /** Follows one stored write of a Service: as stored now, or as it was when `deleted`. */
  follow(deleted: boolean, service: KubeObject): void {
    const key = keyOf(service);
    for (const port of this.byService.get(key) ?? []) if (this.holder.get(port) === key) this.holder.delete(port);
    this.byService.delete(key);
    if (deleted) return;
    const held = portsOf(service).flatMap((p) => (typeof p.nodePort === 'number' && p.nodePort > 0 ? [p.nodePort] : []));
    this.byService.set(key, held);
    for (const port of held) this.holder.set(port, key);
  }

  /**
   * Fills in `service`'s node ports in place (`old`: the stored Service an update replaces) and
   * returns the causes to refuse it with (empty: accepted).
   */
  assign(service: KubeObject, old?: KubeObject): NodePortCause[] {
    const ports = portsOf(service);
    const key = keyOf(service);
    if (!needsNodePorts(service)) {
      // dropTypeDependentFields: leaving NodePort with the same node ports clears them.
      if (needsNodePorts(old)) for (const p of ports) if (portsOf(old).some((o) => o.nodePort === p.nodePort)) delete p.nodePort;
      return ports.flatMap((p, i) => (p.nodePort ? [{ field: `spec.ports[${i}].nodePort`, reason: 'FieldValueForbidden', message: `Forbidden: may not be used when \`type\` is '${String(service.spec?.type ?? 'ClusterIP')}'` }] : []));
    }
    if (needsNodePorts(old)) keepHeld(ports, portsOf(old));
    const causes: NodePortCause[] = [];
    const taken = new Set<number>();
    ports.forEach((p, i) => {
      if (!p.nodePort) return;
      const field = `spec.ports[${i}].nodePort`;
      if (p.nodePort < NODE_PORT_MIN || p.nodePort > NODE_PORT_MAX) {
        causes.push({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${p.nodePort}: provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}` });
      } else if ((this.holder.has(p.nodePort) && this.holder.get(p.nodePort) !== key) || taken.has(p.nodePort)) {
        causes.push({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${p.nodePort}: provided port is already allocated` });
      }
      taken.add(p.nodePort);
    });
    if (causes.length > 0) return causes;
    for (const p of ports) if (!p.nodePort) taken.add((p.nodePort = this.free(taken)));
    return [];
  }

  private free(taken: ReadonlySet<number>): number {
    const isFree = (port: number): boolean => !this.holder.has(port) && !taken.has(port);
    for (let port = STATIC_BAND_END; port <= NODE_PORT_MAX; port++) if (isFree(port)) return port;
    for (let port = NODE_PORT_MIN; port < STATIC_BAND_END; port++) if (isFree(port)) return port;
    throw new Error('range for node ports is full');
  }
}

// patchAllocatedValues: a port left without nodePort keeps the one its namesake held, unless another port now uses it.
function keepHeld(ports: Port[], oldPorts: readonly Port[]): void {
  const used = new Set(ports.flatMap((p) => (p.nodePort ? [p.nodePort] : [])));
  for (const p of ports) {
    if (p.nodePort) continue;
    const held = oldPorts.find((o) => (o.name ?? '') === (p.name ?? ''))?.nodePort;
    if (held && !used.has(held)) p.nodePort = held;
  }
}
