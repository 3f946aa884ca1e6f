/**
 * A clock-driven stand-in for EventBridge Scheduler (local stack, simulator, tests): one-time `at()`
 * schedules and recurring `cron(...)` ones (evaluated in their `ScheduleExpressionTimezone`, see
 * `eventbridge-cron.ts`) that, when due on the `Clock`, send their target input to the reconcile queue.
 * Scheduler invokes targets with 60 s precision; this fires at the `at()` time rounded *down* to the
 * minute, the early end of that window, so code that mishandles an early wake-up fails here rather
 * than in AWS. A schedule whose `State` is `DISABLED` exists and fires nothing. An input without
 * `enqueuedAtMs` (a recurring schedule's cannot know its send time) gets the fire time, as the
 * consumer reads SQS's `SentTimestamp` for it.
 */

import type { Clock, TimerHandle } from '../platform/clock.js';
import { ConflictError, NotFoundError, TerminalError } from '../platform/errors.js';
import { isReconcileMessageBody, type ReconcileQueue } from '../queue/port.js';
import { eventBridgeCron, isCronExpression, nextCronFireMs } from './eventbridge-cron.js';
import type { ScheduleRequest, SchedulerPort } from './port.js';

/** Settings: where due schedules deliver, the precision to model, and where delivery errors go. */
export type MemorySchedulerOptions = {
  clock: Clock;
  queue: ReconcileQueue;
  /** Fire times round down to a multiple of this (default 60 000 ms, Scheduler's precision). */
  precisionMs?: number;
  /**
   * The queue a due schedule sends to on behalf of its target's role (default `queue` itself); the
   * local world passes one that assumes that role first (lib/local/iam/guarded-ports.ts).
   */
  deliverTo?: (request: ScheduleRequest) => Pick<ReconcileQueue, 'send'>;
  onError?: (error: unknown, scheduleName: string) => void;
};

/** A schedule that exists; `fireAtMs` is its next fire time (undefined: disabled, or never again). */
export type PendingSchedule = { name: string; groupName: string; expression: string; timezone: string; state: 'ENABLED' | 'DISABLED'; fireAtMs: number | undefined; input: string };

type Entry = PendingSchedule & { request: ScheduleRequest; timer: TimerHandle | undefined };

const AT = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;

/**
 * `SchedulerPort` in memory with Scheduler's name rules: creating an existing (group, name) is a
 * `ConflictError`, updating or deleting a missing one a `NotFoundError`. One-time `at()` expressions
 * in UTC (what timers create; a time already past fires at once) and recurring `cron(...)` in any
 * IANA zone are supported; anything else is a `TerminalError`, as Scheduler's `ValidationException`.
 */
export class MemoryScheduler implements SchedulerPort {
  private readonly clock: Clock;
  private readonly queue: ReconcileQueue;
  private readonly precisionMs: number;
  private readonly deliverTo: ((request: ScheduleRequest) => Pick<ReconcileQueue, 'send'>) | undefined;
  private readonly onError: (error: unknown, scheduleName: string) => void;
  private readonly entries = new Map<string, Entry>();
  private fired = 0;

  constructor(options: MemorySchedulerOptions) {
    this.clock = options.clock;
    this.queue = options.queue;
    this.precisionMs = options.precisionMs ?? 60_000;
    this.deliverTo = options.deliverTo;
    this.onError =
      options.onError ??
      ((error, name) => console.error(JSON.stringify({ msg: 'schedule delivery failed', name, error: String(error) })));
  }

  async createSchedule(request: ScheduleRequest): Promise<void> {
    const id = entryId(request.Name, request.GroupName);
    if (this.entries.has(id)) throw new ConflictError(`schedule ${id} already exists`);
    validate(request);
    this.arm(request);
  }

  async updateSchedule(request: ScheduleRequest): Promise<void> {
    const id = entryId(request.Name, request.GroupName);
    const old = this.entries.get(id);
    if (!old) throw new NotFoundError(`schedule ${id} does not exist`);
    validate(request);
    if (old.timer) this.clock.clearTimer(old.timer);
    this.arm(request);
  }

  async deleteSchedule(name: string, groupName?: string): Promise<void> {
    const id = entryId(name, groupName);
    const old = this.entries.get(id);
    if (!old) throw new NotFoundError(`schedule ${id} does not exist`);
    if (old.timer) this.clock.clearTimer(old.timer);
    this.entries.delete(id);
  }

