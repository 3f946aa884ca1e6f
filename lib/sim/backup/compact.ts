/**
 * The compaction run of the simulated backup-manager (`compact --namespace --resourceName`,
 * cmd/backup-manager/app/compact/manager.go on release-1.6): parse `startTs`/`endTs` (the pod's own
 * checks, options.go), `br operator base64ify` the storage, then `tikv-ctl compact-log-backup
 * --from --until -N <concurrency>` over the log backup under the prefix: every flushed log
 * metadata file (`v1/backupmeta/*.meta`) overlapping [from, until] is read (READ_META) and its
 * writes compacted into SSTs (COMPACT_WORK, bytes), taking virtual time by size. Outputs go where
 * TiKV's compact-log-backup puts them: `v1/compaction_out/<name>/outputs/*.sst`, their
 * `v1/compaction_out/<name>/metas/*.cmeta`, and one migration `v1/migrations/<n>_<name>.mgrt`
 * naming them. Status as v1's `CompactStatusUpdater`: Running (Event `Started`), progress
 * `[READ_META(a/b),COMPACT_WORK(c/d)]` at most every 3 s, `endTs` the largest input ts, then
 * Complete (Event `Finished`) — or, on any error, RetryFailed with the message and a
 * `backoffRetryStatus` record (Event `Failed(Retryable)`) and exit 1, so the kubelet restarts the
 * container (restartPolicy OnFailure) until the Job's backoffLimit. A killed pod just stops; the
 * next pod compacts again into the same keys.
 */
import { rfc3339 } from '../object.js';
import type { KubeObject } from '../object.js';
import { BrError, type BackupContext } from './cluster.js';
import { DEFAULT_BYTES_PER_WRITE, type Segment, msOfTs, pointIn, tsoOf } from './dataset.js';
import type { Script } from './process.js';
import { S3Error, type S3Credentials } from './s3.js';
import { type ManagerArgs, podId } from './snapshot.js';
import type { CrClient } from './status.js';
import { type S3Location, StorageSetupError, keyUnder, podCredentials, s3LocationOf } from './storage.js';

// tikv-ctl's start-up (base64ify, loading the storage) and its compaction throughput in the simulation.
const COMPACT_STARTUP_MS = 5_000;
const COMPACT_BYTES_PER_MS = (10 * 1024 * 1024) / 1000;
// v1's progressDebounceDuration.
const PROGRESS_DEBOUNCE_MS = 3_000;

/** One flushed log metadata file as the log task wrote it. */
type LogMeta = { readonly key: string; readonly fromMs: number; readonly toMs: number; readonly segments: readonly Segment[] };

/** The bytes of writes a log metadata file covers (the workload's writes between its ends). */
export function logMetaBytes(meta: Pick<LogMeta, 'fromMs' | 'toMs' | 'segments'>): number {
  const from = pointIn(meta.segments, meta.fromMs)?.version ?? 0;
  const to = pointIn(meta.segments, meta.toMs)?.version ?? 0;
  return Math.max(0, to - from) * DEFAULT_BYTES_PER_WRITE;
}

/** The compaction run. */
export function* compactRun(ctx: BackupContext, pod: KubeObject, client: CrClient, args: ManagerArgs): Script {
  const ns = args.namespace ?? '';
  const name = args.resourceName ?? '';
  const compact = client.get('CompactBackup', ns, name);
  const status = (changes: Record<string, unknown>): void => client.updateStatus('CompactBackup', ns, name, (s) => mergeStatus(s, changes));
  try {
    const spec = (compact.spec ?? {}) as { startTs?: string; endTs?: string; concurrency?: number };
    const range = parseRange(spec.startTs ?? '', spec.endTs ?? '', spec.concurrency ?? 0);
    const loc = s3LocationOf(compact.spec);
    if (!loc) throw new BrError('[BR:ExternalStorage:ErrStorageInvalidConfig]invalid external storage config: no S3 storage given');
    const who = podCredentials(ctx.store, pod, 'backup-manager', ctx.s3.knownRoles(), ctx.podIdentity);
    yield COMPACT_STARTUP_MS;
    const metas = readMetas(ctx, who, loc, range);
    client.event(compact, 'Normal', 'Started', 'The compaction process has started successfully.', 'compact-manager');
    status({ state: 'Running' });
    const total = metas.reduce((sum, m) => sum + logMetaBytes(m), 0);
    const label = `${tsoOf(range.fromMs)}_${tsoOf(range.untilMs)}`;
    let done = 0;
    let lastProgressMs = -Infinity;
    const outputs: string[] = [];
    for (const [i, meta] of metas.entries()) {
      const bytes = logMetaBytes(meta);
      yield Math.ceil(bytes / COMPACT_BYTES_PER_MS) + 100;
      outputs.push(...writeCompacted(ctx, who, loc, label, i + 1, meta, bytes, podId(pod)));
      done += bytes;
      if (ctx.clock.nowMs() - lastProgressMs >= PROGRESS_DEBOUNCE_MS) {
        status({ progress: `[READ_META(${i + 1}/${metas.length}),COMPACT_WORK(${done}/${total})]` });
        lastProgressMs = ctx.clock.nowMs();
      }
    }
    if (metas.length > 0) {
      ctx.s3.put(who, loc.bucket, keyUnder(loc, `v1/migrations/${String(nextMigration(ctx, who, loc)).padStart(8, '0')}_${label}.mgrt`), 256, { compactions: [{ name: label, fromTs: tsoOf(range.fromMs), untilTs: tsoOf(range.untilMs), inputs: metas.map((m) => m.key), outputs }] });
    }
    const endMs = Math.max(0, ...metas.map((m) => m.toMs));
    status({ progress: `[READ_META(${metas.length}/${metas.length}),COMPACT_WORK(${total}/${total})]`, ...(endMs > 0 ? { endTs: tsoOf(endMs) } : {}) });
    status({ state: 'Complete' });
    client.event(compact, 'Normal', 'Finished', 'The compaction process has finished successfully.', 'compact-manager');
  } catch (err) {
    const message = err instanceof BrError || err instanceof S3Error || err instanceof StorageSetupError || err instanceof Error ? err.message : String(err);
    client.event(compact, 'Warning', 'Failed(Retryable)', message, 'compact-manager');
    status({ state: 'RetryFailed', message, retry: { detectFailedAt: rfc3339(ctx.clock.nowMs()), retryReason: message } });
    throw new Error(message);
  }
}

