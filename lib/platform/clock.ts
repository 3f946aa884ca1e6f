/**
 * Clocks. Everything that waits or reads the time takes a `Clock`, so the same code runs on the real
 * clock (Lambda, `npm start`, `sim serve`) and on a virtual clock (`simulate`, tests) where time only
 * moves when the owner advances it.
 */

/** A handle to a scheduled callback; pass it to `clearTimer`. */
export type TimerHandle = { readonly id: number };

/** The one time source. `nowMs` is milliseconds since the Unix epoch. */
export interface Clock {
  nowMs(): number;
  /** Runs `fn` once after `afterMs` (≥ 0). */
  setTimer(fn: () => void, afterMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
  /** Resolves after `afterMs` of this clock's time. */
  sleep(afterMs: number): Promise<void>;
}

/** Wall-clock time with Node timers. Timers are unref'd so they never keep a process alive alone. */
export class RealClock implements Clock {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private nextId = 1;

  nowMs(): number {
    return Date.now();
  }

  setTimer(fn: () => void, afterMs: number): TimerHandle {
    const id = this.nextId++;
    const t = setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, Math.max(0, afterMs));
    t.unref();
    this.timers.set(id, t);
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }

  sleep(afterMs: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, afterMs)));
  }
}

type VirtualTimer = { id: number; atMs: number; seq: number; fn: () => void };

/**
 * Virtual time: `nowMs` moves only through `advance`/`advanceTo`, which fire due timers in time order
 * (ties in scheduling order) and let promise continuations run between them, so async code scheduled
 * by a timer observes the time at which it fired.
 */
export class VirtualClock implements Clock {
  private now: number;
  private timers: VirtualTimer[] = [];
  private nextId = 1;
  private seq = 0;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }

  setTimer(fn: () => void, afterMs: number): TimerHandle {
    const id = this.nextId++;
    this.timers.push({ id, atMs: this.now + Math.max(0, afterMs), seq: this.seq++, fn });
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle.id);
  }

  sleep(afterMs: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, afterMs));
  }

  /** The time of the earliest pending timer, if any. */
  nextTimerAtMs(): number | undefined {
    let best: number | undefined;
    for (const t of this.timers) if (best === undefined || t.atMs < best) best = t.atMs;
    return best;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.now + ms);
  }

  /** Moves time to `targetMs` (never backwards), firing due timers in order. */
  async advanceTo(targetMs: number): Promise<void> {
    await settle();
    for (;;) {
      const due = this.popDue(targetMs);
      if (!due) break;
      this.now = Math.max(this.now, due.atMs);
      due.fn();
      await settle();
    }
    this.now = Math.max(this.now, targetMs);
    await settle();
  }

  private popDue(targetMs: number): VirtualTimer | undefined {
    let idx = -1;
    for (let i = 0; i < this.timers.length; i++) {
      const t = this.timers[i];
      if (!t || t.atMs > targetMs) continue;
      const best = idx >= 0 ? this.timers[idx] : undefined;
      if (!best || t.atMs < best.atMs || (t.atMs === best.atMs && t.seq < best.seq)) idx = i;
    }
    if (idx < 0) return undefined;
    const [due] = this.timers.splice(idx, 1);
    return due;
  }
}

/** Lets pending promise continuations and I/O callbacks run (a macrotask turn). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
