/**
 * Lambda's SQS event source mapping, driven step by step on a virtual clock: take up to ten visible
 * messages, build the `SQSEvent` Lambda would, invoke the handler, delete what succeeded and leave
 * the batch item failures (and everything of a crashed invocation, or of one that threw) to come
 * back after the visibility timeout — or when the handler set it to, as a step does to hold its
 * records for its lease (the records carry their receipt handles). One batch at a time, so a run is
 * repeatable for a seed.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Clock } from '../platform/clock.js';
import { failedIds, toSqsRecord } from '../queue/poller.js';
import type { ReconcileQueue } from '../queue/port.js';

/**
 * The handler's answer; `crashed` for an invocation that died, `failed` for one that threw (a
 * function error). Either way nothing of the batch is deleted, as with Lambda.
 */
export type InvokeResult = SQSBatchResponse | 'crashed' | 'failed';

/** Delivers due messages to `invoke`. */
export class VirtualEventSource {
  /** Handler invocations so far. */
  invocations = 0;

  constructor(
    private readonly queue: Pick<ReconcileQueue, 'receive' | 'delete'>,
    private readonly invoke: (event: SQSEvent) => Promise<InvokeResult>,
    private readonly clock: Clock,
    private readonly queueArn = 'arn:aws:sqs:us-east-1:000000000000:tidb-reconciler-reconcile',
  ) {}

  /**
   * Delivers batches until nothing is visible, at most `maxBatches` (a key that keeps re-enqueueing
   * itself at one instant must not stall virtual time), and none once `stop` holds (checked before
   * each batch); returns how many batches ran.
   */
  async deliverDue(maxBatches = 50, stop?: () => boolean): Promise<number> {
    let batches = 0;
    while (batches < maxBatches && stop?.() !== true) {
      const records = await this.queue.receive(10, 0);
      if (records.length === 0) break;
      batches++;
      this.invocations++;
      const at = { nowMs: this.clock.nowMs(), eventSourceArn: this.queueArn, awsRegion: 'us-east-1' };
      const result = await this.invoke({ Records: records.map((r) => toSqsRecord(r, at)) });
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
}
