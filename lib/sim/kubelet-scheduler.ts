/**
 * The scheduler of the simulated cluster: binds each unscheduled pod to a Ready node that passes
 * the filters the reconciler's pods meet in practice (untolerated taints, nodeSelector, required
 * node affinity, required pod anti-affinity, the node's pod capacity, the pod's claims existing, and
 * the VolumeBinding plugin's volume checks of volume-binding-filter.ts), preferring the node with the fewest pods (ties: lowest node number). A pod no
 * node fits stays Pending with PodScheduled=False, reason Unschedulable, and the "0/N nodes are
 * available: …" message; it is retried whenever nodes, pods or volumes change. Before binding, the
 * pod's unbound WaitForFirstConsumer claims get their matched volume reserved, or
 * `volume.kubernetes.io/selected-node` when their class provisions.
 */
import { type KubeObject, rfc3339 } from './object.js';
import { isNodeReady } from './nodes.js';
import { type PlacedPod, antiAffinityRejection } from './pod-affinity.js';
import { podCondition } from './pod-status.js';
import type { ObjectStore, StoreEvent } from './store.js';
import { compareKeys, keyOf } from './store-bucket.js';
import { SchedulerPodIndex } from './scheduler-index.js';
import { SchedulerEvents } from './scheduler-events.js';
import { type ErrorSink, LevelController, createdAtMs } from './controllers/base.js';
import { type ByName, type VolumePlan, type VolumeView, hasUnboundImmediateClaims, planVolumes } from './volume-binding-filter.js';

/** The annotation the scheduler puts on a WaitForFirstConsumer claim to say where to provision. */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';

type Requirement = { key: string; operator: string; values?: string[] };
type Term = { matchExpressions?: Requirement[]; matchFields?: Requirement[] };
type Taint = { key: string; value?: string; effect: string };
type Toleration = { key?: string; operator?: string; value?: string; effect?: string };

/** The claim names a pod mounts. */
export function podClaimNames(pod: KubeObject): string[] {
  return ((pod.spec?.volumes ?? []) as { persistentVolumeClaim?: { claimName?: string } }[]).flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));
}

function requirementMatches(r: Requirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'Gt': return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt': return value !== undefined && Number(value) < Number(values[0]);
    default: return false;
  }
}

/** A NodeSelectorTerms list (ORed terms of ANDed requirements), as required node affinity and PV node affinity use. */
export function nodeMatchesTerms(node: KubeObject, terms: readonly Term[]): boolean {
  const labels = node.metadata.labels ?? {};
  return terms.some((t) => {
    const exprs = t.matchExpressions ?? [];
    const fields = t.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return exprs.every((r) => requirementMatches(r, labels[r.key])) && fields.every((r) => requirementMatches(r, r.key === 'metadata.name' ? node.metadata.name : undefined));
  });
}

