/**
 * One pass of the StatefulSet control loop (stateful_set_control.go updateStatefulSet), in its
 * three phases: fill ordinals [0, replicas) — deleting pods in a terminal phase (Failed or
 * Succeeded; recreated on the next sync, once the pod is gone), creating missing ones with their
 * claims first; delete condemned ordinals ≥ replicas, highest first; then, for RollingUpdate,
 * delete the highest-ordinal pod ≥ partition not at the update revision. OrderedReady does one step
 * and waits for Running+Ready (and minReadySeconds) before the next; Parallel goes on. The rolling
 * update always goes one pod at a time, whatever the policy.
 */
import { ApiError } from '../api-error.js';
import type { KubeObject } from '../object.js';
import { isPodReady, isTerminating, msUntilAvailable } from '../pod-status.js';
import type { ObjectStore } from '../store.js';
import { RetryLater } from './base.js';
import { type RevisionPair, revisionTemplate } from './statefulset-revisions.js';
import { recordClaimEvent, recordPodEvent } from './statefulset-events.js';
import {
  type ReplicaCounts,
  type StatefulSetSpec,
  claimsFor,
  countReplicas,
  identityMatches,
  isHealthy,
  isTerminal,
  newStatefulSetPod,
  ordinalOf,
  podNameFor,
  podRevision,
  withIdentity,
} from './statefulset-pods.js';

/** The StatefulSetStatus a pass arrives at (before completeRollingUpdate). */
export type SetStatus = ReplicaCounts & { observedGeneration: number; currentRevision: string; updateRevision: string; collisionCount: number };

/** What one pass works on. `pods` are the set's pods (claimed, valid ordinals). */
export type UpdateInput = { store: ObjectStore; set: KubeObject; spec: StatefulSetSpec; pods: readonly KubeObject[]; pair: RevisionPair; nowMs: number };

/** The status after the pass, and when to look again though no event may come (minReadySeconds). */
export type UpdateOutcome = { status: SetStatus; requeueAfterMs?: number };

type Slot = { pod: KubeObject; created: boolean };

type Pass = UpdateInput & { status: SetStatus; monotonic: boolean };

/** Runs one pass: at most one pod created or deleted under OrderedReady, any number under Parallel. */
export function updateStatefulSet(input: UpdateInput): UpdateOutcome {
  const { set, spec, pods, pair, nowMs } = input;
  const status: SetStatus = {
    observedGeneration: set.metadata.generation ?? 0,
    currentRevision: pair.current.metadata.name ?? '',
    updateRevision: pair.update.metadata.name ?? '',
    collisionCount: pair.collisionCount,
    ...countReplicas(pods, spec.minReadySeconds, nowMs, pair.current.metadata.name ?? '', pair.update.metadata.name ?? ''),
  };
  if (set.metadata.deletionTimestamp) return { status };
  const pass: Pass = { ...input, status, monotonic: spec.podManagementPolicy === 'OrderedReady' };
  const replicas = fillReplicas(pass);
  const condemned = pods.filter((p) => ordinalOf(set.metadata.name ?? '', p.metadata.name ?? '') >= spec.replicas).sort((a, b) => ordinal(set, a) - ordinal(set, b));
  const firstUnhealthy = [...replicas.filter((s) => !s.created || !isHealthy(s.pod)).map((s) => s.pod), ...[...condemned].reverse().filter((p) => !isHealthy(p))][0];
  const scaled = scaleUp(pass, replicas);
  if (scaled) return { status, requeueAfterMs: scaled.requeueAfterMs };
  if (scaleDown(pass, condemned, firstUnhealthy)) return { status };
  if (spec.updateStrategy === 'OnDelete') return { status };
  rollingUpdate(pass, replicas);
  return { status };
}

function ordinal(set: KubeObject, pod: KubeObject): number {
  return ordinalOf(set.metadata.name ?? '', pod.metadata.name ?? '');
}

/** newVersionedStatefulSetPod: ordinals below the partition keep the current revision under RollingUpdate. */
function versionedPod(pass: Pass, i: number): KubeObject {
  const useCurrent = pass.spec.updateStrategy === 'RollingUpdate' && i < pass.spec.partition;
  const revision = useCurrent ? pass.pair.current : pass.pair.update;
  return newStatefulSetPod(pass.set, revisionTemplate(revision), i, revision.metadata.name ?? '');
}

function fillReplicas(pass: Pass): Slot[] {
  const slots: (Slot | undefined)[] = new Array(pass.spec.replicas).fill(undefined);
  for (const pod of pass.pods) {
    const i = ordinal(pass.set, pod);
    if (i >= 0 && i < pass.spec.replicas) slots[i] = { pod, created: true };
  }
  return slots.map((s, i) => s ?? { pod: versionedPod(pass, i), created: false });
}

function countDelta(pass: Pass, pod: KubeObject, delta: number, replicasToo: boolean): void {
  if (replicasToo) pass.status.replicas += delta;
  if (podRevision(pod) === pass.status.currentRevision) pass.status.currentReplicas += delta;
  if (podRevision(pod) === pass.status.updateRevision) pass.status.updatedReplicas += delta;
}

