/**
 * The node lifecycle controller's view of a lost node, after
 * `pkg/controller/nodelifecycle/node_lifecycle_controller.go`: a host that dies stops posting
 * status, but the Node stays Ready until `nodeMonitorGracePeriod` (50 s by default since Kubernetes
 * 1.32 — kubernetes/kubernetes#126287 raised it from 40 s in
 * `pkg/controller/nodelifecycle/config/v1alpha1/defaults.go`; the world's nodes run 1.34) has passed
 * without a heartbeat.
 * Then `monitorNodeHealth` sets Ready=Unknown, the unreachable NoSchedule/NoExecute taints go on
 * (`doNoExecuteTaintingPass`) and `MarkPodsNotReady` (`pkg/controller/util/node/controller_utils.go`)
 * flips only each pod's Ready condition to False — phase and container statuses stay as the
 * kubelet last wrote them. A pod is evicted (deleted) once its toleration of the NoExecute taint
 * runs out (`pkg/controller/tainteviction/taint_eviction.go`): the DefaultTolerationSeconds
 * admission gives every pod 300 s; a toleration without tolerationSeconds keeps it for ever.
 * Events as theirs: on the Node `NodeNotReady` / `NodeReady` "Node node-1 status is now: …"
 * (`RecordNodeStatusChange`), on each pod marked Warning `NodeNotReady` "Node is not ready"
 * (`MarkPodsNotReady`), source `node-controller`; on an evicted pod `TaintManagerEviction` "Marking
 * for deletion Pod ns/name" (`emitPodDeletionEvent`), source `taint-eviction-controller`.
 */
import type { TimerHandle } from '../platform/clock.js';
import type { KubeObject } from './object.js';
import { rfc3339 } from './object.js';
import { UNREACHABLE_TAINT, setNodeReady } from './nodes.js';
import type { ObjectStore } from './store.js';
import { eventRecorder } from './event-recorder.js';

const NODE_CONTROLLER = { component: 'node-controller' };

/** kube-controller-manager's --node-monitor-grace-period default (1.32 and later). */
export const NODE_MONITOR_GRACE_PERIOD_MS = 50_000;

type Toleration = { key?: string; operator?: string; effect?: string; tolerationSeconds?: number };
type Condition = { type: string; status: string; lastTransitionTime?: string };

/**
 * Which hosts are down and what the control plane has noticed. Guarantees: a host taken down is
 * `isHostDown` at once (its kubelet stops), its Node turns NotReady and its pods unready only
 * `graceMs` later; a host that comes back before then leaves no trace on the Node.
 */
export class NodeLifecycle {
  private readonly down = new Map<string, TimerHandle | undefined>();

  constructor(
    private readonly store: ObjectStore,
    private readonly onChange: (node: string) => void,
    private readonly graceMs = NODE_MONITOR_GRACE_PERIOD_MS,
  ) {}

  /** Whether the host's kubelet is dead (since `setHostDown`). */
  isHostDown(node: string): boolean {
    return this.down.has(node);
  }

  /** The host dies (true) or comes back (false). */
  setHostDown(node: string, down: boolean): void {
    const timer = this.down.get(node);
    if (down && !this.down.has(node)) {
      this.down.set(node, this.store.clock.setTimer(() => this.gracePassed(node), this.graceMs));
    } else if (!down && this.down.has(node)) {
      if (timer) this.store.clock.clearTimer(timer);
      this.down.delete(node);
      // The kubelet posts Ready again; the controller lifts the taints.
      const stored = this.store.get('Node', undefined, node);
      if (stored) setNodeReady(this.store, node, true);
      // Marked NotReady (the grace had passed): the controller sees the status change back.
      if (stored && !timer) this.recordNodeStatus(stored, 'NodeReady');
    }
    this.onChange(node);
  }

  /** Stops every grace timer. */
  stop(): void {
    for (const timer of this.down.values()) if (timer) this.store.clock.clearTimer(timer);
    this.down.clear();
  }

  private gracePassed(node: string): void {
    if (!this.down.has(node)) return;
    this.down.set(node, undefined);
    const stored = this.store.get('Node', undefined, node);
    if (!stored) return;
    setNodeReady(this.store, node, false);
    this.recordNodeStatus(stored, 'NodeNotReady');
    for (const pod of this.store.list('Pod', undefined, (p) => p.spec?.nodeName === node)) this.markNotReady(pod);
    this.onChange(node);
  }

  // MarkPodsNotReady: the Ready condition only, with a new transition time.
  private markNotReady(pod: KubeObject): void {
    const conditions = (pod.status?.conditions ?? []) as Condition[];
    const ready = conditions.find((c) => c.type === 'Ready');
    if (!ready || ready.status === 'False') return;
    const next = conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: rfc3339(this.store.clock.nowMs()) } : c));
    const updated = this.store.update('Pod', { ...pod, status: { ...pod.status, conditions: next } }, { subresource: 'status' });
    eventRecorder(this.store).record(updated, { type: 'Warning', reason: 'NodeNotReady', message: 'Node is not ready', source: NODE_CONTROLLER });
  }

  private recordNodeStatus(node: KubeObject, status: 'NodeReady' | 'NodeNotReady'): void {
    eventRecorder(this.store).record(node, { type: 'Normal', reason: status, message: `Node ${node.metadata.name ?? ''} status is now: ${status}`, source: NODE_CONTROLLER });
  }

  /**
   * Taint-based eviction of a pod on `node`: deletes it once its toleration of the unreachable
   * NoExecute taint has run out; otherwise answers how long until it does (undefined: never, or
   * no taint).
   */
  evictIfDue(pod: KubeObject, node: KubeObject): number | undefined {
    const taint = ((node.spec?.taints ?? []) as { key: string; effect: string; timeAdded?: string }[]).find((t) => t.key === UNREACHABLE_TAINT && t.effect === 'NoExecute');
    if (!taint || pod.metadata.deletionTimestamp) return undefined;
    const tolerations = (pod.spec?.tolerations ?? []) as Toleration[];
    const own = tolerations.filter((t) => (t.key === UNREACHABLE_TAINT || (!t.key && t.operator === 'Exists')) && (!t.effect || t.effect === 'NoExecute'));
    // Not tolerated: evicted at once. Tolerated for ever by any toleration: never. Else the shortest.
    if (own.some((t) => t.tolerationSeconds === undefined)) return undefined;
    const seconds = own.length === 0 ? 0 : Math.min(...own.map((t) => Math.max(0, t.tolerationSeconds ?? 0)));
    const evictAtMs = Date.parse(taint.timeAdded ?? '') + seconds * 1000;
    if (Number.isNaN(evictAtMs)) return undefined;
    const now = this.store.clock.nowMs();
    if (now < evictAtMs) return evictAtMs - now;
    this.store.delete('Pod', pod.metadata.namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } });
    const message = `Marking for deletion Pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
    eventRecorder(this.store).record(pod, { type: 'Normal', reason: 'TaintManagerEviction', message, source: { component: 'taint-eviction-controller' } });
    return undefined;
  }
}
