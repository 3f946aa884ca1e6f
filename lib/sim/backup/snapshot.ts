/**
 * The snapshot-backup and clean runs of the simulated backup-manager
 * (cmd/backup-manager/app/backup/manager.go:86-449, app/clean/manager.go:63-119 on release-1.6):
 * Restart on a re-run, Prepare with backupPath, Running, BR over virtual time by the cluster's data
 * size, then Complete with backupSize / commitTs from the `backupmeta` it wrote — or Failed
 * `BackupDataToRemoteFailed` with BR's message. The clean run deletes every object under the
 * backup's bucket/prefix and reports `Clean` or `CleanFailed`. With `from`, the run first connects to
 * TiDB and raises `tikv_gc_life_time` around BR, setting it back after (gc-life-time.ts).
 */
import { rfc3339 } from '../object.js';
import type { KubeObject } from '../object.js';
import { type BackupContext, BrError, PD_CONNECT_TIMEOUT_MS, pdProblem, storeIds, versionBelow } from './cluster.js';
import { tsoOf } from './dataset.js';
import type { Script } from './process.js';
import { S3Error, type S3Credentials } from './s3.js';
import { type CrClient, type CrCondition, humanBytes, withCrCondition } from './status.js';
import { connectTidb, raiseGcLifeTime, resetGcLifeTime } from './gc-life-time.js';
import { type S3Location, StorageSetupError, keyUnder, podCredentials, s3LocationOf, s3Uri } from './storage.js';
import type { TidbAccess } from './tidb-db.js';

/** The args of a backup-manager run (`--namespace`, `--backupName`, `--tikvVersion`, `--cluster-tls`, …). */
export type ManagerArgs = Readonly<Record<string, string>>;

/** The manifest BR writes last; its presence marks a finished backup (and refuses a second one into the prefix). */
export const BACKUPMETA = 'backupmeta';
// BR's throughput per run in the simulation, and its fixed start-up cost.
const BYTES_PER_MS = (100 * 1024 * 1024) / 1000;
const BR_STARTUP_MS = 10_000;
const FILE_BYTES = 96 * 1024 * 1024;

/** How long BR takes for `sizeBytes` of data. */
export function brDurationMs(sizeBytes: number): number {
  return BR_STARTUP_MS + Math.ceil(sizeBytes / BYTES_PER_MS);
}

/** The failure of a step: message plus the condition reason v1's pod writes for it. */
function failWith(reason: string, err: unknown): { reason: string; message: string } {
  const message = err instanceof BrError || err instanceof S3Error || err instanceof StorageSetupError ? err.message : err instanceof Error ? err.message : String(err);
  return { reason, message };
}

/** The snapshot backup run of `backup --mode=snapshot`. */
export function* snapshotBackup(ctx: BackupContext, pod: KubeObject, client: CrClient, args: ManagerArgs, container = 'backup'): Script {
  const ns = args.namespace ?? '';
  const name = args.backupName ?? '';
  const write = (c: CrCondition, extra: Record<string, unknown> = {}): void => client.updateStatus('Backup', ns, name, (s) => withCrCondition(s, c, ctx.clock.nowMs(), extra));
  const fail = (reason: string, message: string): never => {
    write({ type: 'Failed', status: 'True', reason, message });
    throw new Error(message);
  };
  const backup = client.get('Backup', ns, name);
  const status = (backup.status ?? {}) as { phase?: string; conditions?: CrCondition[] };
  const rerun = status.phase !== 'Scheduled' || (status.conditions ?? []).some((c) => c.type === 'Restart');
  if (rerun) write({ type: 'Restart', status: 'True' });
  const br = backup.spec?.br as { cluster?: string; clusterNamespace?: string } | undefined;
  if (!br) throw new Error('no br config');
  // As v1: with `from`, TiDB is reached before anything else is written (ConnectTidbFailed).
  const from = backup.spec?.from as TidbAccess | undefined;
  const db = from ? yield* connectTidb(ctx, pod, container, from, fail) : undefined;
  const loc = s3LocationOf(backup.spec);
  if (!loc) throw new Error(`backup ${ns}/${name} names no S3 storage`);
  write({ type: 'Prepare', status: 'True' }, { backupPath: s3Uri(loc) });
  const startedMs = ctx.clock.nowMs();
  const gc = db ? yield* raiseGcLifeTime(db, `${ns}/${name}`, backup.spec?.tikvGCLifeTime as string | undefined, fail) : undefined;
  const outcome = yield* runBr(ctx, pod, { br, loc, rerun, args, container, write });
  if (db && gc) {
    const resetError = yield* resetGcLifeTime(db, `${ns}/${name}`, gc);
    if (resetError !== undefined) return fail('ResetTikvGCLifeTimeFailed', resetError);
  }
  if ('failure' in outcome) return fail(outcome.failure.reason, outcome.failure.message);
  const now = ctx.clock.nowMs();
  write({ type: 'Complete', status: 'True' }, { timeStarted: rfc3339(startedMs), timeCompleted: rfc3339(now), ...outcome.complete });
}

type BrRun = { br: { cluster?: string; clusterNamespace?: string }; loc: S3Location; rerun: boolean; args: ManagerArgs; container: string; write: (c: CrCondition) => void };

