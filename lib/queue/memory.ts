/**
 * An in-process reconcile queue with the semantics of an SQS standard queue, measured on a `Clock` so it
 * runs in virtual time: per-message delay, visibility timeout and redelivery, receive counts, redrive to
 * a dead-letter list after `maxReceiveCount`, no ordering, and (for fault injection) duplicate delivery.
 * It keeps SQS's limits (batch ≤ 10, delay ≤ 900 s, wait ≤ 20 s) so nothing passes here that SQS rejects.
 */

import type { Clock } from '../platform/clock.js';
import { NotFoundError, TerminalError } from '../platform/errors.js';
import {
  checkReceiveMax,
  MAX_WAIT_SECONDS,
  normaliseDelaySeconds,
  normaliseVisibilitySeconds,
  type OutgoingMessage,
  type ReceivedRecord,
  type ReconcileQueue,
} from './port.js';

/** Queue settings; the defaults are SQS's (visibility 30 s, no redrive, no duplicates). */
export type MemoryQueueOptions = {
  clock: Clock;
  visibilityTimeoutSeconds?: number;
  /** Deliveries allowed before a message moves to the dead-letter list (SQS `maxReceiveCount`, 1–1000). */
  maxReceiveCount?: number;
  /**
   * Probability (0–1) that a sent message is stored twice under the same message id, each copy delivered
   * and deleted independently: SQS's at-least-once, on demand.
   */
  duplicateFactor?: number;
  /** Source of randomness for delivery order and duplicates; pass `seededRandom(n)` for repeatable runs. */
  random?: () => number;
};

/** A message that exceeded `maxReceiveCount`, as it would sit in the dead-letter queue. */
export type DeadLetter = { messageId: string; body: string; receiveCount: number; sentAtMs: number; movedAtMs: number };

/** Counts by state, like SQS's approximate-number-of-messages attributes (but exact). */
export type MemoryQueueStats = { visible: number; delayed: number; inFlight: number; deadLetters: number };

type Stored = {
  messageId: string;
  body: string;
  sentAtMs: number;
  visibleAtMs: number;
  receiveCount: number;
  /** Handle of the latest delivery; older handles no longer match, as in SQS. */
  handle: string | undefined;
};

/**
 * `ReconcileQueue` in memory. Receives long-poll on the clock: a receive with nothing visible waits until
 * a message is sent, a delay or visibility timeout ends, `waitMs` passes, or its signal aborts.
 */
export class MemoryReconcileQueue implements ReconcileQueue {
  private readonly clock: Clock;
  private readonly visibilityMs: number;
  private readonly maxReceiveCount: number | undefined;
  private readonly duplicateFactor: number;
  private readonly random: () => number;
  private messages: Stored[] = [];
  private readonly dead: DeadLetter[] = [];
  private readonly waiters = new Set<() => void>();
  private nextId = 1;

  constructor(options: MemoryQueueOptions) {
    this.clock = options.clock;
    this.visibilityMs = normaliseVisibilitySeconds(options.visibilityTimeoutSeconds ?? 30) * 1000;
    this.maxReceiveCount = options.maxReceiveCount;
    this.duplicateFactor = options.duplicateFactor ?? 0;
    this.random = options.random ?? Math.random;
    if (this.maxReceiveCount !== undefined && !(this.maxReceiveCount >= 1 && this.maxReceiveCount <= 1000)) {
      throw new TerminalError(`maxReceiveCount ${this.maxReceiveCount} is outside 1–1000`, {
        field: 'maxReceiveCount',
      });
    }
    if (!(this.duplicateFactor >= 0 && this.duplicateFactor <= 1)) {
      throw new TerminalError(`duplicateFactor ${this.duplicateFactor} is outside 0–1`, { field: 'duplicateFactor' });
    }
  }

  async send(messages: readonly OutgoingMessage[]): Promise<void> {
    const delays = messages.map((m) => normaliseDelaySeconds(m.delaySeconds)); // all or nothing, like sqs.ts
    const now = this.clock.nowMs();
    messages.forEach((m, i) => {
      const stored: Stored = {
        messageId: `mem-${this.nextId++}`,
        body: JSON.stringify(m.message),
        sentAtMs: now,
        visibleAtMs: now + (delays[i] ?? 0) * 1000,
        receiveCount: 0,
        handle: undefined,
      };
      this.messages.push(stored);
      if (this.duplicateFactor > 0 && this.random() < this.duplicateFactor) this.messages.push({ ...stored });
    });
    this.wake();
  }

  async receive(max: number, waitMs: number, signal?: AbortSignal): Promise<ReceivedRecord[]> {
    checkReceiveMax(max);
    const deadlineMs = this.clock.nowMs() + Math.min(Math.max(0, waitMs), MAX_WAIT_SECONDS * 1000);
    for (;;) {
      if (signal?.aborted) return [];
      const taken = this.take(max);
      const now = this.clock.nowMs();
      if (taken.length > 0 || now >= deadlineMs) return taken;
      const next = this.nextVisibleAtMs();
      await this.waitUntil(next === undefined ? deadlineMs : Math.min(next, deadlineMs), signal);
    }
  }

