/**
 * Retention (TiDB Operator v1's `backupGC`, `backup_schedule_manager.go:632-1125`, §3.4) as a pure
 * choice of which of the schedule's Backups to delete and how far to truncate its log backup.
 * Deleting a Backup goes through its own finalizer and `cleanPolicy` (the data goes only under
 * Delete / OnFailure). `maxReservedTime` wins over `maxBackups`. Safer than v1, on purpose:
 *   - the schedule's log backup is never a candidate (v1's `maxBackups` counts and deletes it, §7.3);
 *   - the newest Complete snapshot is never deleted, by either rule: it is what a restore — and any
 *     PiTR over the log backup — starts from (v1 deletes it once enough failed backups follow it, or
 *     once it is older than `maxReservedTime`);
 *   - with a log backup, the PiTR boundary kept is the newest *Complete* snapshot at or before the
 *     window's start (v1 takes any finished one, so a failed backup — commitTs 0 — could become the
 *     boundary and the Complete snapshot before it be deleted, leaving the window unrestorable).
 * As v1, with compaction configured the log is never truncated past `lastCompactProgress`.
 */

import { hasCondition, parseKubeTime } from '../backup/conditions.js';
import type { Backup } from '../backup/types.js';
import { parseGoDurationMs, parseTso } from '../backup/validate.js';

/** What retention decided. `truncateUntil` is a TSO (decimal) for the log backup's `spec.logTruncateUntil`. */
export type RetentionPlan = {
  readonly deletes: readonly Backup[];
  readonly truncateUntil: string | undefined;
  /** Every snapshot Backup of the schedule goes: v1 then resets `lastBackup` and sets `allBackupCleanTime`. */
  readonly allDeleted: boolean;
  readonly why: string;
};

/** The inputs: the policy, the schedule's Backups (log backup excluded), the log backup, and now. */
export type RetentionInput = {
  readonly maxBackups: number | undefined;
  readonly maxReservedTime: string | undefined;
  readonly snapshots: readonly Backup[];
  readonly logBackup: Backup | undefined;
  readonly nowMs: number;
  /**
   * With compaction configured: how far the log may be truncated — `lastCompactProgress` (0 when
   * compaction has not progressed: no truncation), as v1 caps it so a compaction still to run finds
   * its log. Undefined: no cap.
   */
  readonly truncateCapMs?: number;
};

const NOTHING: RetentionPlan = { deletes: [], truncateUntil: undefined, allDeleted: false, why: 'no retention configured' };

/** Wall-clock ms of a TSO or datetime text (`ParseTSString`); 0 when empty or unparsable, as v1 reads a missing commitTs. */
export function tsMs(text: string | undefined | null): number {
  const tso = parseTso(text ?? '');
  return tso === undefined ? 0 : Number(BigInt(tso) >> 18n);
}

/** The TSO of a wall-clock time. */
export function tsoOf(ms: number): string {
  return (BigInt(ms) << 18n).toString();
}

/** The Backups to delete; see the module comment. An unparsable `maxReservedTime` keeps everything (v1 logs it). */
export function planRetention(input: RetentionInput): RetentionPlan {
  const candidates = input.snapshots.filter((b) => b.metadata.deletionTimestamp == null);
  if (input.maxReservedTime !== undefined && input.maxReservedTime !== '') {
    const reservedMs = parseGoDurationMs(input.maxReservedTime);
    if (reservedMs === undefined) return { ...NOTHING, why: `invalid MaxReservedTime ${input.maxReservedTime}` };
    return withTotal(candidates, input.logBackup === undefined ? byReservedTime(candidates, reservedMs, input.nowMs) : byPitrWindow(candidates, input.logBackup, reservedMs, input.truncateCapMs));
  }
  if (input.maxBackups !== undefined && input.maxBackups > 0) return withTotal(candidates, byCount(candidates, input.maxBackups));
  return NOTHING;
}

