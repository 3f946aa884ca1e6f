/**
 * The restore run of the simulated backup-manager (cmd/backup-manager/app/restore/manager.go:82-351,
 * restore.go:53-200 on release-1.6): Running, then BR reads the `backupmeta` at the restore's storage,
 * refuses a cluster that is not fresh (BR's ErrRestoreNotFreshCluster, pingcap/tidb#45014 — unless
 * `br.checkRequirements: false`, which skips the check as pingcap/tidb#39387 reports), restores over
 * virtual time by the backup's size, and writes Complete with the backup's commitTs — or Failed
 * `RestoreDataFromRemoteFailed` with BR's message. PiTR (`--mode=pitr`) restores the full backup of
 * `pitrFullBackupStorageProvider` and replays the log backup at the main storage up to
 * `--pitrRestoredTs`, which must not lie past the log's checkpoint. With `to`, the GC life time is
 * raised around BR and set back after it as for a backup (gc-life-time.ts).
 */
import { rfc3339 } from '../object.js';
import type { KubeObject } from '../object.js';
import { type BackupContext, BrError, PD_CONNECT_TIMEOUT_MS, pdProblem } from './cluster.js';
import { msOfTs, tsoOf } from './dataset.js';
import { readLogUpTo } from './log-backup.js';
import type { Script } from './process.js';
import { S3Error } from './s3.js';
import { BACKUPMETA, type ManagerArgs, brDurationMs } from './snapshot.js';
import { type CrClient, type CrCondition, withCrCondition } from './status.js';
import { connectTidb, raiseGcLifeTime, resetGcLifeTime } from './gc-life-time.js';
import { StorageSetupError, keyUnder, podCredentials, s3LocationOf } from './storage.js';
import type { TidbAccess } from './tidb-db.js';

type Meta = { endVersion: string; files: { size: number }[]; dataset: { lineage: string; version: number; checksum: string; tsMs: number } };

/** The restore run of `restore --mode=snapshot|pitr`. */
export function* restoreRun(ctx: BackupContext, pod: KubeObject, client: CrClient, args: ManagerArgs, container = 'restore'): Script {
  const ns = args.namespace ?? '';
  const name = args.restoreName ?? '';
  const write = (c: CrCondition, extra: Record<string, unknown> = {}): void => client.updateStatus('Restore', ns, name, (s) => withCrCondition(s, c, ctx.clock.nowMs(), extra));
  const fail = (reason: string, message: string): never => {
    write({ type: 'Failed', status: 'True', reason, message });
    throw new Error(message);
  };
  const restore = client.get('Restore', ns, name);
  const br = restore.spec?.br as { cluster?: string; clusterNamespace?: string; checkRequirements?: boolean } | undefined;
  if (!br) throw new Error('no br config');
  // As v1: with `to`, TiDB is reached before Running is written (ConnectTidbFailed).
  const to = restore.spec?.to as TidbAccess | undefined;
  const db = to ? yield* connectTidb(ctx, pod, container, to, fail) : undefined;
  const startedMs = ctx.clock.nowMs();
  write({ type: 'Running', status: 'True' }, { timeStarted: rfc3339(startedMs) });
  const gc = db ? yield* raiseGcLifeTime(db, `${ns}/${name}`, restore.spec?.tikvGCLifeTime as string | undefined, fail) : undefined;
  const outcome = yield* runRestore(ctx, pod, restore, br, args, container);
  if (db && gc) {
    const resetError = yield* resetGcLifeTime(db, `${ns}/${name}`, gc);
    if (resetError !== undefined) return fail('ResetTikvGCLifeTimeFailed', resetError);
  }
  if ('failure' in outcome) return fail('RestoreDataFromRemoteFailed', outcome.failure);
  write({ type: 'Complete', status: 'True' }, { timeCompleted: rfc3339(ctx.clock.nowMs()), commitTs: outcome.commitTs });
}

/** BR's part: reads the backup (and the log for PiTR), checks the target is fresh, restores over virtual time; the restored commitTs or BR's message. */
function* runRestore(ctx: BackupContext, pod: KubeObject, restore: KubeObject, br: { cluster?: string; clusterNamespace?: string; checkRequirements?: boolean }, args: ManagerArgs, container: string): Generator<number, { commitTs: string } | { failure: string }, void> {
  const failure = (err: unknown): { failure: string } => ({ failure: err instanceof BrError || err instanceof S3Error || err instanceof StorageSetupError || err instanceof Error ? err.message : String(err) });
  const cluster = br.cluster ?? '';
  const clusterNs = br.clusterNamespace || (args.namespace ?? '');
  const pd = (): BrError | undefined => pdProblem(ctx, pod, cluster, clusterNs, args['cluster-tls'] === 'true');
  if (pd()) {
    yield PD_CONNECT_TIMEOUT_MS;
    const still = pd();
    if (still) return failure(still);
  }
  let target: { lineage: string; version: number; tsMs: number; sizeBytes: number };
  try {
    const who = podCredentials(ctx.store, pod, container, ctx.s3.knownRoles(), ctx.podIdentity);
    const pitr = args.mode === 'pitr';
    const fullLoc = s3LocationOf(pitr ? restore.spec?.pitrFullBackupStorageProvider : restore.spec);
    if (!fullLoc) throw new BrError('[BR:ExternalStorage:ErrStorageInvalidConfig]invalid external storage config: no S3 storage given');
    const meta = ctx.s3.get(who, fullLoc.bucket, keyUnder(fullLoc, BACKUPMETA)).body as Meta;
    const size = meta.files.reduce((sum, f) => sum + f.size, 0);
    target = { ...meta.dataset, sizeBytes: size };
    if (pitr) {
      const logLoc = s3LocationOf(restore.spec);
      const restoredMs = msOfTs(args.pitrRestoredTs ?? '');
      if (!logLoc || restoredMs === undefined) throw new BrError('[BR:Common:ErrInvalidArgument]--restored-ts is required for point-in-time restore');
      const replay = readLogUpTo(ctx.s3, who, logLoc, meta.dataset, restoredMs);
      target = { ...replay, sizeBytes: size + replay.logBytes };
    }
    if (br.checkRequirements !== false && ctx.datasets.hasData(clusterNs, cluster)) {
      throw new BrError(`[BR:Restore:ErrRestoreNotFreshCluster]user db/tables found in the target cluster ${cluster}-pd.${clusterNs}:2379, the cluster is not fresh: restore is only allowed into a fresh cluster`);
    }
  } catch (err) {
    return failure(err);
  }
  yield brDurationMs(target.sizeBytes);
  const late = pd();
  if (late) return failure(late);
  ctx.datasets.restore(clusterNs, cluster, target);
  return { commitTs: tsoOf(target.tsMs) };
}
