/**
 * The StatefulSet controller (pkg/controller/statefulset): per set, claim its pods (adopt orphans
 * its selector and name pattern match, release those that no longer match), bring its revision
 * history up to date, run one pass of the control loop (statefulset-update.ts), write the status —
 * currentRevision becomes updateRevision once a RollingUpdate has updated and readied every pod —
 * and prune old revisions. Requeued by every change to the set, its pods and its revisions.
 */
import { type KubeObject, controllerOf, jsonEqual } from '../object.js';
import { msUntilAvailable } from '../pod-status.js';
import { matchLabelSelector } from '../selectors.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type ErrorSink, LevelController, type SyncResult, controllerRef, isControlledBy, keyOf, omitZero, ownerKey, splitKey } from './base.js';
import { type StatefulSetSpec, ordinalOf, statefulSetSpec } from './statefulset-pods.js';
import { type RevisionPair, listRevisions, sortRevisions, syncRevisions, truncateHistory } from './statefulset-revisions.js';
import { type SetStatus, updateStatefulSet } from './statefulset-update.js';

/** Drives every StatefulSet in the store towards its spec, as the kube-controller-manager does. */
export class StatefulSetController {
  private readonly loop: LevelController;

  constructor(
    private readonly store: ObjectStore,
    onError?: ErrorSink,
  ) {
    this.loop = new LevelController(
      store,
      {
        name: 'statefulset',
        keysFor: (ev) => this.keysFor(ev),
        sync: (key) => this.sync(key),
        initialKeys: () => store.list('StatefulSet').map(keyOf),
      },
      onError,
    );
  }

  /** Starts watching and syncs every existing set. */
  start(): void {
    this.loop.start();
  }

  /** Stops watching; queued syncs are dropped. */
  stop(): void {
    this.loop.stop();
  }

  private keysFor(ev: StoreEvent): string[] {
    const obj = ev.object;
    if (ev.kind === 'StatefulSet') return [keyOf(obj)];
    if (ev.kind !== 'Pod' && ev.kind !== 'ControllerRevision') return [];
    const owner = ownerKey(obj, 'StatefulSet');
    if (owner) return [owner];
    // An orphan may be adopted by any set of its namespace whose selector matches it.
    if (controllerOf(obj)) return [];
    return this.store.list('StatefulSet', obj.metadata.namespace).map(keyOf);
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const set = this.store.get('StatefulSet', namespace, name);
    // A set without a selector is invalid (the real API server rejects it): nothing to do.
    if (!set || !set.spec?.selector) return;
    const spec = statefulSetSpec(set);
    const revisions = listRevisions(this.store, set);
    const pods = this.claimPods(set);
    const pair = set.metadata.deletionTimestamp ? existingPair(set, revisions) : syncRevisions(this.store, set, revisions);
    // A set being deleted gets no new revision; with none to report, there is nothing to write.
    if (!pair) return;
    const nowMs = this.store.clock.nowMs();
    const outcome = updateStatefulSet({ store: this.store, set, spec, pods, pair, nowMs });
    this.writeStatus(set, completeRollingUpdate(spec, outcome.status));
    truncateHistory(this.store, set, pods, revisions, pair);
    const waits = [outcome.requeueAfterMs, ...pods.map((p) => msUntilAvailable(p, spec.minReadySeconds, nowMs))].filter((ms): ms is number => ms !== undefined && ms > 0);
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
  }

  /** getPodsForStatefulSet: owned pods that still match, plus adopted orphans; mismatches are released. */
  private claimPods(set: KubeObject): KubeObject[] {
    const claimed: KubeObject[] = [];
    for (const pod of this.store.list('Pod', set.metadata.namespace)) {
      const matches = matchLabelSelector(set.spec?.selector, pod.metadata.labels) && ordinalOf(set.metadata.name ?? '', pod.metadata.name ?? '') >= 0;
      if (isControlledBy(pod, set.metadata.uid)) {
        if (matches) claimed.push(pod);
        else if (!pod.metadata.deletionTimestamp) this.release(pod, set);
      } else if (!controllerOf(pod) && matches && !set.metadata.deletionTimestamp && !pod.metadata.deletionTimestamp) {
        const refs = [...(pod.metadata.ownerReferences ?? []), controllerRef(set)];
        claimed.push(this.store.update('Pod', { ...pod, metadata: { ...pod.metadata, ownerReferences: refs } }));
      }
    }
    return claimed;
  }

  private release(pod: KubeObject, set: KubeObject): void {
    const refs = (pod.metadata.ownerReferences ?? []).filter((r) => r.uid !== set.metadata.uid);
    this.store.update('Pod', { ...pod, metadata: { ...pod.metadata, ownerReferences: refs.length > 0 ? refs : undefined } });
  }

  /** Writes the status on the latest stored set (status writes need no spec agreement), if it changed. */
  private writeStatus(set: KubeObject, status: SetStatus): void {
    const latest = this.store.get('StatefulSet', set.metadata.namespace, set.metadata.name ?? '');
    if (!latest || latest.metadata.uid !== set.metadata.uid) return;
    const { readyReplicas: _r, currentReplicas: _c, updatedReplicas: _u, ...kept } = (latest.status ?? {}) as Record<string, unknown>;
    // As StatefulSetStatus: readyReplicas, currentReplicas and updatedReplicas are omitempty.
    const next = { ...kept, ...omitZero(status, ['readyReplicas', 'currentReplicas', 'updatedReplicas']) };
    if (jsonEqual(next, latest.status)) return;
    this.store.update('StatefulSet', { ...latest, status: next }, { subresource: 'status' });
  }
}

/** completeRollingUpdate: a RollingUpdate whose pods are all updated and ready makes the update revision current. */
export function completeRollingUpdate(spec: StatefulSetSpec, status: SetStatus): SetStatus {
  if (spec.updateStrategy !== 'RollingUpdate' || status.updatedReplicas !== status.replicas || status.readyReplicas !== status.replicas) return status;
  return { ...status, currentReplicas: status.updatedReplicas, currentRevision: status.updateRevision };
}

/** For a set being deleted: the revisions it already has, without creating any. */
function existingPair(set: KubeObject, revisions: KubeObject[]): RevisionPair | undefined {
  const sorted = sortRevisions([...revisions]);
  const update = sorted[sorted.length - 1];
  if (!update) return undefined;
  const current = sorted.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
  return { current, update, collisionCount: typeof set.status?.collisionCount === 'number' ? set.status.collisionCount : 0 };
}
