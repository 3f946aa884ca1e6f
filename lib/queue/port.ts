/**
 * The reconcile queue as the rest of the system sees it: producers `send` reconcile messages (optionally
 * delayed, which is how short timers work), and the consumer side looks exactly like what Lambda's SQS
 * event source mapping does on our behalf (receive, delete, change visibility). Adapters: `sqs.ts`
 * (Amazon SQS) and `memory.ts` (in-process, on a `Clock`). Both keep SQS's limits so code that works on
 * the memory queue does not break on the real one.
 */

import { TerminalError, TransientError } from '../platform/errors.js';

/**
 * The body of every reconcile message: which cluster key to step and why. `enqueuedAtMs` is when the
 * producer sent it (for queue-age metrics); a timer's wake-up also carries `dueAtMs`, the time it was
 * armed for (what the step stored as its next wake-up), so the woken step can tell a wake-up that a
 * later one replaced; `checkTidbOperator` asks the step to re-check its TiDB Operator verdict now
 * (docs/adr/0024); `budgetAtMs` says the step holds a reservation of its EKS cluster's API budget
 * starting then (a step deferred by the budget, docs/adr/0028). The full parser for bodies received from the queue lives in `message.ts`; this
 * type is what producers hand to `send`.
 */
export type ReconcileMessageBody = { key: string; reason: string; enqueuedAtMs: number; dueAtMs?: number; checkTidbOperator?: true; budgetAtMs?: number };

/** One message to send; `delaySeconds` (0–900, default 0) hides it from consumers for that long. */
export type OutgoingMessage = { message: ReconcileMessageBody; delaySeconds?: number };

/**
 * One received message, as the event source mapping hands it over. `receiptHandle` is valid only for
 * this delivery (a redelivery gets a new one); `receiveCount` counts deliveries including this one.
 */
export type ReceivedRecord = {
  messageId: string;
  receiptHandle: string;
  body: string;
  receiveCount: number;
  sentAtMs: number;
};

/**
 * A standard-queue contract: at-least-once delivery, no ordering, per-message delay. A received message
 * stays invisible for the queue's visibility timeout; unless deleted it is delivered again (with a higher
 * `receiveCount`) and, past the queue's `maxReceiveCount`, moved to the dead-letter queue.
 */
export interface ReconcileQueue {
  /**
   * Sends in batches of at most `SQS_MAX_BATCH`. Throws `TerminalError` for a delay above 900 s (longer
   * waits belong to the scheduler) and `PartialBatchError` naming the keys that still failed after one retry.
   */
  send(messages: readonly OutgoingMessage[]): Promise<void>;
  /**
   * Returns up to `max` (1–10) visible messages, waiting up to `waitMs` (long poll, ≤ 20 s) for the
   * first one. An aborted `signal` ends the wait early; the result is then empty.
   */
  receive(max: number, waitMs: number, signal?: AbortSignal): Promise<ReceivedRecord[]>;
  /** Deletes delivered messages. A handle from an older delivery is accepted and may do nothing, as in SQS. */
  delete(receiptHandles: readonly string[]): Promise<void>;
  /** Sets how long from now a delivered message stays invisible (0 makes it visible at once). */
  changeVisibility(receiptHandle: string, seconds: number): Promise<void>;
}

/**
 * Some entries of a batched call still failed after the adapter's own retry; `failed` names them by
 * label (for `send`, the message keys), so a caller can retry exactly those.
 */
export class PartialBatchError extends TransientError {
  readonly failed: readonly string[];
  constructor(message: string, failed: readonly string[]) {
    super(message);
    this.failed = failed;
  }
}

/** SQS's per-message delay limit (15 min). Anything longer is a scheduler timer. */
export const MAX_DELAY_SECONDS = 900;
/** SQS's limit on entries per batch request and messages per receive. */
export const SQS_MAX_BATCH = 10;
/** SQS's longest long-poll wait. */
export const MAX_WAIT_SECONDS = 20;
/** SQS's longest visibility timeout (12 h). */
export const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * Turns a requested delay into what SQS accepts: missing or negative means 0, fractions round up (a
 * wake-up may be late by under a second but is never early because of us), above 900 s is an error
 * rather than a silent clamp, because a silently shortened timer would wake a step far too early.
 */
export function normaliseDelaySeconds(delaySeconds: number | undefined): number {
  if (delaySeconds === undefined || !(delaySeconds > 0)) return 0;
  const whole = Math.ceil(delaySeconds);
  if (whole > MAX_DELAY_SECONDS) {
    throw new TerminalError(
      `delaySeconds ${delaySeconds} exceeds the SQS maximum of ${MAX_DELAY_SECONDS}; use a scheduler timer`,
      { field: 'delaySeconds' },
    );
  }
  return whole;
}

/** Checks a visibility timeout against SQS's 0–43 200 s range; whole seconds only, as SQS takes them. */
export function normaliseVisibilitySeconds(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_SECONDS) {
    throw new TerminalError(`visibility timeout ${seconds}s is outside 0–${MAX_VISIBILITY_SECONDS}`, {
      field: 'visibilitySeconds',
    });
  }
  return Math.ceil(seconds);
}

/** Checks a receive size against SQS's 1–10, so the memory queue rejects what SQS would reject. */
export function checkReceiveMax(max: number): number {
  if (!Number.isInteger(max) || max < 1 || max > SQS_MAX_BATCH) {
    throw new TerminalError(`receive max ${max} is outside 1–${SQS_MAX_BATCH}`, { field: 'max' });
  }
  return max;
}

/** Splits a list into consecutive chunks of at most `size` (the batch shape SQS requires). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A structural check for a reconcile message body, enough for adapters that must turn a stored body
 * back into a message (the memory scheduler). Validation of bodies arriving at the reconcile handler is
 * `parseReconcileMessage`'s job.
 */
export function isReconcileMessageBody(value: unknown): value is ReconcileMessageBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.key === 'string' && typeof v.reason === 'string' && typeof v.enqueuedAtMs === 'number';
}
