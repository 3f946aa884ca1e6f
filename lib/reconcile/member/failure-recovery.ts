/**
 * TiDB Operator v1's host-down helpers (`failure_recovery.go`, §2.8, Fixture N), pure: whether a
 * failure object's host is down (three reasons), whether its recreated pod is old enough for the
 * clean-up, and the deletes of its pod and recorded claims. The store failover rule that uses them
 * is `store-host-down.ts`; they act only with `detectNodeFailure` (v1's `--detect-node-failure`).
 */

import type { INode } from 'kubernetes-models/v1/Node';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { DeleteAction } from '../../model/action.js';
import { isTerminating } from './members.js';

/** The TidbCluster annotation that lets host-down failures be recovered (force delete, store and claim deletion). */
export const AUTO_FAILURE_RECOVERY_ANNOTATION = 'app.kubernetes.io/auto-failure-recovery';

/** As TiDB Operator's `podHardRecoveryPeriod`: a failure object down this long is host-down whatever its node says. */
export const POD_HARD_RECOVERY_PERIOD_MS = 24 * 3600_000;

/** As TiDB Operator's `restartToDeleteStoreGap`: how long a recreated pod runs before its store is deleted. */
export const RESTART_TO_DELETE_STORE_GAP_MS = 10 * 60_000;

/** What a failing pod's node says (v1's `getNodeAvailabilityStatus`). */
export type NodeAvailability = 'available' | 'nodeUnavailable' | 'roDiskFound';

/** Why a failure object is marked `hostDown` (the reasons of v1's events). */
export type HostDownReason = 'StoreDownTimeExceeded' | 'NodeFailure' | 'RODiskFound';

const stamp = (time: string | undefined): number => (time === undefined ? Number.NaN : Date.parse(time));
const conditionOf = (conditions: readonly { type: string; status: string }[] | undefined, type: string): string | undefined =>
  conditions?.find((c) => c.type === type)?.status;

/**
 * As TiDB Operator's `getNodeAvailabilityStatus` (S154): phase `Unknown`, or `Running` and not
 * Ready on a node whose Ready is False or Unknown, is `nodeUnavailable`; a Ready pod on a node with
 * `RODiskFound=True` is `roDiskFound`; anything else (a node not read included) is `available`.
 */
export function nodeAvailabilityOf(pod: IPod, node: INode | undefined): NodeAvailability {
  if (pod.status?.phase === 'Unknown') return 'nodeUnavailable';
  const podReady = conditionOf(pod.status?.conditions, 'Ready') === 'True';
  const nodeReady = conditionOf(node?.status?.conditions, 'Ready');
  if (pod.status?.phase === 'Running' && !podReady && (nodeReady === 'False' || nodeReady === 'Unknown')) return 'nodeUnavailable';
  if (podReady && conditionOf(node?.status?.conditions, 'RODiskFound') === 'True') return 'roDiskFound';
  return 'available';
}

/**
 * Why the failure object whose member/store went unhealthy at `sinceMs` is host-down, or undefined
 * (as TiDB Operator): past `podHardRecoveryPeriod` since then, or its pod's node unavailable or
 * with a read-only disk. Only a failure with recorded claims can be recovered, so only it is judged.
 */
export function hostDownReasonOf(failure: { readonly pvcUIDSet?: Record<string, unknown> }, sinceMs: number, pod: IPod, node: INode | undefined, nowMs: number): HostDownReason | undefined {
  if (Object.keys(failure.pvcUIDSet ?? {}).length === 0) return undefined;
  if (!Number.isNaN(sinceMs) && nowMs > sinceMs + POD_HARD_RECOVERY_PERIOD_MS) return 'StoreDownTimeExceeded';
  const availability = nodeAvailabilityOf(pod, node);
  if (availability === 'nodeUnavailable') return 'NodeFailure';
  return availability === 'roDiskFound' ? 'RODiskFound' : undefined;
}

/** Whether the failing pod is the one the failure was recorded against (created before the record): force-deleted once. */
export function isPodBeforeFailure(failure: { readonly createdAt?: string }, pod: IPod): boolean {
  return stamp(failure.createdAt) > stamp(pod.metadata?.creationTimestamp);
}

/**
 * When the clean-up of a host-down failure may start (as TiDB Operator's `canDoCleanUpNow`, S152):
 * its pod was recreated after the failure was recorded, at that creation plus
 * `restartToDeleteStoreGap`; undefined while no such pod exists. Not host-down: at once.
 */
export function cleanUpAtMs(failure: { readonly hostDown?: boolean; readonly createdAt?: string }, pod: IPod | undefined): number | undefined {
  if (failure.hostDown !== true) return 0;
  const createdMs = stamp(pod?.metadata?.creationTimestamp);
  if (!(createdMs > stamp(failure.createdAt))) return undefined;
  return createdMs + RESTART_TO_DELETE_STORE_GAP_MS;
}

/** As TiDB Operator's `canDoCleanUpNow` (S152): `cleanUpAtMs` is known and reached. */
export function canDoCleanUpNow(failure: { readonly hostDown?: boolean; readonly createdAt?: string }, pod: IPod | undefined, nowMs: number): boolean {
  const atMs = cleanUpAtMs(failure, pod);
  return atMs !== undefined && nowMs >= atMs;
}

/**
 * As TiDB Operator's `deletePodAndPvcs` (S153): the delete of `pod` unless it is terminating, and of
 * every claim of `pvcs` whose uid is in `pvcUIDSet` and that is not terminating — each guarded by
 * the uid observed (the pod's also by its resourceVersion), so a recreated object of the same name is never hit.
 */
export function podAndPvcDeletes(
  namespace: string,
  pod: IPod | undefined,
  pvcs: readonly IPersistentVolumeClaim[],
  pvcUIDSet: Record<string, unknown> | undefined,
): DeleteAction[] {
  const uids = new Set(Object.keys(pvcUIDSet ?? {}));
  const podDelete: DeleteAction[] =
    pod && !isTerminating(pod)
      ? [{ kind: 'delete', ref: { kind: 'Pod', namespace, name: pod.metadata?.name ?? '' }, uid: pod.metadata?.uid ?? '', resourceVersion: pod.metadata?.resourceVersion ?? '' }]
      : [];
  const pvcDeletes = pvcs
    .filter((pvc) => uids.has(pvc.metadata?.uid ?? '') && !isTerminating(pvc))
    .map((pvc): DeleteAction => ({ kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace, name: pvc.metadata?.name ?? '' }, uid: pvc.metadata?.uid ?? '' }));
  return [...podDelete, ...pvcDeletes];
}
