/**
 * Dead-letter queue redrive: how many reconcile messages wait in the dead-letter queue, and moving
 * them back to the reconcile queue with SQS's message move tasks. Adapters: `SqsDeadLetterRedrive`
 * (Amazon SQS: GetQueueAttributes, StartMessageMoveTask, ListMessageMoveTasks) and
 * `MemoryDeadLetterRedrive` (`memory-redrive.ts`, the simulator's in-memory queue). Both keep SQS's
 * rules (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_StartMessageMoveTask.html):
 * the source must be the dead-letter queue of some queue's redrive policy; a task moves what the
 * source held when it started, oldest first, as new messages; only one task per source is active
 * at a time; ListMessageMoveTasks returns the most recent tasks (up to 10), newest first.
 */

import {
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  StartMessageMoveTaskCommand,
  type ListMessageMoveTasksResultEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';

import { callAws } from './aws-call.js';

/** A move task's status, as ListMessageMoveTasks reports it. */
export type MoveTaskStatus = 'RUNNING' | 'COMPLETED' | 'CANCELLING' | 'CANCELLED' | 'FAILED';

/**
 * One message move task as SQS reports it. The counts are SQS's approximations: `approximateMoved`
 * so far, `approximateToMove` taken when the task started (absent until SQS has counted).
 */
export type MoveTask = {
  readonly status: MoveTaskStatus;
  readonly approximateMoved: number;
  readonly approximateToMove?: number;
  readonly startedAtMs: number;
  readonly sourceArn: string;
  readonly destinationArn?: string;
  readonly failureReason?: string;
  /** Present while the task runs (what CancelMessageMoveTask would take). */
  readonly taskHandle?: string;
};

/** The dead-letter queue's approximate counts: messages waiting (visible) and in flight (received, not deleted). */
export type DeadLetterCounts = { readonly waiting: number; readonly inFlight: number };

/** See the module comment. Every call may throw the typed errors of `aws-call.ts`. */
export interface DeadLetterRedrive {
  /** The dead-letter queue's ARN (the move task's source). */
  readonly sourceArn: string;
  /** The reconcile queue's ARN (the move task's destination). */
  readonly destinationArn: string;
  /** How many messages the dead-letter queue holds now (approximately, as SQS counts). */
  counts(): Promise<DeadLetterCounts>;
  /** Starts moving the dead-letter queue's messages to the destination; resolves to the task's handle. */
  start(maxPerSecond?: number): Promise<{ readonly taskHandle: string }>;
  /** The most recent move tasks of the dead-letter queue (up to 10), newest first. */
  tasks(): Promise<MoveTask[]>;
}

/** Where the queues are and how long one call may take. */
export type SqsRedriveOptions = {
  readonly client: SQSClient;
  readonly deadLetterQueueUrl: string;
  readonly deadLetterQueueArn: string;
  readonly destinationArn: string;
  /** Deadline per call, default 5000 ms. */
  readonly callTimeoutMs?: number;
};

/** SQS's most recent tasks per source that ListMessageMoveTasks returns. */
export const MAX_LISTED_MOVE_TASKS = 10;

/** `DeadLetterRedrive` over Amazon SQS; every call carries its own deadline (`callAws`). */
export class SqsDeadLetterRedrive implements DeadLetterRedrive {
  readonly sourceArn: string;
  readonly destinationArn: string;
  private readonly callTimeoutMs: number;

  constructor(private readonly options: SqsRedriveOptions) {
    this.sourceArn = options.deadLetterQueueArn;
    this.destinationArn = options.destinationArn;
    this.callTimeoutMs = options.callTimeoutMs ?? 5000;
  }

  async counts(): Promise<DeadLetterCounts> {
    const out = await callAws('GetQueueAttributes', this.callTimeoutMs, (abortSignal) =>
      this.options.client.send(
        new GetQueueAttributesCommand({ QueueUrl: this.options.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
        { abortSignal },
      ),
    );
    const attributes = out.Attributes ?? {};
    return { waiting: Number(attributes.ApproximateNumberOfMessages ?? 0), inFlight: Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0) };
  }

  async start(maxPerSecond?: number): Promise<{ taskHandle: string }> {
    // The destination is named (not left to "each message's original source"), so the caller's
    // sqs:SendMessage is needed on the reconcile queue only.
    const out = await callAws('StartMessageMoveTask', this.callTimeoutMs, (abortSignal) =>
      this.options.client.send(
        new StartMessageMoveTaskCommand({ SourceArn: this.sourceArn, DestinationArn: this.destinationArn, ...(maxPerSecond === undefined ? {} : { MaxNumberOfMessagesPerSecond: maxPerSecond }) }),
        { abortSignal },
      ),
    );
    return { taskHandle: out.TaskHandle ?? '' };
  }

  async tasks(): Promise<MoveTask[]> {
    const out = await callAws('ListMessageMoveTasks', this.callTimeoutMs, (abortSignal) =>
      this.options.client.send(new ListMessageMoveTasksCommand({ SourceArn: this.sourceArn, MaxResults: MAX_LISTED_MOVE_TASKS }), { abortSignal }),
    );
    return (out.Results ?? []).map(toMoveTask);
  }
}

function toMoveTask(entry: ListMessageMoveTasksResultEntry): MoveTask {
  return {
    status: (entry.Status ?? 'RUNNING') as MoveTaskStatus,
    approximateMoved: Number(entry.ApproximateNumberOfMessagesMoved ?? 0),
    ...(entry.ApproximateNumberOfMessagesToMove === undefined ? {} : { approximateToMove: Number(entry.ApproximateNumberOfMessagesToMove) }),
    startedAtMs: Number(entry.StartedTimestamp ?? 0),
    sourceArn: entry.SourceArn ?? '',
    ...(entry.DestinationArn ? { destinationArn: entry.DestinationArn } : {}),
    ...(entry.FailureReason ? { failureReason: entry.FailureReason } : {}),
    ...(entry.TaskHandle ? { taskHandle: entry.TaskHandle } : {}),
  };
}
