/**
 * The log-backup runs of the simulated backup-manager (`backup --mode=log --subcommand=<cmd>`,
 * cmd/backup-manager/app/backup/manager.go:452-680 on release-1.6): `<cmd>` Prepare, Running, then
 * `br log start|stop|pause|resume|truncate` against the cluster's log tasks and the storage, then
 * Complete (start: commitTs and backupPath; truncate: logSuccessTruncateUntil) or Failed with v1's
 * reasons (StartLogBackupFailed, StopLogBackupFailed, PauseLogBackupFailed, ResumeLogBackuFailed,
 * TruncateLogBackuFailed — the typos are v1's). Conditions go to `logSubCommandStatuses[<cmd>]` and
 * reach the top level only as v1's status updater merges them (backup_status_updater.go:226-417).
 * Also what PiTR reads back: the dataset at a timestamp from the log's flushed history.
 */
import { rfc3339 } from '../object.js';
import type { KubeObject } from '../object.js';
import { type BackupContext, BrError, checkPd } from './cluster.js';
import { type Segment, msOfTs, pointIn, tsoOf } from './dataset.js';
import type { LogTasks } from './log-tasks.js';
import type { Script } from './process.js';
import { S3Error, type S3Credentials, type SimS3 } from './s3.js';
import { type ManagerArgs, podId } from './snapshot.js';
import { type CrClient, type CrCondition, withCrCondition } from './status.js';
import { type S3Location, StorageSetupError, keyUnder, podCredentials, s3LocationOf, s3Uri } from './storage.js';

const FAILED_REASON: Readonly<Record<string, string>> = {
  'log-start': 'StartLogBackupFailed',
  'log-stop': 'StopLogBackupFailed',
  'log-pause': 'PauseLogBackupFailed',
  'log-resume': 'ResumeLogBackuFailed',
  'log-truncate': 'TruncateLogBackuFailed',
};

/** The top-level condition a sub-command's condition becomes, or undefined when it stays in the sub-status. */
function topLevel(cmd: string, type: string): string | undefined {
  if (cmd === 'log-start') return type === 'Complete' ? undefined : type;
  if (type !== 'Complete') return undefined;
  return cmd === 'log-stop' ? 'Stopped' : cmd === 'log-pause' ? 'Paused' : cmd === 'log-resume' ? 'Running' : undefined;
}

/** Records a sub-command condition as v1's status updater does. */
export function withLogCondition(status: Record<string, unknown>, cmd: string, c: CrCondition, nowMs: number, extra: Record<string, unknown>, sub: Record<string, unknown> = {}): Record<string, unknown> {
  const subs = { ...((status.logSubCommandStatuses ?? {}) as Record<string, Record<string, unknown>>) };
  const before = subs[cmd] ?? { command: cmd };
  subs[cmd] = { ...withCrCondition(before, { ...c, command: cmd }, nowMs, sub), command: cmd };
  if (c.type === 'Complete' && (cmd === 'log-pause' || cmd === 'log-resume')) {
    const other = cmd === 'log-pause' ? 'log-resume' : 'log-pause';
    if (subs[other]) subs[other] = { ...subs[other], phase: 'Repeatable' };
  }
  let next: Record<string, unknown> = { ...status, logSubCommandStatuses: subs };
  const type = topLevel(cmd, c.type);
  if (type) next = withCrCondition(next, { ...c, type, command: cmd }, nowMs);
  if (c.type === 'Complete') next = { ...next, ...extra };
  return next;
}

