/**
 * Dead-letter queue redrive on the in-memory queue (`memory.ts`), on its clock, with SQS's message
 * move task rules (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_StartMessageMoveTask.html,
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ListMessageMoveTasksResultEntry.html):
 * the source must be a dead-letter queue (the memory queue's dead-letter list exists only with a
 * `maxReceiveCount`); `MaxNumberOfMessagesPerSecond` is 1–500 (unset: SQS picks the rate; here the
 * maximum); one task per source runs at a time; the task counts what the source holds when it
 * starts and moves that many, oldest first, as new messages (new id, receive count 0); it completes
 * when it has moved them or the source is empty; the 10 most recent tasks are listed, newest first.
 */

import type { Clock } from '../platform/clock.js';
import { TerminalError } from '../platform/errors.js';
import type { MemoryReconcileQueue } from './memory.js';
import { MAX_LISTED_MOVE_TASKS, type DeadLetterCounts, type DeadLetterRedrive, type MoveTask, type MoveTaskStatus } from './redrive.js';

/** SQS's highest `MaxNumberOfMessagesPerSecond`. */
export const MAX_MOVE_RATE_PER_SECOND = 500;

type Task = { handle: string; status: MoveTaskStatus; moved: number; toMove: number; startedAtMs: number; ratePerSecond: number };

/** `DeadLetterRedrive` of a `MemoryReconcileQueue`'s dead-letter list back to the same queue. */
export class MemoryDeadLetterRedrive implements DeadLetterRedrive {
  private readonly history: Task[] = [];
  private nextTask = 1;

  constructor(
    private readonly queue: MemoryReconcileQueue,
    private readonly clock: Clock,
    readonly sourceArn: string,
    readonly destinationArn: string,
  ) {}

  async counts(): Promise<DeadLetterCounts> {
    return { waiting: this.queue.stats().deadLetters, inFlight: 0 };
  }

  async start(maxPerSecond?: number): Promise<{ taskHandle: string }> {
    if (!this.queue.hasDeadLetterQueue) throw invalid('Source queue must be configured as a Dead Letter Queue.');
    if (maxPerSecond !== undefined && !(Number.isInteger(maxPerSecond) && maxPerSecond >= 1 && maxPerSecond <= MAX_MOVE_RATE_PER_SECOND)) {
      throw invalid(`Value for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: You must enter a number that's between 1 and ${MAX_MOVE_RATE_PER_SECOND}.`);
    }
    if (this.history.some((t) => t.status === 'RUNNING')) throw invalid('There is already a task running. Only one active task is allowed for a source queue arn at a given time.');
    const task: Task = { handle: `memory-move-task-${this.nextTask++}`, status: 'RUNNING', moved: 0, toMove: this.queue.stats().deadLetters, startedAtMs: this.clock.nowMs(), ratePerSecond: maxPerSecond ?? MAX_MOVE_RATE_PER_SECOND };
    this.history.unshift(task);
    this.history.splice(MAX_LISTED_MOVE_TASKS);
    this.clock.setTimer(() => this.tick(task), 1000);
    return { taskHandle: task.handle };
  }

  async tasks(): Promise<MoveTask[]> {
    return this.history.map((t) => ({
      status: t.status,
      approximateMoved: t.moved,
      approximateToMove: t.toMove,
      startedAtMs: t.startedAtMs,
      sourceArn: this.sourceArn,
      destinationArn: this.destinationArn,
      ...(t.status === 'RUNNING' ? { taskHandle: t.handle } : {}),
    }));
  }

  /** One second of the task: up to its rate of the oldest dead letters go back to the queue. */
  private tick(task: Task): void {
    const letters = this.queue.takeDeadLetters(Math.min(task.ratePerSecond, task.toMove - task.moved));
    this.queue.requeue(letters.map((l) => l.body));
    task.moved += letters.length;
    if (task.moved >= task.toMove || letters.length === 0) task.status = 'COMPLETED';
    else this.clock.setTimer(() => this.tick(task), 1000);
  }
}

/** SQS's InvalidParameterValue, as `callAws` reports a client fault of the real queue. */
function invalid(message: string): TerminalError {
  return new TerminalError(`StartMessageMoveTask failed: InvalidParameterValue: ${message}`);
}
