/**
 * What the scheduler reads about pods, kept up to date from the store's events instead of listing
 * every pod of every namespace on each pass: the pending pods, and the scheduled, unfinished pods by
 * namespace and node count. A pass then costs what it schedules, not the size of the cluster.
 */
import type { KubeObject } from './object.js';
import type { ObjectStore, StoreEvent } from './store.js';
import { keyOf } from './store-bucket.js';

type AffinityTerm = { namespaces?: string[] };

/** Whether the scheduler must place `pod`: unbound, not being deleted, still Pending. */
export function isPendingPod(pod: KubeObject): boolean {
  return !pod.spec?.nodeName && !pod.metadata.deletionTimestamp && (pod.status?.phase ?? 'Pending') === 'Pending';
}

/** Whether `pod` occupies its node: bound and not finished. */
function isPlacedPod(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return Boolean(pod.spec?.nodeName) && phase !== 'Succeeded' && phase !== 'Failed';
}

/** The namespaces a pod's required anti-affinity terms name explicitly (beyond its own). */
export function termNamespaces(pod: KubeObject): string[] {
  const terms = (pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as AffinityTerm[];
  return terms.flatMap((t) => t.namespaces ?? []);
}

/** The scheduler's pod index over one store; `stop` unsubscribes. */
export class SchedulerPodIndex {
  private readonly pending = new Map<string, KubeObject>();
  private readonly placedByNamespace = new Map<string, Map<string, KubeObject>>();
  /** Placed pods whose terms name other namespaces: they may repel a pod of any namespace. */
  private readonly crossNamespace = new Map<string, KubeObject>();
  private readonly perNode = new Map<string, number>();
  private readonly placed = new Map<string, { namespace: string; node: string }>();
  private readonly unsubscribe: () => void;

  constructor(store: ObjectStore) {
    for (const pod of store.list('Pod')) this.add(pod);
    this.unsubscribe = store.subscribe((ev) => this.apply(ev));
  }

  /** Stops following the store. */
  stop(): void {
    this.unsubscribe();
  }

  /** The pending pods (in no particular order). */
  pendingPods(): KubeObject[] {
    return [...this.pending.values()];
  }

  /** How many placed pods each node runs. */
  podCount(): ReadonlyMap<string, number> {
    return this.perNode;
  }

  /**
   * The placed pods that can matter to `pod`'s anti-affinity: those of its namespace and of the
   * namespaces its terms name, and those whose own terms reach across namespaces.
   */
  placedNear(pod: KubeObject): KubeObject[] {
    const namespaces = new Set([pod.metadata.namespace ?? '', ...termNamespaces(pod)]);
    const out = new Map<string, KubeObject>();
    for (const ns of namespaces) for (const [k, p] of this.placedByNamespace.get(ns) ?? []) out.set(k, p);
    for (const [k, p] of this.crossNamespace) out.set(k, p);
    return [...out.values()];
  }

  private apply(ev: StoreEvent): void {
    if (ev.kind !== 'Pod') return;
    // Keyed by name: whatever the index recorded for this pod is replaced by what the event says.
    this.drop(keyOf(ev.object));
    if (ev.type !== 'DELETED') this.add(ev.object);
  }

  private add(pod: KubeObject): void {
    const key = keyOf(pod);
    if (isPendingPod(pod)) this.pending.set(key, pod);
    if (!isPlacedPod(pod)) return;
    const namespace = pod.metadata.namespace ?? '';
    const node = String(pod.spec.nodeName);
    let inNs = this.placedByNamespace.get(namespace);
    if (!inNs) this.placedByNamespace.set(namespace, (inNs = new Map()));
    inNs.set(key, pod);
    this.placed.set(key, { namespace, node });
    if (termNamespaces(pod).length > 0) this.crossNamespace.set(key, pod);
    this.perNode.set(node, (this.perNode.get(node) ?? 0) + 1);
  }

  private drop(key: string): void {
    this.pending.delete(key);
    const at = this.placed.get(key);
    if (!at) return;
    this.placed.delete(key);
    const inNs = this.placedByNamespace.get(at.namespace);
    inNs?.delete(key);
    if (inNs?.size === 0) this.placedByNamespace.delete(at.namespace);
    this.crossNamespace.delete(key);
    const left = (this.perNode.get(at.node) ?? 0) - 1;
    if (left > 0) this.perNode.set(at.node, left);
    else this.perNode.delete(at.node);
  }
}