/** The log sub-command run. */
export function* logBackup(ctx: BackupContext, tasks: LogTasks, pod: KubeObject, client: CrClient, args: ManagerArgs, container = 'backup'): Script {
  const ns = args.namespace ?? '';
  const name = args.backupName ?? '';
  const cmd = args.subcommand ?? '';
  const write = (c: CrCondition, extra: Record<string, unknown> = {}, sub: Record<string, unknown> = {}): void =>
    client.updateStatus('Backup', ns, name, (s) => withLogCondition(s, cmd, c, ctx.clock.nowMs(), extra, sub));
  const backup = client.get('Backup', ns, name);
  const br = backup.spec?.br as { cluster?: string; clusterNamespace?: string } | undefined;
  if (!br) throw new Error('no br config');
  write({ type: 'Prepare', status: 'True' });
  yield 1000;
  const startedMs = ctx.clock.nowMs();
  write({ type: 'Running', status: 'True' }, {}, { timeStarted: rfc3339(startedMs) });
  const cluster = br.cluster ?? '';
  const clusterNs = br.clusterNamespace || ns;
  let extra: Record<string, unknown> = {};
  let sub: Record<string, unknown> = {};
  try {
    checkPd(ctx, pod, cluster, clusterNs, args['cluster-tls'] === 'true');
    const loc = s3LocationOf(backup.spec);
    if (!loc) throw new BrError('[BR:ExternalStorage:ErrStorageInvalidConfig]invalid external storage config: no S3 storage given');
    const who = podCredentials(ctx.store, pod, container, ctx.s3.knownRoles(), ctx.podIdentity);
    const task = tasks.get(clusterNs, cluster, name);
    if (cmd === 'log-start') {
      const startMs = msOfTs(args['commit-ts'] ?? '') ?? ctx.clock.nowMs();
      ctx.s3.list(who, loc.bucket, keyUnder(loc, ''));
      tasks.start({ name, clusterNamespace: clusterNs, cluster, loc, who, startMs });
      extra = { commitTs: tsoOf(startMs), backupPath: s3Uri(loc) };
    } else if (cmd === 'log-truncate') {
      const untilMs = msOfTs(args['truncate-until'] ?? '');
      if (!untilMs) throw new BrError('[BR:Common:ErrInvalidArgument]--until must be set and not 0');
      truncateLog(ctx.s3, who, loc, untilMs, podId(pod));
      extra = { logSuccessTruncateUntil: args['truncate-until'] };
      sub = { logTruncatingUntil: args['truncate-until'] };
    } else {
      if (!task) throw new BrError(`[BR:Stream:ErrStreamTaskNotFound]stream task ${name} not found`);
      if (cmd === 'log-stop') tasks.stop(task);
      else if (cmd === 'log-pause') tasks.setPaused(task, true);
      else if (cmd === 'log-resume') tasks.setPaused(task, false);
      else throw new BrError(`unknown log subcommand ${cmd}`);
    }
  } catch (err) {
    const message = err instanceof BrError || err instanceof S3Error || err instanceof StorageSetupError || err instanceof Error ? err.message : String(err);
    write({ type: 'Failed', status: 'True', reason: FAILED_REASON[cmd] ?? 'LogBackupFailed', message }, {}, { timeCompleted: rfc3339(ctx.clock.nowMs()) });
    throw new Error(message);
  }
  yield 2000;
  write({ type: 'Complete', status: 'True' }, extra, { ...sub, timeCompleted: rfc3339(ctx.clock.nowMs()) });
}

/** `br log truncate --until`: deletes the flushed metadata wholly before `untilMs` and records the safepoint. */
export function truncateLog(s3: SimS3, who: S3Credentials, loc: S3Location, untilMs: number, by?: string): void {
  const metas = s3.list(who, loc.bucket, keyUnder(loc, 'v1/backupmeta/'));
  s3.delete(who, loc.bucket, metas.filter((m) => ((m.body as { toMs?: number } | undefined)?.toMs ?? Infinity) <= untilMs).map((m) => m.key), by);
  s3.put(who, loc.bucket, keyUnder(loc, 'v1_stream_truncate_safepoint.txt'), 16, { untilMs });
}

/**
 * The dataset a PiTR restore reaches at `restoredMs` from a full backup's dataset and the log at
 * `loc`: the log must cover (full backup ts, restoredMs] — not truncated past the full backup and
 * checkpointed at or after restoredMs — and belong to the same lineage.
 */
export function readLogUpTo(s3: SimS3, who: S3Credentials, loc: S3Location, full: { lineage: string; tsMs: number }, restoredMs: number): { lineage: string; version: number; tsMs: number; logBytes: number } {
  if (restoredMs < full.tsMs) throw new BrError(`[BR:Common:ErrInvalidArgument]restored ts ${tsoOf(restoredMs)} is before the full backup ts ${tsoOf(full.tsMs)}`);
  const objects = s3.list(who, loc.bucket, keyUnder(loc, 'v1/'));
  const checkpoint = Math.max(0, ...objects.filter((o) => o.key.includes('/global_checkpoint/')).map((o) => (o.body as { checkpointMs?: number } | undefined)?.checkpointMs ?? 0));
  if (restoredMs > checkpoint) throw new BrError(`[BR:Common:ErrInvalidArgument]restored ts ${tsoOf(restoredMs)} is larger than the log backup's checkpoint ts ${tsoOf(checkpoint)}`);
  const safepoint = s3.list(who, loc.bucket, keyUnder(loc, 'v1_stream_truncate_safepoint.txt'))[0];
  const truncatedTo = (safepoint?.body as { untilMs?: number } | undefined)?.untilMs ?? 0;
  if (truncatedTo > full.tsMs) throw new BrError(`[BR:Common:ErrInvalidArgument]the log backup is truncated to ${tsoOf(truncatedTo)}, after the full backup ts ${tsoOf(full.tsMs)}`);
  const metas = objects.filter((o) => o.key.includes('/backupmeta/')).map((o) => o.body as { fromMs: number; toMs: number; segments: Segment[] });
  const covering = metas.find((m) => m.fromMs <= restoredMs && restoredMs <= m.toMs);
  const point = covering ? pointIn(covering.segments, restoredMs) : undefined;
  if (!point) throw new BrError(`[BR:Common:ErrInvalidArgument]no log backup data covers restored ts ${tsoOf(restoredMs)}`);
  if (point.lineage !== full.lineage) throw new BrError('[BR:Restore:ErrRestoreInvalidBackup]the log backup and the full backup come from different clusters');
  return { ...point, tsMs: restoredMs, logBytes: metas.length * 4096 };
}
