/**
 * The exporter's output side: coalesced triggers go out in one send per flush window, and the
 * watch positions they cover are checkpointed only after that send succeeded. A failed send puts
 * its triggers back and retries with backoff without moving any checkpoint, so nothing the
 * watches delivered can be lost between the watch and the queue.
 */
import type { BackoffPolicy } from '../model/config.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { ReconcileQueue } from '../queue/port.js';
import type { StateStore } from '../state/port.js';
import { backoffDelayMs } from '../step/backoff.js';
import { Checkpoints, errorText, type Positions } from './checkpoints.js';
import { Coalescer, reasonText, type PendingTrigger } from './coalescer.js';
import { EXPORTER_METRIC, type ExporterMetrics } from './ports.js';
import { EarliestTimer } from './timers.js';

/** What the flusher is wired to. */
export type FlusherDeps = { queue: ReconcileQueue; state: StateStore; clock: Clock; logger: Logger; metrics: ExporterMetrics };

/** Flush settings (see `ExporterOptions` for their meaning and defaults). */
export type FlusherSettings = {
  k8sCluster: string;
  flushWindowMs: number;
  checkpointIntervalMs: number;
  backoff: BackoffPolicy;
  random: () => number;
};

/** Coalesces triggers, sends them on a clock timer, then checkpoints; see the module comment. */
export class Flusher {
  private readonly coalescer = new Coalescer();
  /** The positions and their checkpoints; the exporter loads from and reports through it. */
  readonly checkpoints: Checkpoints;
  private readonly timer: EarliestTimer;
  private flushing: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private sendFailures = 0;
  private closed = false;

  constructor(
    private readonly deps: FlusherDeps,
    private readonly settings: FlusherSettings,
  ) {
    this.checkpoints = new Checkpoints(deps, settings.k8sCluster, settings.checkpointIntervalMs);
    this.timer = new EarliestTimer(deps.clock, () => {
      // Nothing awaits a timer's flush: a failure must be logged, never left unhandled.
      this.flush(false).catch((err: unknown) => deps.logger.error('exporter flush failed', { error: errorText(err) }));
    });
  }

  /** Adds a trigger for `key` (asking for a TiDB Operator re-check when `checkTidbOperator`); it goes out within one flush window. */
  trigger(key: string, reason: string, checkTidbOperator = false): void {
    this.coalescer.add(key, reason, checkTidbOperator);
    if (!this.closed) this.timer.schedule(this.settings.flushWindowMs);
  }

  /** Records a resource's new position; a checkpoint follows within the checkpoint interval. */
  see(resource: string, resourceVersion: string): void {
    this.checkpoints.see(resource, resourceVersion);
    if (!this.closed) this.timer.schedule(this.settings.checkpointIntervalMs);
  }

  /** Stops the timer for good; later work happens only through explicit `flush` calls. */
  close(): void {
    this.closed = true;
    this.timer.cancel();
  }

  /**
   * Sends what is pending now, then writes the positions it covers (each resource at most once per
   * checkpoint interval unless `force`). Flushes run one at a time, in call order.
   */
  flush(force: boolean): Promise<void> {
    this.inFlight++;
    const run = this.flushing.then(() => this.flushOnce(force)).finally(() => this.inFlight--);
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /**
   * Whether every trigger seen is sent: none pending, no flush running, the last send not failed (a
   * checkpoint may still lag: a restart from it re-sends, never skips).
   */
  get settled(): boolean {
    return this.coalescer.size() === 0 && this.inFlight === 0 && this.sendFailures === 0;
  }

  /** Whether a flush is running or queued (its sends and checkpoint writes are I/O in flight). */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  private async flushOnce(force: boolean): Promise<void> {
    this.timer.cancel();
    // Taken together, synchronously: every trigger of an event at or before these positions is taken.
    const positions: Positions = this.checkpoints.snapshot();
    const triggers = this.coalescer.take();
    if (triggers.length > 0 && !(await this.send(triggers))) {
      this.sendFailures += 1;
      if (!this.closed) this.timer.schedule(backoffDelayMs(this.sendFailures, this.settings.backoff, this.settings.random));
      return;
    }
    this.sendFailures = 0;
    const dueAtMs = await this.checkpoints.write(positions, force);
    if (this.closed) return;
    if (this.coalescer.size() > 0) this.timer.schedule(this.settings.flushWindowMs);
    else if (dueAtMs !== undefined) this.timer.schedule(dueAtMs - this.deps.clock.nowMs());
    // A checkpoint write failed: try again later, never in a tight loop (the interval may be 0).
    else if (this.checkpoints.hasUnwritten()) this.timer.schedule(Math.max(this.settings.checkpointIntervalMs, this.settings.flushWindowMs));
  }

  /** Sends one message per trigger; on failure puts them back and says so. */
  private async send(triggers: PendingTrigger[]): Promise<boolean> {
    const enqueuedAtMs = this.deps.clock.nowMs();
    try {
      await this.deps.queue.send(triggers.map((t) => ({ message: { key: t.key, reason: reasonText(t), enqueuedAtMs, ...(t.checkTidbOperator === true ? { checkTidbOperator: true as const } : {}) } })));
      this.deps.metrics.count(EXPORTER_METRIC.messagesSent, triggers.length);
      return true;
    } catch (err) {
      this.coalescer.restore(triggers);
      this.deps.metrics.count(EXPORTER_METRIC.sendErrors);
      this.deps.logger.warn('exporter send failed; keys stay pending', { keys: triggers.length, error: errorText(err) });
      return false;
    }
  }
}
