/**
 * Lambda's SQS event source mapping, driven step by step on a virtual clock: take up to ten visible
 * messages, build the `SQSEvent` Lambda would, invoke the handler, delete what succeeded and leave
 * the batch item failures (and everything of a crashed invocation, or of one that threw) to come
 * back after the visibility timeout — or when the handler set it to, as a step does to hold its
 * records for its lease (the records carry their receipt handles). One batch at a time, so a run is
 * repeatable for a seed. With a `timing` (the latency model, lib/local/latency.ts) a batch gathers
 * for the batching window from its first visible record unless ten are at hand sooner, the first
 * invocation pays the cold start before its handler runs, and each invocation lasts its steps'
 * time before its records are deleted and the next batch is taken.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Clock } from '../platform/clock.js';
import { failedIds, toSqsRecord } from '../queue/poller.js';
import { parseReconcileMessage } from '../queue/message.js';
import type { ReconcileQueue } from '../queue/port.js';
import type { LatencyModel } from './latency.js';

/**
 * The handler's answer; `crashed` for an invocation that died, `failed` for one that threw (a
 * function error). Either way nothing of the batch is deleted, as with Lambda.
 */
export type InvokeResult = SQSBatchResponse | 'crashed' | 'failed';

/** The largest batch (serverless.yml `batchSize: 10`); a full one ends the batching window. */
const BATCH_SIZE = 10;

/**
 * How delivery takes time: the model's numbers, how many messages are visible now, and `pass`, which
 * lets virtual time pass while an invocation is busy (the world moves on meanwhile).
 */
export type DeliveryTiming = Pick<LatencyModel, 'batchingWindowMs' | 'stepMs' | 'coldStartMs'> & {
  readonly visibleCount: () => number;
  readonly pass: (ms: number) => Promise<void>;
};

/** Delivers due messages to `invoke`. */
export class VirtualEventSource {
  /** Handler invocations so far. */
  invocations = 0;
  /** Since when the current batch has gathered (its first record was visible), if one is gathering. */
  private gatheringSinceMs: number | undefined;

  constructor(
    private readonly queue: Pick<ReconcileQueue, 'receive' | 'delete'>,
    private readonly invoke: (event: SQSEvent) => Promise<InvokeResult>,
    private readonly clock: Clock,
    private readonly queueArn = 'arn:aws:sqs:us-east-1:000000000000:tidb-reconciler-reconcile',
    private readonly timing?: DeliveryTiming,
  ) {}

  /**
   * When the batch now gathering is due (its window closes), for a virtual-time driver to move the
   * clock there; undefined when none is gathering.
   */
  nextDueAtMs(): number | undefined {
    if (this.gatheringSinceMs === undefined || !this.timing) return undefined;
    return this.gatheringSinceMs + this.timing.batchingWindowMs;
  }

  /**
   * Delivers batches until nothing is visible (or the batch gathering is not due yet), at most
   * `maxBatches` (a key that keeps re-enqueueing itself at one instant must not stall virtual time),
   * and none once `stop` holds (checked before each batch); returns how many batches ran.
   */
  async deliverDue(maxBatches = 50, stop?: () => boolean): Promise<number> {
    let batches = 0;
    while (batches < maxBatches && stop?.() !== true) {
      if (!this.windowClosed()) break;
      const records = await this.queue.receive(BATCH_SIZE, 0);
      this.gatheringSinceMs = undefined;
      if (records.length === 0) break;
      batches++;
      const cold = this.invocations++ === 0;
      if (cold && this.timing && this.timing.coldStartMs > 0) await this.timing.pass(this.timing.coldStartMs);
      const at = { nowMs: this.clock.nowMs(), eventSourceArn: this.queueArn, awsRegion: 'us-east-1' };
      const result = await this.invoke({ Records: records.map((r) => toSqsRecord(r, at)) });
      // The invocation lasts its steps' time; Lambda deletes the batch when it returns.
      const busyMs = (this.timing?.stepMs ?? 0) * distinctKeys(records.map((r) => r.body));
      if (busyMs > 0) await this.timing?.pass(busyMs);
      if (result === 'crashed' || result === 'failed') continue;
      let failed: Set<string>;
      try {
        failed = failedIds(result, records);
      } catch {
        // As Lambda: an invalid failure list fails the whole batch; everything comes back later.
        continue;
      }
      await this.queue.delete(records.filter((r) => !failed.has(r.messageId)).map((r) => r.receiptHandle));
    }
    return batches;
  }

  /**
   * Whether a batch may be taken now: without a window, whenever a record is visible; with one, once
   * the window from the first visible record has run out or a full batch is at hand.
   */
  private windowClosed(): boolean {
    const t = this.timing;
    if (!t || t.batchingWindowMs === 0) return true;
    const visible = t.visibleCount();
    if (visible === 0) {
      this.gatheringSinceMs = undefined;
      return false;
    }
    const now = this.clock.nowMs();
    this.gatheringSinceMs ??= now;
    return visible >= BATCH_SIZE || now >= this.gatheringSinceMs + t.batchingWindowMs;
  }
}

/** How many cluster keys the bodies name (an unreadable body counts as its own). */
function distinctKeys(bodies: readonly string[]): number {
  return new Set(
    bodies.map((b) => {
      let parsed: ReturnType<typeof parseReconcileMessage> | undefined;
      try {
        parsed = parseReconcileMessage(JSON.parse(b));
      } catch {
        parsed = undefined;
      }
      return parsed?.ok ? parsed.message.key : b;
    }),
  ).size;
}
