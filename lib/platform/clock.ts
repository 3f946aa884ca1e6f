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
  /** Pending timers as a binary min-heap on (atMs, seq); a cleared timer is dropped when it surfaces. */
  private readonly heap: VirtualTimer[] = [];
  private readonly pending = new Set<number>();
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
    this.pending.add(id);
    heapPush(this.heap, { id, atMs: this.now + Math.max(0, afterMs), seq: this.seq++, fn });
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    this.pending.delete(handle.id);
    // Cleared timers wait in the heap until they surface; rebuild it before they outnumber the rest.
    if (this.heap.length > 2 * this.pending.size + 1024) {
      const live = this.heap.filter((t) => this.pending.has(t.id)).sort((x, y) => (before(x, y) ? -1 : 1));
      this.heap.length = 0;
      for (const t of live) this.heap.push(t);
    }
  }

  sleep(afterMs: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, afterMs));
  }

  /** The time of the earliest pending timer, if any. */
  nextTimerAtMs(): number | undefined {
    return this.peek()?.atMs;
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

  /** The earliest pending timer, dropping cleared ones on the way. */
  private peek(): VirtualTimer | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top || this.pending.has(top.id)) return top;
      heapPop(this.heap);
    }
  }

  private popDue(targetMs: number): VirtualTimer | undefined {
    const top = this.peek();
    if (!top || top.atMs > targetMs) return undefined;
    heapPop(this.heap);
    this.pending.delete(top.id);
    return top;
  }
}

function before(a: VirtualTimer, b: VirtualTimer): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}

function heapPush(heap: VirtualTimer[], t: VirtualTimer): void {
  heap.push(t);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = heap[parent] as VirtualTimer;
    if (!before(t, p)) break;
    heap[i] = p;
    i = parent;
  }
  heap[i] = t;
}

function heapPop(heap: VirtualTimer[]): void {
  const last = heap.pop();
  if (!last || heap.length === 0) return;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= heap.length) break;
    const r = l + 1;
    const child = r < heap.length && before(heap[r] as VirtualTimer, heap[l] as VirtualTimer) ? r : l;
    if (!before(heap[child] as VirtualTimer, last)) break;
    heap[i] = heap[child] as VirtualTimer;
    i = child;
  }
  heap[i] = last;
}

/** Lets pending promise continuations and I/O callbacks run (a macrotask turn). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
