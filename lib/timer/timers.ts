/**
 * `Timers` on the reconcile queue and a scheduler: ≤ 900 s ahead a delayed message (second precision),
 * further ahead a one-time EventBridge Scheduler schedule (60 s precision) whose name is derived from
 * (cluster key, timer kind), so arming the same timer again moves it instead of adding a second one.
 */

import { createHash } from 'node:crypto';

import { ConflictError, NotFoundError } from '../platform/errors.js';
import { MAX_DELAY_SECONDS, type ReconcileMessageBody, type ReconcileQueue } from '../queue/port.js';
import type { ScheduleRequest, SchedulerPort, TimerKind, Timers, WakeUp } from './port.js';

/** Where long timers deliver: the reconcile queue's ARN and a role Scheduler may assume to send to it. */
export type TimersOptions = {
  queue: ReconcileQueue;
  scheduler: SchedulerPort;
  queueArn: string;
  schedulerRoleArn: string;
  /** Schedule group; give each deployment its own so deterministic names cannot collide across them. */
  groupName?: string;
};

/** Scheduler's limit on schedule names. */
export const MAX_SCHEDULE_NAME_LENGTH = 64;
const HASH_LENGTH = 12;

/**
 * The schedule name of (key, kind): readable (the key with `/` as `.`, then the kind, other characters
 * outside `[0-9a-zA-Z-_.]` as `-`), cut to fit 64 characters, and always ending in `-` plus 12 hex
 * characters of SHA-256 over the raw pair. The hash keeps names distinct when sanitising or cutting
 * makes two readable parts equal.
 */
export function scheduleName(key: string, kind: TimerKind): string {
  const readable = `${sanitise(key.replaceAll('/', '.'))}_${sanitise(kind)}`;
  const hash = createHash('sha256').update(`${key}\u0000${kind}`).digest('hex').slice(0, HASH_LENGTH);
  return `${readable.slice(0, MAX_SCHEDULE_NAME_LENGTH - HASH_LENGTH - 1)}-${hash}`;
}

/**
 * The one-time expression for `atMs`, `at(yyyy-mm-ddThh:mm:ss)` in UTC. Milliseconds round up to the
 * next second so rounding on our side never makes the wake-up earlier.
 */
export function atExpression(atMs: number): string {
  const wholeSecondMs = Math.ceil(atMs / 1000) * 1000;
  return `at(${new Date(wholeSecondMs).toISOString().slice(0, 19)})`;
}

/** See the module comment; early or duplicate wake-ups are the woken step's business (see `Timers`). */
export class QueueSchedulerTimers implements Timers {
  constructor(private readonly o: TimersOptions) {}

  async wakeAt(key: string, kind: TimerKind, atMs: number, nowMs: number): Promise<WakeUp> {
    const afterMs = atMs - nowMs;
    if (afterMs <= MAX_DELAY_SECONDS * 1000) {
      const delaySeconds = Math.max(0, Math.ceil(afterMs / 1000));
      const message: ReconcileMessageBody = { key, reason: timerReason(kind), enqueuedAtMs: nowMs, dueAtMs: atMs };
      await this.o.queue.send([{ message, delaySeconds }]);
      return { via: 'queue', delaySeconds };
    }
    const request = this.scheduleRequest(key, kind, atMs);
    const action = await this.upsert(request);
    return { via: 'schedule', name: request.Name, expression: request.ScheduleExpression, action };
  }

  async cancel(key: string, kind: TimerKind): Promise<void> {
    try {
      await this.o.scheduler.deleteSchedule(scheduleName(key, kind), this.o.groupName);
    } catch (err) {
      // Already fired (and deleted itself), cancelled before, or never armed: the outcome we want.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }

  /**
   * The message lands in the queue at about `atMs`, so that is its `enqueuedAtMs` (Scheduler cannot put
   * the real send time into a JSON number).
   */
  private scheduleRequest(key: string, kind: TimerKind, atMs: number): ScheduleRequest {
    const message: ReconcileMessageBody = { key, reason: timerReason(kind), enqueuedAtMs: atMs, dueAtMs: atMs };
    return {
      Name: scheduleName(key, kind),
      ...(this.o.groupName === undefined ? {} : { GroupName: this.o.groupName }),
      Description: `tidb-reconciler: wake ${key} for ${kind}`.slice(0, 512),
      ScheduleExpression: atExpression(atMs),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: this.o.queueArn, RoleArn: this.o.schedulerRoleArn, Input: JSON.stringify(message) },
    };
  }

  /**
   * Create, or update when the name exists (ConflictException). Between the two calls the schedule may
   * fire and delete itself (ResourceNotFoundException on update), or a concurrent step may touch it
   * (ConflictException on update): each case flips to the other call, a few times at most.
   */
  private async upsert(request: ScheduleRequest): Promise<'created' | 'updated'> {
    let action: 'created' | 'updated' = 'created';
    let last: unknown;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        if (action === 'created') await this.o.scheduler.createSchedule(request);
        else await this.o.scheduler.updateSchedule(request);
        return action;
      } catch (err) {
        last = err;
        if (err instanceof ConflictError) action = 'updated';
        else if (err instanceof NotFoundError && action === 'updated') action = 'created';
        else throw err;
      }
    }
    throw new ConflictError(`schedule ${request.Name} kept changing while it was being armed`, { cause: last });
  }
}

/** The reason a timer's message carries, `timer:<kind>`, so the step knows why it woke. */
export function timerReason(kind: TimerKind): string {
  return `timer:${kind}`;
}

function sanitise(text: string): string {
  return text.replace(/[^0-9A-Za-z_.-]/g, '-');
}
