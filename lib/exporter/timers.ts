/**
 * The two ways the exporter waits, both on the injected clock so tests run in virtual time: a
 * one-shot timer that can only be moved earlier (the flush timer), and sleeps that `stop` cuts
 * short (reconnect backoff), so stopping never waits out a backoff.
 */
import type { Clock, TimerHandle } from '../platform/clock.js';

/** A one-shot timer for `fn`; `schedule` keeps whichever due time is earlier. */
export class EarliestTimer {
  private handle: TimerHandle | undefined;
  private dueAtMs = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly fn: () => void,
  ) {}

  /** Arms the timer `afterMs` from now, unless it is already due sooner. */
  schedule(afterMs: number): void {
    const dueAtMs = this.clock.nowMs() + Math.max(0, afterMs);
    if (this.handle && this.dueAtMs <= dueAtMs) return;
    this.cancel();
    this.dueAtMs = dueAtMs;
    this.handle = this.clock.setTimer(() => {
      this.handle = undefined;
      this.dueAtMs = Infinity;
      this.fn();
    }, dueAtMs - this.clock.nowMs());
  }

  cancel(): void {
    if (this.handle) this.clock.clearTimer(this.handle);
    this.handle = undefined;
    this.dueAtMs = Infinity;
  }
}

/** Sleeps on a clock that all end at once when `wakeAll` is called. */
export class Sleeps {
  private readonly waking = new Set<() => void>();
  private awake = false;

  constructor(private readonly clock: Clock) {}

  /** Resolves after `ms` on the clock, or at once after `wakeAll`. */
  sleep(ms: number): Promise<void> {
    if (this.awake) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.clock.clearTimer(handle);
        this.waking.delete(done);
        resolve();
      };
      const handle = this.clock.setTimer(done, ms);
      this.waking.add(done);
    });
  }

  /** Resolves at `wakeAll` (at once after it): a wait with no time bound that stopping still ends. */
  untilWoken(): Promise<void> {
    if (this.awake) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waking.delete(done);
        resolve();
      };
      this.waking.add(done);
    });
  }

  /** Ends every sleep now and every later one at once. */
  wakeAll(): void {
    this.awake = true;
    for (const done of [...this.waking]) done();
  }
}