  async getSchedule(name: string, groupName?: string): Promise<ScheduleRequest | undefined> {
    const entry = this.entries.get(entryId(name, groupName));
    return entry === undefined ? undefined : { ...entry.request, State: entry.request.State ?? 'ENABLED' };
  }

  /** Schedules that exist, soonest first, disabled ones last (fired one-time ones stay listed only with `ActionAfterCompletion: NONE`). */
  list(): PendingSchedule[] {
    return [...this.entries.values()]
      .map(({ name, groupName, expression, timezone, state, fireAtMs, input }) => ({ name, groupName, expression, timezone, state, fireAtMs, input }))
      .sort((a, b) => (a.fireAtMs ?? Infinity) - (b.fireAtMs ?? Infinity));
  }

  /** How many schedules have fired so far. */
  firedCount(): number {
    return this.fired;
  }

  private arm(request: ScheduleRequest): void {
    const recurring = isCronExpression(request.ScheduleExpression);
    const state = request.State ?? 'ENABLED';
    const entry: Entry = {
      name: request.Name,
      groupName: request.GroupName ?? 'default',
      expression: request.ScheduleExpression,
      timezone: request.ScheduleExpressionTimezone,
      state,
      fireAtMs: undefined,
      input: request.Target.Input,
      request,
      timer: undefined,
    };
    this.entries.set(entryId(request.Name, request.GroupName), entry);
    if (state === 'DISABLED') return;
    if (recurring) this.armNext(entry);
    else {
      entry.fireAtMs = Math.floor(parseAt(request) / this.precisionMs) * this.precisionMs;
      entry.timer = this.clock.setTimer(() => this.fire(entry), Math.max(0, entry.fireAtMs - this.clock.nowMs()));
    }
  }

  /** A recurring schedule's next fire, strictly after now (a slot missed while disabled is not made up). */
  private armNext(entry: Entry): void {
    entry.fireAtMs = nextCronFireMs(entry.expression, entry.timezone, this.clock.nowMs());
    if (entry.fireAtMs === undefined) return;
    entry.timer = this.clock.setTimer(() => this.fire(entry), Math.max(0, entry.fireAtMs - this.clock.nowMs()));
  }

  private fire(entry: Entry): void {
    this.fired++;
    entry.timer = undefined;
    const id = entryId(entry.name, entry.groupName);
    const firedAtMs = entry.fireAtMs ?? this.clock.nowMs();
    if (isCronExpression(entry.expression)) this.armNext(entry);
    else if (entry.request.ActionAfterCompletion === 'DELETE' && this.entries.get(id) === entry) this.entries.delete(id);
    let message: unknown;
    try {
      message = JSON.parse(entry.input);
    } catch (err) {
      this.onError(new TerminalError(`schedule ${id} input is not JSON`, { cause: err }), entry.name);
      return;
    }
    if (typeof message === 'object' && message !== null && !('enqueuedAtMs' in message)) message = { ...message, enqueuedAtMs: firedAtMs };
    if (!isReconcileMessageBody(message)) {
      this.onError(new TerminalError(`schedule ${id} input is not a reconcile message`), entry.name);
      return;
    }
    let target: Pick<ReconcileQueue, 'send'>;
    try {
      target = this.deliverTo?.(entry.request) ?? this.queue;
    } catch (err) {
      this.onError(err, entry.name);
      return;
    }
    target.send([{ message }]).catch((err: unknown) => this.onError(err, entry.name));
  }
}

/** Group and name identify a schedule; the default group is `default`, as in Scheduler. */
function entryId(name: string, groupName: string | undefined): string {
  return `${groupName ?? 'default'}/${name}`;
}

/** What Scheduler checks before accepting a request: the expression in its zone. */
function validate(request: ScheduleRequest): void {
  if (isCronExpression(request.ScheduleExpression)) eventBridgeCron(request.ScheduleExpression, request.ScheduleExpressionTimezone);
  else parseAt(request);
}

function parseAt(request: ScheduleRequest): number {
  const match = AT.exec(request.ScheduleExpression);
  const tz = request.ScheduleExpressionTimezone;
  if (!match?.[1] || (tz !== 'UTC' && tz !== 'Etc/UTC')) {
    throw new TerminalError(
      `unsupported schedule expression ${request.ScheduleExpression} (${tz}); only at() in UTC is modelled`,
      { field: 'ScheduleExpression' },
    );
  }
  return Date.parse(`${match[1]}Z`);
}