function tolerates(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/**
 * What the scheduler knows besides the pod: nodes (in order), pods per node, the claims of the pod's
 * namespace, the volumes and classes by name and the free volumes (`VolumeView`), and the scheduled
 * pods with their nodes that can matter to the pod's anti-affinity (none when left out).
 */
export type ClusterView = VolumeView & { nodes: readonly KubeObject[]; podCount: ReadonlyMap<string, number>; placed?: readonly PlacedPod[] };

/** Why `node` cannot run `pod`, or undefined when it can. */
function rejection(pod: KubeObject, node: KubeObject, view: ClusterView): string | undefined {
  const name = node.metadata.name ?? '';
  const taints = ((node.spec?.taints ?? []) as Taint[]).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  const untolerated = taints.find((t) => !tolerates(pod.spec?.tolerations ?? [], t));
  if (untolerated) return `node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`;
  if (!isNodeReady(node) || node.spec?.unschedulable) return 'node(s) were unschedulable';
  const selector = (pod.spec?.nodeSelector ?? {}) as Record<string, string>;
  const labels = node.metadata.labels ?? {};
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms as Term[] | undefined;
  if (Object.entries(selector).some(([k, v]) => labels[k] !== v) || (terms && !nodeMatchesTerms(node, terms))) return "node(s) didn't match Pod's node affinity/selector";
  if ((view.podCount.get(name) ?? 0) >= Number(node.status?.allocatable?.pods ?? 110)) return 'Too many pods';
  const antiAffinity = antiAffinityRejection(pod, node, view.placed ?? []);
  if (antiAffinity) return antiAffinity;
  return undefined;
}

/** A claim problem that makes the pod unschedulable on every node, or undefined. */
function claimProblem(pod: KubeObject, view: ClusterView): string | undefined {
  for (const claimName of podClaimNames(pod)) {
    const claim = view.claims.get(claimName);
    if (!claim) return `persistentvolumeclaim "${claimName}" not found`;
    if (claim.metadata.deletionTimestamp) return `persistentvolumeclaim "${claimName}" is being deleted`;
  }
  if (hasUnboundImmediateClaims(podClaimNames(pod), view)) return 'pod has unbound immediate PersistentVolumeClaims';
  return undefined;
}

/**
 * The node for `pod` (fewest pods first, then node order) with what its volumes need there
 * (volume-binding-filter.ts), or the Unschedulable message.
 */
export function pickNode(pod: KubeObject, view: ClusterView): { node: string; volumes: VolumePlan } | { message: string } {
  const total = view.nodes.length;
  const problem = claimProblem(pod, view);
  if (problem) return { message: `0/${total} nodes are available: ${problem}.` };
  const reasons = new Map<string, number>();
  const claimNames = podClaimNames(pod);
  let best: { node: KubeObject; volumes: VolumePlan } | undefined;
  for (const node of view.nodes) {
    const plan = rejection(pod, node, view) ?? planVolumes(claimNames, node, view);
    if (typeof plan === 'string' || 'reason' in plan) {
      const why = typeof plan === 'string' ? plan : plan.reason;
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    } else if (!best || (view.podCount.get(node.metadata.name ?? '') ?? 0) < (view.podCount.get(best.node.metadata.name ?? '') ?? 0)) best = { node, volumes: plan };
  }
  if (best) return { node: best.node.metadata.name ?? '', volumes: best.volumes };
  // As the scheduler's FitError: "<count> <reason>" strings in byte order.
  const parts = [...reasons.entries()].map(([why, n]) => `${n} ${why}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { message: `0/${total} nodes are available: ${parts.join(', ')}.` };
}

function nodeIndex(node: KubeObject): number {
  const match = /(\d+)$/.exec(node.metadata.name ?? '');
  return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}

/** Binds pending pods to nodes on the store's clock, one pass over all of them per batch of changes. */
export class Scheduler {
  private readonly loop: LevelController;
  private index: SchedulerPodIndex | undefined;
  private readonly events: SchedulerEvents;

  constructor(
    private readonly store: ObjectStore,
    onError?: ErrorSink,
  ) {
    this.events = new SchedulerEvents(store);
    this.loop = new LevelController(
      store,
      {
        name: 'scheduler',
        keysFor: (ev) => this.keysFor(ev),
        sync: () => this.schedulePending(),
        initialKeys: () => ['all'],
      },
      onError,
    );
  }

  private keysFor(ev: StoreEvent): string[] {
    if (ev.kind === 'Pod' && ev.type === 'DELETED') this.events.forget(ev.object.metadata.uid ?? '');
    const relevant = ev.kind === 'Node' || ev.kind === 'StorageClass' || ev.kind === 'PersistentVolumeClaim' || ev.kind === 'PersistentVolume' || (ev.kind === 'Pod' && (ev.type === 'DELETED' || !ev.object.spec?.nodeName));
    return relevant ? ['all'] : [];
  }

  /** Starts scheduling. */
  start(): void {
    this.index ??= new SchedulerPodIndex(this.store);
    this.loop.start();
  }

  /** Stops scheduling. */
  stop(): void {
    this.loop.stop();
    this.index?.stop();
    this.index = undefined;
  }

  /** The nodes in scheduling order, once per pass (the scheduler never changes nodes). */
  private sortedNodes(): KubeObject[] {
    return this.store.list('Node').sort((a, b) => nodeIndex(a) - nodeIndex(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  }

  private view(pod: KubeObject, index: SchedulerPodIndex, nodes: readonly KubeObject[], byName: ReadonlyMap<string, KubeObject>): ClusterView {
    const namespace = pod.metadata.namespace;
    const placed: PlacedPod[] = [];
    for (const p of index.placedNear(pod)) {
      const node = byName.get(String(p.spec.nodeName));
      if (node) placed.push({ pod: p, node });
    }
    const claims: ByName = { get: (name) => this.store.get('PersistentVolumeClaim', namespace, name) };
    const volumes: ByName = { get: (name) => (name ? this.store.get('PersistentVolume', undefined, name) : undefined) };
    const classes: ByName = { get: (name) => this.store.get('StorageClass', undefined, name) };
    // Read once per pod, when one of its claims is unbound (the binds of earlier pods in the pass are in it).
    let free: KubeObject[] | undefined;
    const freeVolumes = (): KubeObject[] => (free ??= this.store.list('PersistentVolume', undefined, (pv) => pv.status?.phase === 'Available' && !pv.metadata.deletionTimestamp));
    return { nodes, podCount: index.podCount(), claims, volumes, classes, freeVolumes, placed };
  }

  private schedulePending(): void {
    const index = this.index;
    if (!index) return;
    // Oldest first; among pods created in the same second, in namespace/name order.
    const pending = index.pendingPods().sort((a, b) => createdAtMs(a) - createdAtMs(b) || compareKeys(keyOf(a), keyOf(b)));
    if (pending.length === 0) return;
    const nodes = this.sortedNodes();
    const byName = new Map(nodes.map((n) => [n.metadata.name ?? '', n]));
    for (const pod of pending) {
      // The index follows every bind as it is written, so the next pod sees the spread so far.
      const choice = pickNode(pod, this.view(pod, index, nodes, byName));
      if ('node' in choice) this.bind(pod, choice.node, choice.volumes);
      else this.markUnschedulable(pod, choice.message);
    }
  }

  private bind(pod: KubeObject, node: string, volumes: VolumePlan): void {
    for (const [claimName, pvName] of volumes.reserve) this.reserve(pod.metadata.namespace, claimName, pvName);
    for (const claimName of volumes.provision) {
      const claim = this.store.get('PersistentVolumeClaim', pod.metadata.namespace, claimName);
      if (!claim || claim.spec?.volumeName || claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION] === node) continue;
      this.store.update('PersistentVolumeClaim', { ...claim, metadata: { ...claim.metadata, annotations: { ...(claim.metadata.annotations ?? {}), [SELECTED_NODE_ANNOTATION]: node } } });
    }
    const bound = this.store.update('Pod', { ...pod, spec: { ...pod.spec, nodeName: node } });
    this.setScheduled(bound, { type: 'PodScheduled', status: 'True' });
    this.events.scheduled(bound, node);
  }

  /**
   * As the binder's `BindPodVolumes` for a static match: the volume's claimRef names the claim (and
   * `pv.kubernetes.io/bound-by-controller`); the PV controller then binds the claim to it.
   */
  private reserve(namespace: string | undefined, claimName: string, pvName: string): void {
    const claim = this.store.get('PersistentVolumeClaim', namespace, claimName);
    const pv = this.store.get('PersistentVolume', undefined, pvName);
    if (!claim || !pv || pv.spec?.claimRef) return;
    const claimRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name: claimName, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion };
    const annotations = { ...(pv.metadata.annotations ?? {}), 'pv.kubernetes.io/bound-by-controller': 'yes' };
    this.store.update('PersistentVolume', { ...pv, metadata: { ...pv.metadata, annotations }, spec: { ...pv.spec, claimRef } });
  }

  private markUnschedulable(pod: KubeObject, message: string): void {
    this.events.failed(pod, message);
    this.setScheduled(pod, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message });
  }

  private setScheduled(pod: KubeObject, condition: { type: string; status: string; reason?: string; message?: string }): void {
    const previous = podCondition(pod, 'PodScheduled') as (typeof condition & { lastTransitionTime?: string }) | undefined;
    if (previous && previous.status === condition.status && previous.reason === condition.reason && previous.message === condition.message) return;
    const since = previous?.status === condition.status && previous.lastTransitionTime ? previous.lastTransitionTime : rfc3339(this.store.clock.nowMs());
    const others = ((pod.status?.conditions ?? []) as { type: string }[]).filter((c) => c.type !== 'PodScheduled');
    const status = { phase: 'Pending', ...(pod.status ?? {}), conditions: [...others, { ...condition, lastProbeTime: null, lastTransitionTime: since }] };
    this.store.update('Pod', { ...pod, status }, { subresource: 'status' });
  }
}