function withTotal(candidates: readonly Backup[], plan: RetentionPlan): RetentionPlan {
  return { ...plan, allDeleted: plan.deletes.length > 0 && plan.deletes.length === candidates.length };
}

function byCreation(a: Backup, b: Backup): number {
  return (parseKubeTime(a.metadata.creationTimestamp) ?? 0) - (parseKubeTime(b.metadata.creationTimestamp) ?? 0) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

function isDone(b: Backup): boolean {
  return hasCondition(b.status, 'Complete') || hasCondition(b.status, 'Failed') || hasCondition(b.status, 'Invalid');
}

/** The newest Complete snapshot: never deleted. */
function newestComplete(backups: readonly Backup[]): Backup | undefined {
  return [...backups].sort(byCreation).reverse().find((b) => hasCondition(b.status, 'Complete'));
}

/** No log backup: the leading (oldest) finished snapshots whose commitTs is older than `now − reserved`. */
function byReservedTime(candidates: readonly Backup[], reservedMs: number, nowMs: number): RetentionPlan {
  const keep = newestComplete(candidates);
  const expiredBefore = nowMs - reservedMs;
  const deletes: Backup[] = [];
  for (const b of candidates.filter(isDone).sort(byCreation)) {
    if (tsMs(b.status?.commitTs) >= expiredBefore) break;
    if (b !== keep) deletes.push(b);
  }
  return { deletes, truncateUntil: undefined, allDeleted: false, why: `maxReservedTime: ${deletes.length} older than the window` };
}

/**
 * With a log backup: the window ends at the newest of the snapshots' commitTs and the log checkpoint
 * and starts `reserved` before; the newest Complete snapshot at or before its start is kept (PiTR to
 * the start stays possible) and the finished snapshots before it go; the log is then truncated to
 * that snapshot when it lies within `(log commitTs, checkpoint]`.
 */
function byPitrWindow(candidates: readonly Backup[], log: Backup, reservedMs: number, capMs: number | undefined): RetentionPlan {
  const done = candidates.filter(isDone).sort(byCreation);
  const checkpointMs = tsMs(log.status?.['logCheckpointTs'] as string | undefined);
  const latest = Math.max(checkpointMs, ...done.map((b) => tsMs(b.status?.commitTs)));
  const expired = latest - reservedMs;
  let boundary = -1;
  done.forEach((b, i) => {
    if (hasCondition(b.status, 'Complete') && tsMs(b.status?.commitTs) <= expired) boundary = i;
  });
  const deletes = boundary < 0 ? [] : done.slice(0, boundary);
  const kept = done[boundary];
  const keptMs = kept === undefined ? 0 : tsMs(kept.status?.commitTs);
  const logStartMs = tsMs(log.status?.commitTs);
  let truncate = deletes.length > 0 && keptMs > logStartMs && keptMs <= checkpointMs ? (parseTso(kept?.status?.commitTs ?? '') ?? undefined) : undefined;
  // v1: never past the compaction's progress (`truncateTSO = min(truncateTSO, compactProgress)`).
  if (truncate !== undefined && capMs !== undefined && capMs < keptMs) truncate = capMs > logStartMs ? tsoOf(capMs) : undefined;
  return { deletes, truncateUntil: truncate, allDeleted: false, why: `maxReservedTime with log backup: PiTR window from ${new Date(Math.max(0, expired)).toISOString()}` };
}

/** `maxBackups`: all finished or not, newest first, beyond the count — the newest Complete kept. */
function byCount(candidates: readonly Backup[], maxBackups: number): RetentionPlan {
  const keep = newestComplete(candidates);
  const deletes = [...candidates].sort(byCreation).reverse().slice(maxBackups).filter((b) => b !== keep);
  return { deletes, truncateUntil: undefined, allDeleted: false, why: `maxBackups ${maxBackups}: ${deletes.length} beyond it` };
}
