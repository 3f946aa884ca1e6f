/**
 * Feeds an SQS Lambda handler the way Lambda's SQS event source mapping does, for the local stack and
 * the simulator: receive a batch (up to `batchSize`, gathering for up to the batching window), wrap it in
 * an `SQSEvent`, invoke the handler with a `Context`, then delete what succeeded. As the mapping with
 * `ReportBatchItemFailures` (Lambda's SQS event source mapping with `ReportBatchItemFailures`, AWS Lambda developer guide): items named in `batchItemFailures` are left to reappear after
 * the visibility timeout (or the one the handler set with their receipt handles); a thrown error, a
 * timeout or an invalid response fails the whole batch.
 */

import { createHash, randomUUID } from 'node:crypto';

import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

import type { Clock } from '../platform/clock.js';
import { TerminalError } from '../platform/errors.js';
import { SQS_MAX_BATCH, type ReceivedRecord, type ReconcileQueue } from './port.js';

/** The handler shape the poller invokes: a plain or middy-wrapped SQS Lambda handler. */
export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void | undefined>;

/** Which part of a poll failed, for `onError`. */
export type PollPhase = 'receive' | 'handler' | 'delete';

/** Mapping settings; defaults follow Lambda's (batch 10, no batching window, 20 s long poll). */
export type PollerOptions = {
  queue: ReconcileQueue;
  handler: SqsBatchHandler;
  clock: Clock;
  batchSize?: number;
  batchingWindowMs?: number;
  waitMs?: number;
  /** Batches in flight at once (Lambda starts at 5 for a standard queue; 1 keeps local runs readable). */
  concurrency?: number;
  /** The function timeout: `getRemainingTimeInMillis` counts down from it and a longer run fails the batch. */
  functionTimeoutMs?: number;
  /** Pause after a failed receive, so a broken queue is not polled in a tight loop. */
  errorBackoffMs?: number;
  eventSourceArn?: string;
  awsRegion?: string;
  functionName?: string;
  onError?: (error: unknown, info: { phase: PollPhase; messageIds: string[] }) => void;
};

/** What one batch came to: how many records were handed over, deleted, and left for redelivery. */
export type BatchOutcome = { received: number; deleted: number; left: number; failedWholeBatch: boolean };

/**
 * The poller. `start()` runs `concurrency` loops until `stop()`, which ends waiting receives at once and
 * waits for batches already handed to the handler. `pollOnce()` runs a single batch, for tests that step
 * the queue by hand. Errors go to `onError` (default: one line on stderr) and never end a loop.
 */
export class SqsPoller {
  private readonly o: Required<Omit<PollerOptions, 'onError'>> & Pick<PollerOptions, 'onError'>;
  private abort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(options: PollerOptions) {
    this.o = {
      ...options,
      batchSize: options.batchSize ?? 10,
      batchingWindowMs: options.batchingWindowMs ?? 0,
      waitMs: options.waitMs ?? 20_000,
      concurrency: options.concurrency ?? 1,
      functionTimeoutMs: options.functionTimeoutMs ?? 60_000,
      errorBackoffMs: options.errorBackoffMs ?? 1000,
      eventSourceArn: options.eventSourceArn ?? 'arn:aws:sqs:us-east-1:123456789012:tidb-reconciler',
      awsRegion: options.awsRegion ?? 'us-east-1',
      functionName: options.functionName ?? 'tidb-reconciler-reconcile',
    };
    // Lambda's own bounds for a standard queue (BatchSize ≤ 10 000, window ≤ 300 s).
    if (!(Number.isInteger(this.o.batchSize) && this.o.batchSize >= 1 && this.o.batchSize <= 10_000)) {
      throw new TerminalError(`batchSize ${this.o.batchSize} is outside 1–10000`, { field: 'batchSize' });
    }
    if (!(this.o.batchingWindowMs >= 0 && this.o.batchingWindowMs <= 300_000)) {
      throw new TerminalError(`batchingWindowMs ${this.o.batchingWindowMs} is outside 0–300000`, {
        field: 'batchingWindowMs',
      });
    }
  }

