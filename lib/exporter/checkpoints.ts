/**
 * Watch positions and their checkpoints. `see` records how far each watched resource has been read
 * (every event, dropped or not, and every bookmark moves it); `write` persists a snapshot of those
 * positions taken *before* the send that covered them, so a checkpoint never runs ahead of what
 * was sent: after a crash the exporter resumes at or before the last sent event and may re-send,
 * never skip (at-least-once).
 */
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { StateStore } from '../state/port.js';
import { EXPORTER_METRIC, type ExporterMetrics } from './ports.js';

/** The last written checkpoint of one resource, and when it was written (on the exporter's clock). */
type Written = { resourceVersion: string; atMs: number };

/** Positions by resource name: the resourceVersion up to which everything was handled. */
export type Positions = ReadonlyMap<string, string>;

/** Reads and writes the exporter's checkpoints for one Kubernetes cluster. */
export class Checkpoints {
  private readonly seen = new Map<string, string>();
  private readonly written = new Map<string, Written>();

  constructor(
    private readonly deps: { state: StateStore; clock: Clock; logger: Logger; metrics: ExporterMetrics },
    private readonly k8sCluster: string,
    private readonly minIntervalMs: number,
  ) {}

  /** The stored checkpoint of `resource` (undefined if none); it becomes the known written one. */
  async load(resource: string): Promise<string | undefined> {
    const rv = await this.deps.state.getCheckpoint(this.k8sCluster, resource);
    // -Infinity: the first position after a restart may be written at once.
    if (rv !== undefined) this.written.set(resource, { resourceVersion: rv, atMs: -Infinity });
    return rv;
  }

  /** Records that `resource` has been handled up to `resourceVersion`. */
  see(resource: string, resourceVersion: string): void {
    if (resourceVersion) this.seen.set(resource, resourceVersion);
  }

  /** A copy of the current positions, to checkpoint once what was pending with them is sent. */
  snapshot(): Positions {
    return new Map(this.seen);
  }

  /** The positions written so far that equal the current ones (nothing unwritten behind them). */
  settled(): Positions {
    return new Map([...this.seen].filter(([resource, rv]) => this.written.get(resource)?.resourceVersion === rv));
  }

  /**
   * Writes each position of `positions` that differs from its stored checkpoint, unless that
   * checkpoint was written less than `minIntervalMs` ago (then it waits, unless `force`). Failed
   * writes are counted and logged, never thrown: the position is simply written later. Returns the
   * earliest time a waiting position becomes due, if any.
   */
  async write(positions: Positions, force: boolean): Promise<number | undefined> {
    const nowMs = this.deps.clock.nowMs();
    let dueAtMs: number | undefined;
    const writes: Promise<void>[] = [];
    for (const [resource, rv] of positions) {
      const last = this.written.get(resource);
      if (last?.resourceVersion === rv) continue;
      const lastAtMs = last?.atMs ?? -Infinity;
      if (!force && nowMs - lastAtMs < this.minIntervalMs) {
        dueAtMs = Math.min(dueAtMs ?? Infinity, lastAtMs + this.minIntervalMs);
        continue;
      }
      writes.push(this.put(resource, rv, nowMs));
    }
    await Promise.all(writes);
    return dueAtMs;
  }

  /** True when some position has not been written yet. */
  hasUnwritten(): boolean {
    return [...this.seen].some(([resource, rv]) => this.written.get(resource)?.resourceVersion !== rv);
  }

  private async put(resource: string, rv: string, nowMs: number): Promise<void> {
    try {
      await this.deps.state.putCheckpoint(this.k8sCluster, resource, rv);
      this.written.set(resource, { resourceVersion: rv, atMs: nowMs });
      this.deps.metrics.count(EXPORTER_METRIC.checkpointsWritten);
    } catch (err) {
      this.deps.metrics.count(EXPORTER_METRIC.checkpointErrors);
      this.deps.logger.warn('exporter checkpoint not written', { resource, resourceVersion: rv, error: errorText(err) });
    }
  }
}

/** An error as one log field: its name and message (never a stack or a request with credentials). */
export function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
