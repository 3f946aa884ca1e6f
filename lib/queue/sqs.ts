/**
 * The reconcile queue on Amazon SQS (a standard queue: per-message delay, at-least-once, no order).
 * Every call carries a deadline and maps failures to typed errors (`aws-call.ts`); sends and deletes go
 * in batches of ten with one retry for the entries a batch reports as failed (`batch.ts`).
 */

import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type BatchResultErrorEntry,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';

import { runBatches, toBatchEntries, type BatchFailure } from './batch.js';
import { callAws, CallAbortedError } from './aws-call.js';
import {
  checkReceiveMax,
  MAX_WAIT_SECONDS,
  normaliseDelaySeconds,
  normaliseVisibilitySeconds,
  type OutgoingMessage,
  type ReceivedRecord,
  type ReconcileQueue,
} from './port.js';

/** Where the queue is and how long one call may take (long polls get their wait time on top). */
export type SqsQueueOptions = {
  client: SQSClient;
  queueUrl: string;
  /** Deadline per call, default 5000 ms: well below any reconcile Lambda timeout. */
  callTimeoutMs?: number;
};

/**
 * `ReconcileQueue` over SQS. Message bodies are the JSON of the reconcile message; receive asks for the
 * system attributes both the legacy way (`AttributeNames`, which local servers need) and the current
 * way (`MessageSystemAttributeNames`) so the receive count and sent time come back from either.
 */
export class SqsReconcileQueue implements ReconcileQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;
  private readonly callTimeoutMs: number;

  constructor(options: SqsQueueOptions) {
    this.client = options.client;
    this.queueUrl = options.queueUrl;
    this.callTimeoutMs = options.callTimeoutMs ?? 5000;
  }

  async send(messages: readonly OutgoingMessage[]): Promise<void> {
    // Validate every delay before sending anything, so a bad entry cannot leave the send half done.
    const prepared = messages.map((m) => ({
      key: m.message.key,
      body: JSON.stringify(m.message),
      delaySeconds: normaliseDelaySeconds(m.delaySeconds),
    }));
    const entries = toBatchEntries(prepared, (p) => p.key);
    await runBatches('SendMessageBatch', entries, async (batch) => {
      const out = await callAws('SendMessageBatch', this.callTimeoutMs, (abortSignal) =>
        this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map((e) => ({ Id: e.id, MessageBody: e.item.body, DelaySeconds: e.item.delaySeconds })),
          }),
          { abortSignal },
        ),
      );
      return toFailures(out.Failed);
    });
  }

  async receive(max: number, waitMs: number, signal?: AbortSignal): Promise<ReceivedRecord[]> {
    const waitSeconds = Math.min(MAX_WAIT_SECONDS, Math.max(0, Math.ceil(waitMs / 1000)));
    try {
      const out = await callAws(
        'ReceiveMessage',
        this.callTimeoutMs + waitSeconds * 1000,
        (abortSignal) =>
          this.client.send(
            new ReceiveMessageCommand({
              QueueUrl: this.queueUrl,
              MaxNumberOfMessages: checkReceiveMax(max),
              WaitTimeSeconds: waitSeconds,
              AttributeNames: ['All'],
              MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
            }),
            { abortSignal },
          ),
        signal,
      );
      return (out.Messages ?? []).flatMap(toRecord);
    } catch (err) {
      if (err instanceof CallAbortedError) return [];
      throw err;
    }
  }

  async delete(receiptHandles: readonly string[]): Promise<void> {
    const entries = toBatchEntries(receiptHandles, (h) => `handle ${h.slice(0, 16)}…`);
    await runBatches('DeleteMessageBatch', entries, async (batch) => {
      const out = await callAws('DeleteMessageBatch', this.callTimeoutMs, (abortSignal) =>
        this.client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map((e) => ({ Id: e.id, ReceiptHandle: e.item })),
          }),
          { abortSignal },
        ),
      );
      return toFailures(out.Failed);
    });
  }

  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    const visibilitySeconds = normaliseVisibilitySeconds(seconds);
    await callAws('ChangeMessageVisibility', this.callTimeoutMs, (abortSignal) =>
      this.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: this.queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: visibilitySeconds,
        }),
        { abortSignal },
      ),
    );
  }
}

function toFailures(failed: BatchResultErrorEntry[] | undefined): BatchFailure[] {
  return (failed ?? []).map((f) => ({
    id: f.Id ?? '?',
    code: f.Code ?? 'Unknown',
    senderFault: f.SenderFault ?? false,
  }));
}

/** A message without id, handle or body cannot be processed or deleted; SQS never sends one, so skip it. */
function toRecord(m: Message): ReceivedRecord[] {
  if (m.MessageId === undefined || m.ReceiptHandle === undefined || m.Body === undefined) return [];
  const attributes = m.Attributes ?? {};
  return [
    {
      messageId: m.MessageId,
      receiptHandle: m.ReceiptHandle,
      body: m.Body,
      receiveCount: Number(attributes.ApproximateReceiveCount ?? '1'),
      sentAtMs: Number(attributes.SentTimestamp ?? '0'),
    },
  ];
}
