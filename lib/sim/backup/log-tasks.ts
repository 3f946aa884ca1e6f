/**
 * The log-backup tasks the simulated TiKV cluster runs (BR's `br log start` registers one in PD;
 * TiKV streams the KV changes to the storage and advances the task's checkpoint). Every minute a
 * running task flushes: it writes `<prefix>/v1/backupmeta/<flushMs>.meta` (the dataset's history
 * over the flushed interval) and the global checkpoint `<prefix>/v1/global_checkpoint/<task>.ts`.
 * A flush that cannot reach PD (no leader) or S3 leaves the checkpoint where it was. Pausing stops
 * the flushes; stopping removes the task.
 *
 * The task also lives in PD's etcd, where BR and TiKV keep it (br/pkg/streamhelper/models.go in
 * pingcap/tidb) and where TiDB Operator's tracker reads it: `/tidb/br-stream/info/<task>` while
 * registered (BR stores the task's protobuf there; the simulation stores a JSON summary — readers
 * only test that the key exists), `/tidb/br-stream/checkpoint/<task>/central_global` = the global
 * checkpoint TSO as 8 bytes big-endian (written by the checkpoint advancer at each flush),
 * `/tidb/br-stream/pause/<task>` while paused (BR's V2 pause info, severity MANUAL). Stopping
 * deletes the task's keys.
 */
import type { Clock, TimerHandle } from '../../platform/clock.js';
import { type Datasets, tsoOf } from './dataset.js';
import type { S3Credentials, SimS3 } from './s3.js';
import type { S3Location } from './storage.js';
import { keyUnder } from './storage.js';

/** How often a running task flushes (TiKV's log-backup flush interval is 3 min by default; shorter here for stories). */
export const LOG_FLUSH_INTERVAL_MS = 60_000;

/** The prefix of every log-backup key in PD's etcd. */
export const BR_STREAM_PREFIX = '/tidb/br-stream';

/** What the tasks write in a cluster's PD etcd (the simulated PD's `EtcdKv`). */
export type StreamKeys = { put(key: string, value: Buffer): void; delete(key: string, prefix?: boolean): number };

/** The checkpoint TSO as BR's advancer stores it: 8 bytes, big-endian. */
export function checkpointBytes(ms: number): Buffer {
  const value = Buffer.alloc(8);
  value.writeBigUInt64BE(BigInt(tsoOf(ms)));
  return value;
}

/** One registered task. */
export type LogTask = { readonly name: string; readonly clusterNamespace: string; readonly cluster: string; readonly loc: S3Location; readonly who: S3Credentials; readonly startMs: number; checkpointMs: number; state: 'running' | 'paused'; timer?: TimerHandle };

/** The log-backup tasks of every cluster. */
export class LogTasks {
  private readonly tasks = new Map<string, LogTask>();

  constructor(
    private readonly clock: Clock,
    private readonly s3: SimS3,
    private readonly datasets: Datasets,
    private readonly pdUp: (namespace: string, cluster: string) => boolean,
    private readonly etcdOf: (namespace: string, cluster: string) => StreamKeys | undefined = () => undefined,
  ) {}

  /** The task `name` of a cluster, if registered. */
  get(clusterNamespace: string, cluster: string, name: string): LogTask | undefined {
    return this.tasks.get(`${clusterNamespace}/${cluster}/${name}`);
  }

  /** Registers and starts a task; BR refuses a second task of the same name. */
  start(task: Omit<LogTask, 'checkpointMs' | 'state' | 'timer'>): LogTask {
    const key = `${task.clusterNamespace}/${task.cluster}/${task.name}`;
    if (this.tasks.has(key)) throw new Error(`[BR:Stream:ErrStreamTaskExists]stream task ${task.name} already exists`);
    const t: LogTask = { ...task, checkpointMs: task.startMs, state: 'running' };
    this.tasks.set(key, t);
    this.s3.put(task.who, task.loc.bucket, keyUnder(task.loc, `v1/global_checkpoint/${task.name}.ts`), 8, { checkpointMs: t.checkpointMs });
    const info = { name: task.name, start_ts: tsoOf(task.startMs), storage: `s3://${task.loc.bucket}/${task.loc.prefix}`, table_filter: ['*.*'] };
    this.etcdOf(task.clusterNamespace, task.cluster)?.put(`${BR_STREAM_PREFIX}/info/${task.name}`, Buffer.from(JSON.stringify(info)));
    this.schedule(t);
    return t;
  }

  /** Pauses (flushing first) or resumes a task. */
  setPaused(t: LogTask, paused: boolean): void {
    const etcd = this.etcdOf(t.clusterNamespace, t.cluster);
    if (paused) {
      this.flush(t);
      if (t.timer) this.clock.clearTimer(t.timer);
      t.state = 'paused';
      const pause = { severity: 'MANUAL', operation_hostname: 'backup-manager', operation_pid: 1, operation_time: new Date(this.clock.nowMs()).toISOString(), payload_type: '', payload: null };
      etcd?.put(`${BR_STREAM_PREFIX}/pause/${t.name}`, Buffer.from(JSON.stringify(pause)));
    } else {
      t.state = 'running';
      etcd?.delete(`${BR_STREAM_PREFIX}/pause/${t.name}`);
      this.schedule(t);
    }
  }

  /** Stops a task (a last flush, then it is gone). */
  stop(t: LogTask): void {
    if (t.state === 'running') this.flush(t);
    if (t.timer) this.clock.clearTimer(t.timer);
    this.tasks.delete(`${t.clusterNamespace}/${t.cluster}/${t.name}`);
    const etcd = this.etcdOf(t.clusterNamespace, t.cluster);
    etcd?.delete(`${BR_STREAM_PREFIX}/info/${t.name}`);
    etcd?.delete(`${BR_STREAM_PREFIX}/pause/${t.name}`);
    etcd?.delete(`${BR_STREAM_PREFIX}/checkpoint/${t.name}/`, true);
    etcd?.delete(`${BR_STREAM_PREFIX}/last-error/${t.name}/`, true);
  }

  /** Stops every timer (the world is stopping). */
  close(): void {
    for (const t of this.tasks.values()) if (t.timer) this.clock.clearTimer(t.timer);
  }

  private schedule(t: LogTask): void {
    t.timer = this.clock.setTimer(() => {
      if (t.state !== 'running') return;
      this.flush(t);
      this.schedule(t);
    }, LOG_FLUSH_INTERVAL_MS);
  }

  private flush(t: LogTask): void {
    const now = this.clock.nowMs();
    if (now <= t.checkpointMs || !this.pdUp(t.clusterNamespace, t.cluster)) return;
    try {
      const segments = this.datasets.segmentsBetween(t.clusterNamespace, t.cluster, t.checkpointMs, now);
      this.s3.put(t.who, t.loc.bucket, keyUnder(t.loc, `v1/backupmeta/${now}.meta`), 4096, { fromMs: t.checkpointMs, toMs: now, segments });
      this.s3.put(t.who, t.loc.bucket, keyUnder(t.loc, `v1/global_checkpoint/${t.name}.ts`), 8, { checkpointMs: now });
      t.checkpointMs = now;
      this.etcdOf(t.clusterNamespace, t.cluster)?.put(`${BR_STREAM_PREFIX}/checkpoint/${t.name}/central_global`, checkpointBytes(now));
    } catch {
      // TiKV retries at the next flush; the checkpoint stays behind meanwhile.
    }
  }
}
