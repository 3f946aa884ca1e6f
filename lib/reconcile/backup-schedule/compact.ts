/**
 * Compaction scheduled by a BackupSchedule (§3.6), as TiDB Operator v1's `canPerformNextCompact` and
 * `createCompact` (release-1.6 `pkg/backup/backupschedule/backup_schedule_manager.go:53-133, 289-334`):
 * only with a log backup template, a compact template and `compactInterval`, once the log backup
 * has a start and a checkpoint.
 *   Progress   the last compaction: still running ⇒ no new one (never two at once — its end wakes
 *              the schedule); Complete ⇒ progress = its `status.endTs`; Failed ⇒ its `spec.startTs`
 *              (run again); progress never moves back nor before the log start
 *   Window     start = progress (or the log start), raised to `minCompactStartTs`; end = the
 *              checkpoint, at most 3 intervals after start; nothing when start is not before the
 *              checkpoint, when end is less than one interval after the log start, or when the last
 *              compaction was created less than one interval ago
 *   Create     `compact-<bs>-<UTC now>` from the template, `startTs`/`endTs` as UTC
 *              `2006-01-02 15:04:05`, the S3 prefix extended by `log-<log start>` (the log backup's
 *              own prefix), the schedule's labels, annotations and controller reference;
 *              `lastCompact`, `lastCompactExecutionTs`
 * One difference, stricter than v1: a `minCompactStartTs` at or after the checkpoint makes no
 * compaction (v1 checks the start against the checkpoint before raising it, and creates one whose
 * start is after its end, which then fails validation).
 */

import type { CompactBackup, CompactSpec } from '../compact-backup/types.js';
import { kubeTime, parseKubeTime } from '../backup/conditions.js';
import { parseGoDurationMs, parseTso } from '../backup/validate.js';
import { joinPrefix, nameTime, ownedMetadata } from './sync.js';
import type { BackupSchedule, BackupScheduleStatus } from './types.js';

/** How soon a compaction waiting on the log's checkpoint looks again (the tracker's interval; never more than `compactInterval`). */
export const CHECKPOINT_RECHECK_MS = 60_000;

/** What the compaction stage decides: create one, or why not and when to look again (undefined: an event will come). */
export type CompactDecision =
  | { readonly kind: 'create'; readonly compact: CompactBackup; readonly status: BackupScheduleStatus; readonly nextAtMs: number }
  | { readonly kind: 'skip'; readonly why: string; readonly status: BackupScheduleStatus; readonly nextAtMs: number | undefined }
  | { readonly kind: 'invalid'; readonly message: string; readonly status: BackupScheduleStatus };

