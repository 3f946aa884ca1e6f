/**
 * Retention of a schedule's CompactBackups, as TiDB Operator v1's `compactGCByMaxReservedTime` and
 * `compactGCByMaxBackups` (release-1.6 `pkg/backup/backupschedule/backup_schedule_manager.go:727-767,
 * 881-897, 1053-1081`), run right after the Backups' retention with the same policy:
 *   maxReservedTime   oldest first, the leading compactions that ended (Complete or Failed) with
 *                     `spec.endTs` before now − reserved; an unparsable endTs stops it (v1 errors out)
 *   maxBackups        newest first, every compaction beyond the count
 *   all deleted       `status.lastCompact` is reset to ""
 * Deleting a CompactBackup removes the record, never data (v1 has no cleaner for it; its Job goes
 * with it by owner reference), and deleting the schedule cascades to all of them, as in v1. Safer
 * than v1, on purpose:
 *   - a compaction that has not ended is never deleted (v1's count rule deletes it, killing its Job);
 *   - with a log backup, a Complete compaction the PiTR window still uses is kept: one ending after
 *     `neededFromMs`, the commitTs of the oldest Complete snapshot that stays — a restore starts from
 *     a snapshot and replays the log (and its compactions) after it. With no Complete snapshot left
 *     to start from, every Complete compaction is kept.
 */

import { parseKubeTime } from '../backup/conditions.js';
import { parseGoDurationMs, parseTso } from '../backup/validate.js';
import type { CompactBackup } from '../compact-backup/types.js';

/** The inputs: the policy, the schedule's CompactBackups, what the PiTR window needs, and now. */
export type CompactRetentionInput = {
  readonly maxBackups: number | undefined;
  readonly maxReservedTime: string | undefined;
  readonly compacts: readonly CompactBackup[];
  /** Whether the schedule has a log backup (PiTR): only then do compactions serve a restore. */
  readonly hasLog: boolean;
  /** The commitTs (ms) of the oldest Complete snapshot that stays; undefined when none does. */
  readonly neededFromMs: number | undefined;
  readonly nowMs: number;
};

/** What compaction retention decided. */
export type CompactRetentionPlan = {
  readonly deletes: readonly CompactBackup[];
  /** Every CompactBackup of the schedule goes: v1 then resets `lastCompact`. */
  readonly allDeleted: boolean;
  readonly why: string;
};

const NOTHING: CompactRetentionPlan = { deletes: [], allDeleted: false, why: 'no retention configured' };

/** The CompactBackups to delete; see the module comment. `maxReservedTime` wins over `maxBackups`. */
export function planCompactRetention(input: CompactRetentionInput): CompactRetentionPlan {
  const candidates = input.compacts.filter((c) => c.metadata.deletionTimestamp == null);
  let plan: CompactRetentionPlan;
  if (input.maxReservedTime !== undefined && input.maxReservedTime !== '') {
    const reservedMs = parseGoDurationMs(input.maxReservedTime);
    if (reservedMs === undefined) return { ...NOTHING, why: `invalid MaxReservedTime ${input.maxReservedTime}` };
    plan = byReservedTime(candidates, input, input.nowMs - reservedMs);
  } else if (input.maxBackups !== undefined && input.maxBackups > 0) {
    plan = byCount(candidates, input, input.maxBackups);
  } else {
    return NOTHING;
  }
  return { ...plan, allDeleted: plan.deletes.length > 0 && plan.deletes.length === candidates.length };
}

/** Wall-clock ms of a compaction's `spec.endTs` (TSO or datetime, v1's ParseTSString); undefined when unparsable. */
export function endMsOf(c: CompactBackup): number | undefined {
  const tso = parseTso(c.spec?.endTs ?? '');
  return tso === undefined ? undefined : Number(BigInt(tso) >> 18n);
}

function hasEnded(c: CompactBackup): boolean {
  const state = c.status?.state ?? '';
  return state === 'Complete' || state === 'Failed';
}

/** Whether a restore within the PiTR window may still use this compaction's output. */
function isNeeded(c: CompactBackup, input: CompactRetentionInput): boolean {
  if (!input.hasLog || c.status?.state !== 'Complete') return false;
  if (input.neededFromMs === undefined) return true;
  const endMs = endMsOf(c);
  return endMs === undefined || endMs > input.neededFromMs;
}

function byCreation(a: CompactBackup, b: CompactBackup): number {
  return (parseKubeTime(a.metadata.creationTimestamp) ?? 0) - (parseKubeTime(b.metadata.creationTimestamp) ?? 0) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

/** `calculateExpiredCompacts`: the leading ended compactions that ended before `expiredBeforeMs`, up to the first the window needs. */
function byReservedTime(candidates: readonly CompactBackup[], input: CompactRetentionInput, expiredBeforeMs: number): CompactRetentionPlan {
  const deletes: CompactBackup[] = [];
  for (const c of [...candidates].sort(byCreation)) {
    const endMs = endMsOf(c);
    if (!hasEnded(c) || endMs === undefined || endMs >= expiredBeforeMs || isNeeded(c, input)) break;
    deletes.push(c);
  }
  return { deletes, allDeleted: false, why: `maxReservedTime: ${deletes.length} compaction(s) ended before ${new Date(Math.max(0, expiredBeforeMs)).toISOString()}` };
}

/** Beyond the newest `maxBackups`, those that ended and that the window does not need. */
function byCount(candidates: readonly CompactBackup[], input: CompactRetentionInput, maxBackups: number): CompactRetentionPlan {
  const deletes = [...candidates]
    .sort(byCreation)
    .reverse()
    .slice(maxBackups)
    .filter((c) => hasEnded(c) && !isNeeded(c, input));
  return { deletes, allDeleted: false, why: `maxBackups ${maxBackups}: ${deletes.length} compaction(s) beyond it` };
}