/** BR's part: the re-run wipe, Running, BR over virtual time; what to write on Complete, or the failure. */
function* runBr(ctx: BackupContext, pod: KubeObject, run: BrRun): Generator<number, { complete: Record<string, unknown> } | { failure: { reason: string; message: string } }, void> {
  const { br, loc, rerun, args, container, write } = run;
  const failure = (err: unknown): { failure: { reason: string; message: string } } => ({ failure: failWith('BackupDataToRemoteFailed', err) });
  let who: S3Credentials;
  try {
    who = podCredentials(ctx.store, pod, container, ctx.s3.knownRoles(), ctx.podIdentity);
    if (rerun && versionBelow(args.tikvVersion, [6, 5, 1])) {
      // cleanSnapshotBackupEnv: before v6.5.1 a re-run wipes the prefix, BR having no checkpoints.
      ctx.s3.delete(who, loc.bucket, ctx.s3.list(who, loc.bucket, keyUnder(loc, '')).map((o) => o.key), podId(pod));
    }
  } catch (err) {
    return failure(err);
  }
  write({ type: 'Running', status: 'True' });
  const cluster = br.cluster ?? '';
  const clusterNs = br.clusterNamespace || (args.namespace ?? '');
  const pdDown = reachPd(ctx, pod, cluster, clusterNs, args);
  if (pdDown) {
    yield PD_CONNECT_TIMEOUT_MS;
    const still = reachPd(ctx, pod, cluster, clusterNs, args);
    if (still) return failure(still);
  }
  const commitMs = ctx.clock.nowMs();
  const point = ctx.datasets.at(clusterNs, cluster, commitMs);
  try {
    if (ctx.s3.exists(who, loc.bucket, keyUnder(loc, BACKUPMETA))) {
      throw new BrError(`[BR:Common:ErrInvalidArgument]backup meta file exists in ${s3Uri(loc)}, there may be some backup files in the path already, please specify a correct backup directory!`);
    }
    ctx.s3.put(who, loc.bucket, keyUnder(loc, 'backup.lock'), 64);
  } catch (err) {
    return failure(err);
  }
  yield brDurationMs(point.sizeBytes);
  const again = reachPd(ctx, pod, cluster, clusterNs, args);
  if (again) return failure(again);
  let sizeBytes: number;
  try {
    sizeBytes = writeBackupFiles(ctx, who, loc, point, storeIds(ctx.clusterState(clusterNs, cluster)), commitMs);
  } catch (err) {
    return failure(err);
  }
  return { complete: { backupSize: sizeBytes, backupSizeReadable: humanBytes(sizeBytes), commitTs: tsoOf(commitMs) } };
}

/** `namespace/name` of a pod: who sends its S3 requests, for the monitors. */
export function podId(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

/** The PD problem BR meets now, or undefined when PD answers. */
function reachPd(ctx: BackupContext, pod: KubeObject, cluster: string, clusterNs: string, args: ManagerArgs): BrError | undefined {
  return pdProblem(ctx, pod, cluster, clusterNs, args['cluster-tls'] === 'true');
}

/** Writes the SST files (one set per TiKV store) and the backupmeta; returns the backup's size (sum of file sizes). */
function writeBackupFiles(ctx: BackupContext, who: S3Credentials, loc: S3Location, point: { lineage: string; version: number; checksum: string; sizeBytes: number }, stores: readonly string[], commitMs: number): number {
  const files: { name: string; size: number }[] = [];
  const perStore = Math.ceil(point.sizeBytes / stores.length);
  for (const store of stores) {
    const count = Math.max(1, Math.ceil(perStore / FILE_BYTES));
    for (let i = 0; i < count && perStore > 0; i++) files.push({ name: `${store}/${i + 1}_${point.checksum}_default.sst`, size: Math.min(FILE_BYTES, perStore - i * FILE_BYTES) });
  }
  for (const f of files) ctx.s3.put(who, loc.bucket, keyUnder(loc, f.name), f.size);
  const sizeBytes = files.reduce((sum, f) => sum + f.size, 0);
  const meta = { startVersion: tsoOf(commitMs), endVersion: tsoOf(commitMs), files, dataset: { lineage: point.lineage, version: point.version, checksum: point.checksum, tsMs: commitMs } };
  ctx.s3.put(who, loc.bucket, keyUnder(loc, BACKUPMETA), 1024 + files.length * 128, meta);
  return sizeBytes;
}

/** The clean run (`clean --backupName`): deletes everything under the backup's bucket/prefix, then checks nothing is left. */
export function* cleanBackup(ctx: BackupContext, pod: KubeObject, client: CrClient, args: ManagerArgs, container = 'backup'): Script {
  const ns = args.namespace ?? '';
  const name = args.backupName ?? '';
  const write = (c: CrCondition): void => client.updateStatus('Backup', ns, name, (s) => withCrCondition(s, c, ctx.clock.nowMs()));
  const backup = client.get('Backup', ns, name);
  const path = (backup.status as { backupPath?: string } | undefined)?.backupPath ?? '';
  if (!path) {
    write({ type: 'Failed', status: 'True', reason: 'BackupPathIsEmpty', message: `backup path is empty` });
    throw new Error('backup path is empty');
  }
  yield 2000;
  const loc = s3LocationOf(backup.spec);
  try {
    if (!loc) throw new Error(`backup ${ns}/${name} names no S3 storage`);
    const who = podCredentials(ctx.store, pod, container, ctx.s3.knownRoles(), ctx.podIdentity);
    const under = loc.prefix ? `${loc.prefix}/` : '';
    ctx.s3.delete(who, loc.bucket, ctx.s3.list(who, loc.bucket, under).map((o) => o.key), podId(pod));
    const left = ctx.s3.list(who, loc.bucket, under);
    if (left.length > 0) throw new Error(`${left.length} objects left under ${path}`);
  } catch (err) {
    const f = failWith('CleanBackupDataFailed', err);
    write({ type: 'CleanFailed', status: 'True', reason: f.reason, message: f.message });
    throw new Error(f.message);
  }
  write({ type: 'Clean', status: 'True' });
}
