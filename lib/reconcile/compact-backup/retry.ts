/**
 * The compaction's retries as v1 counts them (`allowCompact`, `OnCreateJob`, `OnFinish`): every
 * failure — a Job that could not be built, or a pod run that failed (the pod writes it) — appends
 * `{retryNum = number of records so far, detectFailedAt, retryReason}` to `status.backoffRetryStatus`
 * and sets state `RetryFailed`. A new Job is allowed only `10 s × 2^(records − 1)` (capped at 6 min)
 * after the last failure, and no more once the last record's `retryNum` exceeds `maxRetryTimes`. v1
 * looks again on its 30 s resync; here the key is woken when the back-off ends.
 */

import { kubeTime, parseKubeTime } from '../backup/conditions.js';
import type { CompactRetryRecord, CompactStatus } from './types.js';

/** v1's `maxInterval` of the compaction back-off. */
export const COMPACT_MAX_BACKOFF_MS = 6 * 60_000;

/** v1's `expBackoff(attempts)`: 0 for the first attempt, then 10 s × 2^(attempts − 1), at most 6 min. */
export function compactBackoffMs(attempts: number): number {
  if (attempts <= 1) return 0;
  return Math.min(COMPACT_MAX_BACKOFF_MS, 10_000 * 2 ** (attempts - 1));
}

/** Whether a new Job may be created now: `exhausted` past `maxRetryTimes`, else `dueAtMs` when the back-off still runs. */
export type RetryGate = { readonly kind: 'go' } | { readonly kind: 'exhausted' } | { readonly kind: 'backoff'; readonly dueAtMs: number };

/** The gate for a new Job given the records so far (`allowCompact`). */
export function retryGate(status: CompactStatus, maxRetryTimes: number, nowMs: number): RetryGate {
  const records = status.backoffRetryStatus ?? [];
  const last = records[records.length - 1];
  if (last === undefined) return { kind: 'go' };
  if ((last.retryNum ?? 0) > maxRetryTimes) return { kind: 'exhausted' };
  const dueAtMs = (parseKubeTime(last.detectFailedAt) ?? nowMs) + compactBackoffMs(records.length);
  return nowMs < dueAtMs ? { kind: 'backoff', dueAtMs } : { kind: 'go' };
}

/** `status` with one more failure recorded (state RetryFailed, the message, a record numbered by the count so far). */
export function withRetryRecord(status: CompactStatus, message: string, nowMs: number): CompactStatus {
  const records = status.backoffRetryStatus ?? [];
  const record: CompactRetryRecord = { retryNum: records.length, detectFailedAt: kubeTime(nowMs), retryReason: message };
  return { ...status, state: 'RetryFailed', message, backoffRetryStatus: [...records, record] };
}