  start(): void {
    if (this.loops.length > 0) return;
    this.abort = new AbortController();
    for (let i = 0; i < this.o.concurrency; i++) this.loops.push(this.loop(this.abort.signal));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** Receives one batch and handles it; `undefined` when nothing arrived within the wait. */
  async pollOnce(signal?: AbortSignal): Promise<BatchOutcome | undefined> {
    const records = await this.gather(signal);
    if (records.length === 0) return undefined;
    const failed = await this.invoke(records);
    const failedIds = failed ?? new Set(records.map((r) => r.messageId));
    const done = records.filter((r) => !failedIds.has(r.messageId));
    if (done.length > 0) {
      try {
        await this.o.queue.delete(done.map((r) => r.receiptHandle));
      } catch (err) {
        // Not deleted means delivered again later: at-least-once, never lost.
        this.report(err, 'delete', done);
      }
    }
    const left = records.length - done.length;
    return { received: records.length, deleted: done.length, left, failedWholeBatch: failed === undefined };
  }

  private async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const outcome = await this.pollOnce(signal);
        // A short poll that found nothing returns at once; pausing keeps a quiet queue from spinning.
        if (outcome === undefined && this.o.waitMs < 1000) await this.pause(1000 - this.o.waitMs, signal);
      } catch (err) {
        if (signal.aborted) break;
        this.report(err, 'receive', []);
        await this.pause(this.o.errorBackoffMs, signal);
      }
    }
  }

  /**
   * The first receive long-polls; later ones fill the batch until `batchSize` or the window closes.
   * Once the window is closed, only a full receive (there may be more at hand) is followed by another,
   * so a batch with no window costs one receive when the queue is quiet.
   */
  private async gather(signal: AbortSignal | undefined): Promise<ReceivedRecord[]> {
    const { queue, clock, batchSize } = this.o;
    let asked = Math.min(SQS_MAX_BATCH, batchSize);
    const records = await queue.receive(asked, this.o.waitMs, signal);
    let lastCount = records.length;
    if (records.length === 0) return records;
    const windowEndMs = clock.nowMs() + this.o.batchingWindowMs;
    while (records.length < batchSize && !signal?.aborted) {
      const remainingMs = Math.max(0, windowEndMs - clock.nowMs());
      if (remainingMs === 0 && lastCount < asked) break;
      asked = Math.min(SQS_MAX_BATCH, batchSize - records.length);
      const more = await queue.receive(asked, remainingMs, signal);
      records.push(...more);
      lastCount = more.length;
    }
    return records;
  }

  /** Runs the handler; returns the ids to leave for redelivery, or `undefined` when the whole batch failed. */
  private async invoke(records: ReceivedRecord[]): Promise<Set<string> | undefined> {
    const startedAtMs = this.o.clock.nowMs();
    const event: SQSEvent = { Records: records.map((r) => toSqsRecord(r, { nowMs: startedAtMs, eventSourceArn: this.o.eventSourceArn, awsRegion: this.o.awsRegion })) };
    let timer: ReturnType<Clock['setTimer']> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.o.clock.setTimer(
        () => reject(new Error(`handler timed out after ${this.o.functionTimeoutMs} ms`)),
        this.o.functionTimeoutMs,
      );
    });
    try {
      const response = await Promise.race([this.o.handler(event, this.context(startedAtMs)), timeout]);
      return failedIds(response, records);
    } catch (err) {
      this.report(err, 'handler', records);
      return undefined;
    } finally {
      if (timer) this.o.clock.clearTimer(timer);
    }
  }



  private context(startedAtMs: number): Context {
    const { clock, functionName, functionTimeoutMs, awsRegion } = this.o;
    const fail = (): never => {
      throw new Error('callback-style completion is not supported; return a promise');
    };
    return {
      callbackWaitsForEmptyEventLoop: false,
      functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${awsRegion}:123456789012:function:${functionName}`,
      memoryLimitInMB: '512',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${functionName}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => Math.max(0, startedAtMs + functionTimeoutMs - clock.nowMs()),
      done: fail,
      fail,
      succeed: fail,
    };
  }

  /** Waits `ms` on the clock, or less if the poller is stopped meanwhile. */
  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.o.clock.clearTimer(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.o.clock.setTimer(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private report(error: unknown, phase: PollPhase, records: ReceivedRecord[]): void {
    const messageIds = records.map((r) => r.messageId);
    try {
      if (this.o.onError) this.o.onError(error, { phase, messageIds });
      else console.error(JSON.stringify({ msg: 'sqs poller error', phase, messageIds, error: String(error) }));
    } catch {
      // A failing error reporter must not stop the poller.
    }
  }
}

/**
 * The records a handler's response leaves for redelivery, as Lambda reads it: no response or no
 * failures is success; an unknown or empty identifier throws (Lambda then fails the whole batch).
 */
export function failedIds(response: unknown, records: ReceivedRecord[]): Set<string> {
  if (response === undefined || response === null) return new Set();
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  const known = new Set(records.map((r) => r.messageId));
  if (!Array.isArray(failures)) throw new Error('batchItemFailures is not a list');
  const ids = new Set<string>();
  for (const f of failures) {
    const id = (f as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !known.has(id)) {
      throw new Error(`invalid batch item failure ${JSON.stringify(f)}: Lambda fails the whole batch`);
    }
    ids.add(id);
  }
  return ids;
}

/** The `SQSRecord` Lambda's event source mapping hands the handler for a received message. */
export function toSqsRecord(r: ReceivedRecord, at: { nowMs: number; eventSourceArn: string; awsRegion: string }): SQSRecord {
  return {
    messageId: r.messageId,
    receiptHandle: r.receiptHandle,
    body: r.body,
    attributes: {
      ApproximateReceiveCount: String(r.receiveCount),
      SentTimestamp: String(r.sentAtMs),
      SenderId: 'tidb-reconciler',
      ApproximateFirstReceiveTimestamp: String(at.nowMs),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(r.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: at.eventSourceArn,
    awsRegion: at.awsRegion,
  };
}