/** The pod's option checks (`ParseCompactOptions` / `Verify`), with its messages. */
function parseRange(startTs: string, endTs: string, concurrency: number): { fromMs: number; untilMs: number } {
  const fromMs = startTs === '' ? undefined : msOfTs(startTs);
  if (fromMs === undefined) throw new Error(`failed to parse compact options: failed to parse startTs ${startTs}`);
  const untilMs = endTs === '' ? 0 : msOfTs(endTs);
  if (untilMs === undefined) throw new Error(`failed to parse compact options: failed to parse endTs ${endTs}`);
  if (untilMs < fromMs) {
    if (untilMs === 0) throw new Error('failed to parse compact options: until-ts must be set');
    throw new Error(`failed to parse compact options: until-ts ${tsoOf(untilMs)} must be greater than from-ts ${tsoOf(fromMs)}`);
  }
  if (concurrency <= 0) throw new Error(`failed to parse compact options: concurrency ${concurrency} must be greater than 0`);
  return { fromMs, untilMs };
}

/** The log metadata files with a write in [from, until] (a file overlapping the range is compacted whole, as tikv-ctl does). */
function readMetas(ctx: BackupContext, who: S3Credentials, loc: S3Location, range: { fromMs: number; untilMs: number }): LogMeta[] {
  const metas: LogMeta[] = [];
  for (const o of ctx.s3.list(who, loc.bucket, keyUnder(loc, 'v1/backupmeta/'))) {
    const body = (o.body ?? {}) as { fromMs?: unknown; toMs?: unknown; segments?: unknown };
    if (typeof body.fromMs !== 'number' || typeof body.toMs !== 'number' || !Array.isArray(body.segments)) continue;
    if (body.fromMs < range.untilMs && body.toMs > range.fromMs) metas.push({ key: o.key, fromMs: body.fromMs, toMs: body.toMs, segments: body.segments as Segment[] });
  }
  return metas;
}

/** Writes one meta file's compacted SST and its compaction meta; returns the SST key. */
function writeCompacted(ctx: BackupContext, who: S3Credentials, loc: S3Location, label: string, n: number, meta: LogMeta, bytes: number, by: string): string[] {
  const sst = keyUnder(loc, `v1/compaction_out/${label}/outputs/${n}.sst`);
  ctx.s3.put(who, loc.bucket, sst, bytes, { fromMs: meta.fromMs, toMs: meta.toMs, segments: meta.segments, by });
  ctx.s3.put(who, loc.bucket, keyUnder(loc, `v1/compaction_out/${label}/metas/${n}.cmeta`), 512, { input: meta.key, output: sst, inputMaxTs: tsoOf(meta.toMs) });
  return [sst];
}

/** The next migration sequence number under the prefix (migrations are numbered in order). */
function nextMigration(ctx: BackupContext, who: S3Credentials, loc: S3Location): number {
  return ctx.s3.list(who, loc.bucket, keyUnder(loc, 'v1/migrations/')).length + 1;
}

/**
 * v1's `UpdateStatus` merge: `state` and a non-empty `message` when they change; `progress` when it
 * changes (the caller debounces); a retry record appended numbered by the records so far; `endTs`
 * only when it grows.
 */
export function mergeStatus(status: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const next = { ...status };
  if (typeof changes.state === 'string') next.state = changes.state;
  if (typeof changes.message === 'string' && changes.message !== '') next.message = changes.message;
  if (typeof changes.progress === 'string') next.progress = changes.progress;
  if (typeof changes.endTs === 'string' && BigInt(changes.endTs) > BigInt(typeof status.endTs === 'string' && /^\d+$/.test(status.endTs) ? status.endTs : '0')) next.endTs = changes.endTs;
  const retry = changes.retry as { detectFailedAt: string; retryReason: string } | undefined;
  if (retry) {
    const records = Array.isArray(status.backoffRetryStatus) ? (status.backoffRetryStatus as unknown[]) : [];
    next.backoffRetryStatus = [...records, { retryNum: records.length, ...retry }];
  }
  return next;
}