  async delete(receiptHandles: readonly string[]): Promise<void> {
    const handles = new Set(receiptHandles);
    this.messages = this.messages.filter((m) => m.handle === undefined || !handles.has(m.handle));
  }

  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    const visibilityMs = normaliseVisibilitySeconds(seconds) * 1000;
    const now = this.clock.nowMs();
    const m = this.messages.find((x) => x.handle === receiptHandle);
    // As SQS's MessageNotInflight: the handle must belong to the latest delivery, still invisible.
    if (!m || m.visibleAtMs <= now) throw new NotFoundError(`message for handle ${receiptHandle} is not in flight`);
    m.visibleAtMs = now + visibilityMs;
    if (visibilityMs === 0) this.wake();
  }

  /** Messages redriven so far (oldest first). */
  deadLetters(): DeadLetter[] {
    this.redrive(this.clock.nowMs());
    return [...this.dead];
  }

  /** Whether failures go to a dead-letter list (SQS: a redrive policy names a dead-letter queue). */
  get hasDeadLetterQueue(): boolean {
    return this.maxReceiveCount !== undefined;
  }

  /** Removes and returns the oldest `max` dead letters (what a message move task takes, oldest first). */
  takeDeadLetters(max: number): DeadLetter[] {
    this.redrive(this.clock.nowMs());
    return this.dead.splice(0, Math.max(0, max));
  }

  /**
   * Stores `bodies` as new messages, visible at once: a message move task's delivery, which SQS
   * makes a new message (new id, receive count 0) whatever the body is, well-formed or not.
   */
  requeue(bodies: readonly string[]): void {
    const now = this.clock.nowMs();
    for (const body of bodies) this.messages.push({ messageId: `mem-${this.nextId++}`, body, sentAtMs: now, visibleAtMs: now, receiveCount: 0, handle: undefined });
    if (bodies.length > 0) this.wake();
  }

  /** Exact counts by state at the clock's current time. */
  stats(): MemoryQueueStats {
    const now = this.clock.nowMs();
    this.redrive(now);
    let visible = 0;
    let delayed = 0;
    let inFlight = 0;
    for (const m of this.messages) {
      if (m.visibleAtMs <= now) visible++;
      else if (m.receiveCount === 0) delayed++;
      else inFlight++;
    }
    return { visible, delayed, inFlight, deadLetters: this.dead.length };
  }

  /** Delivers up to `max` visible messages in random order, starting their visibility timeout. */
  private take(max: number): ReceivedRecord[] {
    const now = this.clock.nowMs();
    this.redrive(now);
    const visible = shuffle(
      this.messages.filter((m) => m.visibleAtMs <= now),
      this.random,
    );
    return visible.slice(0, max).map((m) => {
      m.receiveCount += 1;
      m.visibleAtMs = now + this.visibilityMs;
      m.handle = `${m.messageId}#${m.receiveCount}#${this.nextId++}`;
      const { messageId, body, receiveCount, sentAtMs } = m;
      return { messageId, receiptHandle: m.handle, body, receiveCount, sentAtMs };
    });
  }

  /** As SQS: a message whose visibility ends after `maxReceiveCount` deliveries goes to the DLQ instead. */
  private redrive(now: number): void {
    const limit = this.maxReceiveCount;
    if (limit === undefined) return;
    const keep: Stored[] = [];
    for (const m of this.messages) {
      if (m.visibleAtMs <= now && m.receiveCount >= limit) {
        const { messageId, body, receiveCount, sentAtMs } = m;
        this.dead.push({ messageId, body, receiveCount, sentAtMs, movedAtMs: now });
      } else keep.push(m);
    }
    this.messages = keep;
  }

  /**
   * When the next message becomes visible (now or earlier for one visible already), or undefined
   * for an empty queue — a virtual-time driver advances the clock to it.
   */
  nextVisibleAtMs(): number | undefined {
    let best: number | undefined;
    for (const m of this.messages) if (best === undefined || m.visibleAtMs < best) best = m.visibleAtMs;
    return best;
  }

  /** Resolves at `atMs` on the clock, on the next `wake()`, or when `signal` aborts, whichever is first. */
  private waitUntil(atMs: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.clock.clearTimer(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.clock.setTimer(done, Math.max(0, atMs - this.clock.nowMs()));
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/** Fisher–Yates with an injected random source (SQS promises no order, so neither do we). */
function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const a = items[i];
    const b = items[j];
    if (a === undefined || b === undefined) continue;
    items[i] = b;
    items[j] = a;
  }
  return items;
}

/** A small deterministic random source (mulberry32) so fault-injection runs repeat exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
