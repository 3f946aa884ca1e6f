/**
 * The clock the simulated stack's handlers run on: the stack's virtual clock, except that a handler
 * that sleeps (an in-call retry waiting out its backoff) lets virtual time pass until it wakes. The
 * runner does not move time while it waits for an invocation, so without this such a sleep would
 * never end; with it, the simulated world moves on meanwhile (pods start, monitors check, timers
 * fire), as the real one does while a Lambda waits.
 */
import type { Clock, TimerHandle, VirtualClock } from '../platform/clock.js';
import { invocationDeathCheck } from './mortal.js';

/** A `Clock` over a `VirtualClock` whose `sleep` drives that clock to the wake-up. */
export class HandlerClock implements Clock {
  /** Told when time starts (true) and stops (false) passing for sleeping handlers (the runner's phase). */
  onTimePassing: ((passing: boolean) => void) | undefined;
  private sleepers = 0;
  private driving = false;

  /** `settleWorld` resolves once the rest of the stack has caught up with the current instant. */
  constructor(
    private readonly clock: VirtualClock,
    private readonly settleWorld: () => Promise<void>,
  ) {}

  nowMs(): number {
    return this.clock.nowMs();
  }

  setTimer(fn: () => void, afterMs: number): TimerHandle {
    return this.clock.setTimer(fn, afterMs);
  }

  clearTimer(handle: TimerHandle): void {
    this.clock.clearTimer(handle);
  }

  /**
   * Resolves after `afterMs` of virtual time, moving the clock there (timer by timer, so everything
   * due on the way fires in order). Concurrent sleepers share one driver and wake in time order;
   * time stops passing (`onTimePassing(false)`) as the last one wakes, before it runs on. A sleeper
   * whose invocation was killed meanwhile never wakes (its process is gone).
   */
  async sleep(afterMs: number): Promise<void> {
    if (this.sleepers++ === 0) this.onTimePassing?.(true);
    const isDead = invocationDeathCheck();
    const woke = new Promise<void>((resolve) => {
      this.clock.setTimer(() => {
        if (--this.sleepers === 0) this.onTimePassing?.(false);
        if (!isDead()) resolve();
      }, afterMs);
    });
    void this.drive();
    await woke;
  }

  private async drive(): Promise<void> {
    if (this.driving) return;
    this.driving = true;
    try {
      while (this.sleepers > 0) {
        await this.settleWorld();
        const next = this.clock.nextTimerAtMs();
        // A sleeper's own timer is pending while it sleeps, so there is always a next timer.
        if (next === undefined) break;
        await this.clock.advanceTo(next);
      }
    } finally {
      this.driving = false;
    }
  }
}
