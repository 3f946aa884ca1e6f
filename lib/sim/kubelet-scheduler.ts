/**
 * The scheduler of the simulated cluster: binds each unscheduled pod to a Ready node that passes
 * the filters the reconciler's pods meet in practice (untolerated taints, nodeSelector, required
 * node affinity, required pod anti-affinity, the zone of an already provisioned volume, the node's
 * pod capacity, the pod's claims existing), preferring the node with the fewest pods (ties: lowest node number). A pod no
 * node fits stays Pending with PodScheduled=False, reason Unschedulable, and the "0/N nodes are
 * available: …" message; it is retried whenever nodes, pods or volumes change. Before binding, the
 * pod's unbound claims get `volume.kubernetes.io/selected-node` (WaitForFirstConsumer provisioning).
 */
import { type KubeObject, rfc3339 } from './object.js';
import { isNodeReady } from './nodes.js';
import { type PlacedPod, antiAffinityRejection } from './pod-affinity.js';
import { podCondition } from './pod-status.js';
import type { ObjectStore } from './store.js';
import { compareKeys, keyOf } from './store-bucket.js';
import { SchedulerPodIndex } from './scheduler-index.js';
import { type ErrorSink, LevelController, createdAtMs } from './controllers/base.js';

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

/** Looks objects up by name. */
type ByName = { get(name: string): KubeObject | undefined };

/**
 * What the scheduler knows besides the pod: nodes (in order), pods per node, the claims of the pod's
 * namespace and the volumes by name, and the scheduled pods with their nodes that can matter to the
 * pod's anti-affinity (none when left out).
 */
export type ClusterView = { nodes: readonly KubeObject[]; podCount: ReadonlyMap<string, number>; claims: ByName; volumes: ByName; placed?: readonly PlacedPod[] };

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
  for (const claimName of podClaimNames(pod)) {
    const pv = view.volumes.get(view.claims.get(claimName)?.spec?.volumeName ?? '');
    const pvTerms = pv?.spec?.nodeAffinity?.required?.nodeSelectorTerms as Term[] | undefined;
    if (pvTerms && !nodeMatchesTerms(node, pvTerms)) return "node(s) had volume node affinity conflict";
  }
  return undefined;
}

/** A claim problem that makes the pod unschedulable on every node, or undefined. */
function claimProblem(pod: KubeObject, view: ClusterView): string | undefined {
  for (const claimName of podClaimNames(pod)) {
    const claim = view.claims.get(claimName);
    if (!claim) return `persistentvolumeclaim "${claimName}" not found`;
    if (claim.metadata.deletionTimestamp) return `persistentvolumeclaim "${claimName}" is being deleted`;
  }
  return undefined;
}

/** The node for `pod` (fewest pods first, then node order), or the Unschedulable message. */
export function pickNode(pod: KubeObject, view: ClusterView): { node: string } | { message: string } {
  const total = view.nodes.length;
  const problem = claimProblem(pod, view);
  if (problem) return { message: `0/${total} nodes are available: ${problem}.` };
  const reasons = new Map<string, number>();
  let best: KubeObject | undefined;
  for (const node of view.nodes) {
    const why = rejection(pod, node, view);
    if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
    else if (!best || (view.podCount.get(node.metadata.name ?? '') ?? 0) < (view.podCount.get(best.metadata.name ?? '') ?? 0)) best = node;
  }
  if (best) return { node: best.metadata.name ?? '' };
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

  constructor(
    private readonly store: ObjectStore,
    onError?: ErrorSink,
  ) {
    this.loop = new LevelController(
      store,
      {
        name: 'scheduler',
        keysFor: (ev) => (ev.kind === 'Node' || ev.kind === 'PersistentVolumeClaim' || ev.kind === 'PersistentVolume' || (ev.kind === 'Pod' && (ev.type === 'DELETED' || !ev.object.spec?.nodeName)) ? ['all'] : []),
        sync: () => this.schedulePending(),
        initialKeys: () => ['all'],
      },
      onError,
    );
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
    return { nodes, podCount: index.podCount(), claims, volumes, placed };
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
      if ('node' in choice) this.bind(pod, choice.node);
      else this.markUnschedulable(pod, choice.message);
    }
  }

  private bind(pod: KubeObject, node: string): void {
    for (const claimName of podClaimNames(pod)) {
      const claim = this.store.get('PersistentVolumeClaim', pod.metadata.namespace, claimName);
      if (!claim || claim.spec?.volumeName || claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION] === node) continue;
      this.store.update('PersistentVolumeClaim', { ...claim, metadata: { ...claim.metadata, annotations: { ...(claim.metadata.annotations ?? {}), [SELECTED_NODE_ANNOTATION]: node } } });
    }
    const bound = this.store.update('Pod', { ...pod, spec: { ...pod.spec, nodeName: node } });
    this.setScheduled(bound, { type: 'PodScheduled', status: 'True' });
  }

  private markUnschedulable(pod: KubeObject, message: string): void {
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