/** Creates the pod's missing claims; a claim still being deleted blocks the pod (it would get no volume). */
function createMissingClaims(store: ObjectStore, set: KubeObject, i: number): void {
  for (const claim of claimsFor(set, i)) {
    const existing = store.get('PersistentVolumeClaim', claim.metadata.namespace, claim.metadata.name ?? '');
    if (existing?.metadata.deletionTimestamp) throw new RetryLater(`pvc ${claim.metadata.name ?? ''} is being deleted`);
    if (!existing) writeReported(() => store.create('PersistentVolumeClaim', claim), (error) => recordClaimEvent(store, set, claim.metadata.name ?? '', podNameFor(set, i), error));
  }
}

/** Runs `write`, reporting how it ended (as the controls record an Event for each write), and rethrows a refusal. */
function writeReported<T>(write: () => T, report: (error?: string) => void): T {
  try {
    const out = write();
    report();
    return out;
  } catch (err) {
    // A lost race (AlreadyExists) is retried without an Event, as the controls skip it.
    if (err instanceof ApiError && err.code !== 409) report(err.message);
    throw err;
  }
}

/** Phase 1; returns a value when the pass must stop here (OrderedReady waiting or having acted). */
function scaleUp(pass: Pass, replicas: Slot[]): { requeueAfterMs?: number } | undefined {
  const { store, set } = pass;
  for (let i = 0; i < replicas.length; i++) {
    const slot = replicas[i] as Slot;
    // As processReplica: a Failed or Succeeded pod is deleted (at once: the API server gives a
    // terminal pod no grace) and "a new pod should be generated on the next sync after the
    // current pod is removed" — never in the same pass.
    if (slot.created && isTerminal(slot.pod)) {
      if (!slot.pod.metadata.deletionTimestamp) deletePod(store, set, slot.pod);
      if (pass.monotonic) return {};
      continue;
    }
    if (!slot.created) {
      createMissingClaims(store, set, i);
      const podName = slot.pod.metadata.name ?? '';
      replicas[i] = { pod: writeReported(() => store.create('Pod', slot.pod), (error) => recordPodEvent(store, set, 'create', podName, error)), created: true };
      countDelta(pass, slot.pod, 1, true);
      if (pass.monotonic) return {};
      continue;
    }
    if (isTerminating(slot.pod)) {
      if (pass.monotonic) return {};
      continue;
    }
    if (slot.pod.status?.phase === 'Pending' || slot.pod.status?.phase === undefined) createMissingClaims(store, set, i);
    if (!isPodReady(slot.pod) && pass.monotonic) return {};
    const untilAvailable = msUntilAvailable(slot.pod, pass.spec.minReadySeconds, pass.nowMs) ?? 0;
    if (untilAvailable > 0 && pass.monotonic) return { requeueAfterMs: untilAvailable };
    if (!identityMatches(set, slot.pod)) writeReported(() => store.update('Pod', withIdentity(set, slot.pod)), (error) => recordPodEvent(store, set, 'update', slot.pod.metadata.name ?? '', error));
  }
  return undefined;
}

/** Phase 2: condemned pods, highest ordinal first; true when the pass must stop here. */
function scaleDown(pass: Pass, condemned: KubeObject[], firstUnhealthy: KubeObject | undefined): boolean {
  for (let target = condemned.length - 1; target >= 0; target--) {
    const pod = condemned[target] as KubeObject;
    if (isTerminating(pod)) {
      if (pass.monotonic) return true;
      continue;
    }
    // Under OrderedReady only the first unhealthy pod may go while others are unhealthy.
    if (!isPodReady(pod) && pass.monotonic && pod !== firstUnhealthy) return true;
    deletePod(pass.store, pass.set, pod);
    countDelta(pass, pod, -1, false);
    if (pass.monotonic) return true;
  }
  return false;
}

/** Phase 3: the highest ordinal ≥ partition not at the update revision is deleted; one at a time. */
function rollingUpdate(pass: Pass, replicas: Slot[]): void {
  for (let target = replicas.length - 1; target >= pass.spec.partition; target--) {
    const slot = replicas[target];
    if (!slot) continue;
    if (podRevision(slot.pod) !== pass.status.updateRevision && !isTerminating(slot.pod)) {
      deletePod(pass.store, pass.set, slot.pod);
      pass.status.currentReplicas--;
      return;
    }
    if (!slot.created || !isHealthy(slot.pod)) return;
  }
}

function deletePod(store: ObjectStore, set: KubeObject, pod: KubeObject): void {
  const name = pod.metadata.name ?? '';
  try {
    store.delete('Pod', pod.metadata.namespace, name, { preconditions: { uid: pod.metadata.uid } });
    recordPodEvent(store, set, 'delete', name);
  } catch (err) {
    // Already gone: the next pass sees the world without it.
    if (!(err instanceof ApiError && err.code === 404)) {
      if (err instanceof ApiError && err.code !== 409) recordPodEvent(store, set, 'delete', name, err.message);
      throw err;
    }
  }
}