/** v1's `BackupTimestampFormat` in UTC. */
export function timestampUtc(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** A TSO or datetime as ms (`config.ParseTSStringToGoTime`); undefined when unparsable, 0 for "". */
function tsToMs(text: string | undefined): number | undefined {
  const tso = parseTso(text ?? '');
  return tso === undefined ? undefined : Number(BigInt(tso) >> 18n);
}

/**
 * The compaction step for `bks` whose log backup started at `status.logBackupStartTs` and is
 * checkpointed at `checkpointMs` (undefined: no checkpoint yet); `lastCompact` is the object
 * `status.lastCompact` names (undefined: none, or gone). Undefined when compaction is not configured.
 */
export function planCompaction(bks: BackupSchedule, status: BackupScheduleStatus, lastCompact: CompactBackup | undefined, checkpointMs: number | undefined, nowMs: number): CompactDecision | undefined {
  const spec = bks.spec ?? {};
  const template = spec.compactBackupTemplate;
  const logStartMs = parseKubeTime(status.logBackupStartTs);
  const interval = spec.compactInterval;
  if (spec.logBackupTemplate === undefined || template === undefined || logStartMs === undefined || interval === undefined) return undefined;
  const spanMs = parseGoDurationMs(interval);
  if (spanMs === undefined || spanMs <= 0) return { kind: 'invalid', message: `failed to parse compact interval: time: invalid duration "${interval}"`, status };
  // Waiting on the checkpoint, which the log backup's tracker moves once a minute: v1 looks again at its 30 s resync.
  const recheck = nowMs + Math.min(spanMs, CHECKPOINT_RECHECK_MS);
  if (checkpointMs === undefined || checkpointMs < logStartMs) return { kind: 'skip', why: 'the log backup has no checkpoint yet', status, nextAtMs: recheck };
  const progressed = progress(status, lastCompact, logStartMs);
  if (progressed.kind === 'running') return { kind: 'skip', why: progressed.why, status, nextAtMs: undefined };
  const next = progressed.status;
  // Checked first here (v1 checks it last; either way no compaction): until then nothing else can make one.
  const lastRunMs = parseKubeTime(next.lastCompactExecutionTs);
  if (lastRunMs !== undefined && nowMs - lastRunMs < spanMs) return { kind: 'skip', why: 'the last compaction was created less than one interval ago', status: next, nextAtMs: lastRunMs + spanMs };
  let startMs = parseKubeTime(next.lastCompactProgress) ?? logStartMs;
  const min = spec.minCompactStartTs;
  if (min !== undefined && min !== '') {
    const minMs = tsToMs(min);
    if (minMs === undefined) return { kind: 'invalid', message: `failed to parse MinCompactStartTs ${min}`, status: next };
    if (startMs < minMs) startMs = minMs;
  }
  if (startMs >= checkpointMs) return { kind: 'skip', why: `startTs ${timestampUtc(startMs)} is not before the checkpoint ${timestampUtc(checkpointMs)}`, status: next, nextAtMs: recheck };
  const endMs = checkpointMs - startMs < 3 * spanMs ? checkpointMs : startMs + 3 * spanMs;
  if (endMs - logStartMs < spanMs) return { kind: 'skip', why: 'the log backup started less than one interval ago', status: next, nextAtMs: recheck };
  const compact = buildCompact(bks, template, logStartMs, startMs, endMs, nowMs);
  return { kind: 'create', compact, status: { ...next, lastCompact: compact.metadata.name ?? '', lastCompactExecutionTs: kubeTime(nowMs) }, nextAtMs: nowMs + spanMs };
}

/** `canPerformNextCompact`: the progress the last compaction made, or that it still runs. */
function progress(status: BackupScheduleStatus, lastCompact: CompactBackup | undefined, logStartMs: number): { kind: 'running'; why: string } | { kind: 'ok'; status: BackupScheduleStatus } {
  const name = status.lastCompact ?? '';
  if (name === '' || lastCompact === undefined) return { kind: 'ok', status };
  const state = lastCompact.status?.state ?? '';
  if (state !== 'Complete' && state !== 'Failed') return { kind: 'running', why: `compact backup ${name} is still running` };
  const reached = tsToMs(state === 'Complete' ? lastCompact.status?.endTs : lastCompact.spec?.startTs);
  const before = parseKubeTime(status.lastCompactProgress);
  // v1 logs "can't rollback" and keeps the progress it had.
  if (reached === undefined || reached === 0 || reached < logStartMs || (before !== undefined && reached < before)) return { kind: 'ok', status };
  return { kind: 'ok', status: { ...status, lastCompactProgress: kubeTime(reached) } };
}

/** `buildCompactBackup`. */
function buildCompact(bks: BackupSchedule, template: CompactSpec, logStartMs: number, startMs: number, endMs: number, nowMs: number): CompactBackup {
  const spec: CompactSpec & Record<string, unknown> = structuredClone(template) as CompactSpec & Record<string, unknown>;
  const logPrefix = `log-${nameTime(logStartMs)}`;
  const s3 = spec.s3 === undefined ? {} : { s3: { ...spec.s3, prefix: joinPrefix(spec.s3.prefix, logPrefix) } };
  const pullSecrets = bks.spec?.imagePullSecrets;
  const secrets = pullSecrets === undefined || pullSecrets === null ? {} : { imagePullSecrets: pullSecrets };
  const name = `compact-${bks.metadata.name ?? ''}-${nameTime(nowMs)}`;
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'CompactBackup', metadata: ownedMetadata(bks, name), spec: { ...spec, ...s3, ...secrets, startTs: timestampUtc(startMs), endTs: timestampUtc(endMs) } };
}
