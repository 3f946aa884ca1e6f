/**
 * The log-backup tasks the simulated TiKV cluster runs (BR's `br log start` registers one in PD;
 * TiKV streams the KV changes to the storage and advances the task's checkpoint). Every minute a
 * running task flushes: it writes `<prefix>/v1/backupmeta/<flushMs>.meta` (the dataset's history
 * over the flushed interval) and the global checkpoint `<prefix>/v1/global_checkpoint/<task>.ts`.
 * A flush that cannot reach PD (no leader) or S3 leaves the checkpoint where it was. Pausing stops
 * the flushes; stopping removes the task.
 */
import type { Clock, TimerHandle } from '../../platform/clock.js';
import type { Datasets } from './dataset.js';
import type { S3Credentials, SimS3 } from './s3.js';
import type { S3Location } from './storage.js';
import { keyUnder } from './storage.js';

/** How often a running task flushes (TiKV's log-backup flush interval is 3 min by default; shorter here for stories). */
export const LOG_FLUSH_INTERVAL_MS = 60_000;

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
    this.schedule(t);
    return t;
  }

  /** Pauses (flushing first) or resumes a task. */
  setPaused(t: LogTask, paused: boolean): void {
    if (paused) {
      this.flush(t);
      if (t.timer) this.clock.clearTimer(t.timer);
      t.state = 'paused';
    } else {
      t.state = 'running';
      this.schedule(t);
    }
  }

  /** Stops a task (a last flush, then it is gone). */
  stop(t: LogTask): void {
    if (t.state === 'running') this.flush(t);
    if (t.timer) this.clock.clearTimer(t.timer);
    this.tasks.delete(`${t.clusterNamespace}/${t.cluster}/${t.name}`);
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
    } catch {
      // TiKV retries at the next flush; the checkpoint stays behind meanwhile.
    }
  }
}
