/**
 * TidbCluster conditions, set as TiDB Operator's `SetTidbClusterCondition` does: a condition whose
 * status and reason are unchanged is left exactly as it is (timestamps included, so an unchanged
 * cluster writes nothing); `lastTransitionTime` moves only when the status flips.
 */

import type { TidbClusterStatus } from '../../model/kube.js';

/** One TidbCluster condition as stored in `status.conditions`. */
export type ClusterCondition = NonNullable<TidbClusterStatus['conditions']>[number];

/** The parts of a condition a rule decides; the timestamps are this module's business. */
export type ConditionValue = {
  readonly type: ClusterCondition['type'];
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
};

/** Kubernetes `metav1.Time`: RFC 3339 in UTC with whole seconds. */
export function toKubeTime(atMs: number): string {
  return new Date(Math.floor(atMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Returns `conditions` with `value` set at `nowMs`. Guarantees: the very same array (same identity)
 * when the current condition of that type has the same status and reason; otherwise a new array with
 * that condition replaced (moved to the end, as TiDB Operator appends it), `lastUpdateTime` now and
 * `lastTransitionTime` kept if the status did not change.
 */
export function setCondition(
  conditions: readonly ClusterCondition[],
  value: ConditionValue,
  nowMs: number,
): readonly ClusterCondition[] {
  const current = conditions.find((c) => c.type === value.type);
  if (current && current.status === value.status && current.reason === value.reason) return conditions;
  const now = toKubeTime(nowMs);
  const keepsStatus = current !== undefined && current.status === value.status;
  const next: ClusterCondition = {
    type: value.type,
    status: value.status,
    reason: value.reason,
    message: value.message,
    lastUpdateTime: now,
    lastTransitionTime: keepsStatus ? (current.lastTransitionTime ?? now) : now,
  };
  return [...conditions.filter((c) => c.type !== value.type), next];
}
