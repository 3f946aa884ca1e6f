import { describe, expect, it } from '@jest/globals';
import {
  ConflictException,
  ResourceNotFoundException,
  ThrottlingException,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';

import { VirtualClock } from '../../lib/platform/clock.js';
import { TransientError } from '../../lib/platform/errors.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import type { ReconcileMessageBody } from '../../lib/queue/port.js';
import { EventBridgeScheduler, type SchedulerCommand, type SchedulerSender } from '../../lib/timer/eventbridge.js';
import { MemoryScheduler } from '../../lib/timer/memory-scheduler.js';
import { atExpression, QueueSchedulerTimers, scheduleName } from '../../lib/timer/timers.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const HOUR = 60 * MIN;
const KEY = 'prod-eks/tidb/basic';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:reconcile';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/scheduler-to-sqs';
const LONG = 'x'.repeat(80);

type Call = { command: string; input: Partial<CreateScheduleCommandInput> };

/**
 * A SchedulerClient stand-in with Scheduler's name rules (create on an existing name → ConflictException;
 * update/delete of a missing one → ResourceNotFoundException). `before` can change state or fail a call
 * just before it is applied, to stage races.
 */
class FakeSchedulerClient implements SchedulerSender {
  readonly calls: Call[] = [];
  readonly names = new Set<string>();
  before: ((call: Call, fake: FakeSchedulerClient) => Error | undefined) | undefined;

  async send(command: SchedulerCommand): Promise<unknown> {
    const call = { command: command.constructor.name.replace(/Command$/, ''), input: { ...command.input } };
    this.calls.push(call);
    const injected = this.before?.(call, this);
    if (injected) throw injected;
    const name = `${call.input.GroupName ?? 'default'}/${call.input.Name ?? ''}`;
    const exists = this.names.has(name);
    const meta = { $metadata: {} };
    if (call.command === 'CreateSchedule' && exists) {
      throw new ConflictException({ message: 'exists', Message: 'exists', ...meta });
    }
    if (call.command !== 'CreateSchedule' && !exists) {
      throw new ResourceNotFoundException({ message: 'missing', Message: 'missing', ...meta });
    }
    if (call.command === 'DeleteSchedule') this.names.delete(name);
    else this.names.add(name);
    return {};
  }
}

function setupAws() {
  const clock = new VirtualClock(T0);
  const queue = new MemoryReconcileQueue({ clock });
  const client = new FakeSchedulerClient();
  const timers = new QueueSchedulerTimers({
    queue,
    scheduler: new EventBridgeScheduler({ client }),
    queueArn: QUEUE_ARN,
    schedulerRoleArn: ROLE_ARN,
    groupName: 'tidb-reconciler',
  });
  return { clock, queue, client, timers };
}

function setupMemory() {
  const clock = new VirtualClock(T0);
  const queue = new MemoryReconcileQueue({ clock });
  const scheduler = new MemoryScheduler({ clock, queue });
  const timers = new QueueSchedulerTimers({ queue, scheduler, queueArn: QUEUE_ARN, schedulerRoleArn: ROLE_ARN });
  // Consumes (receives and deletes) what is visible now, as a successful step would.
  const received = async (): Promise<ReconcileMessageBody[]> => {
    const records = await queue.receive(10, 0);
    await queue.delete(records.map((r) => r.receiptHandle));
    return records.map((r) => JSON.parse(r.body) as ReconcileMessageBody);
  };
  return { clock, queue, scheduler, timers, received };
}

describe('timers: up to 900 s ride on the queue delay', () => {
  it.each([
    { name: 'a wake-up now has no delay', afterMs: 0, delaySeconds: 0 },
    { name: 'a wake-up in the past wakes at once', afterMs: -5_000, delaySeconds: 0 },
    { name: '1 ms ahead rounds up to 1 s, never early', afterMs: 1, delaySeconds: 1 },
    { name: 'exactly 900 s ahead is still a queue delay', afterMs: 900_000, delaySeconds: 900 },
  ])('$name', async ({ afterMs, delaySeconds }) => {
    // Prepare
    const { clock, queue, client, timers } = setupAws();
    // Act
    const wake = await timers.wakeAt(KEY, 'requeue', T0 + afterMs, T0);
    // Assess
    expect(wake).toEqual({ via: 'queue', delaySeconds });
    expect(client.calls).toEqual([]);
    await clock.advance(delaySeconds * 1000);
    const [record] = await queue.receive(10, 0);
    expect(JSON.parse(record?.body ?? '{}')).toEqual({ key: KEY, reason: 'timer:requeue', enqueuedAtMs: T0, dueAtMs: T0 + afterMs });
  });
});

describe('timers: longer waits are one-time EventBridge schedules', () => {
  it.each([
    { name: '900 s and 1 ms ahead', afterMs: 900_001, expression: 'at(2026-01-01T00:15:01)' },
    { name: 'two hours and half a second ahead', afterMs: 2 * HOUR + 500, expression: 'at(2026-01-01T02:00:01)' },
    { name: 'TiKV eviction, 1500 min ahead', afterMs: 1500 * MIN, expression: 'at(2026-01-02T01:00:00)' },
  ])('$name creates the schedule of (key, kind) with the exact at() time in UTC', async ({ afterMs, expression }) => {
    const { client, timers } = setupAws();
    const wake = await timers.wakeAt(KEY, 'failover-tikv', T0 + afterMs, T0);
    const name = scheduleName(KEY, 'failover-tikv');
    expect(wake).toEqual({ via: 'schedule', name, expression, action: 'created' });
    expect(client.calls).toEqual([
      {
        command: 'CreateSchedule',
        input: {
          Name: name,
          GroupName: 'tidb-reconciler',
          Description: `tidb-reconciler: wake ${KEY} for failover-tikv`,
          ScheduleExpression: expression,
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: QUEUE_ARN,
            RoleArn: ROLE_ARN,
            Input: JSON.stringify({ key: KEY, reason: 'timer:failover-tikv', enqueuedAtMs: T0 + afterMs, dueAtMs: T0 + afterMs }),
          },
        },
      },
    ]);
  });

  it('re-arming a timer updates the same schedule instead of adding one', async () => {
    const { client, timers } = setupAws();
    await timers.wakeAt(KEY, 'failover-tikv', T0 + 3 * HOUR, T0);
    const wake = await timers.wakeAt(KEY, 'failover-tikv', T0 + 2 * HOUR, T0 + MIN);
    expect(wake).toMatchObject({ action: 'updated', expression: 'at(2026-01-01T02:00:00)' });
    expect(client.calls.map((c) => [c.command, c.input.Name, c.input.ScheduleExpression])).toEqual([
      ['CreateSchedule', scheduleName(KEY, 'failover-tikv'), 'at(2026-01-01T03:00:00)'],
      ['CreateSchedule', scheduleName(KEY, 'failover-tikv'), 'at(2026-01-01T02:00:00)'],
      ['UpdateSchedule', scheduleName(KEY, 'failover-tikv'), 'at(2026-01-01T02:00:00)'],
    ]);
    expect(client.names.size).toBe(1);
  });

  it('a schedule that fires and deletes itself between the conflict and the update is created again', async () => {
    const { client, timers } = setupAws();
    await timers.wakeAt(KEY, 'failover-pd', T0 + 2 * HOUR, T0);
    client.before = (call, fake) => {
      if (call.command === 'UpdateSchedule') fake.names.clear(); // it fired: ActionAfterCompletion DELETE
      return undefined;
    };
    const wake = await timers.wakeAt(KEY, 'failover-pd', T0 + 3 * HOUR, T0);
    expect(wake).toMatchObject({ action: 'created' });
    expect(client.calls.map((c) => c.command)).toEqual([
      'CreateSchedule',
      'CreateSchedule',
      'UpdateSchedule',
      'CreateSchedule',
    ]);
  });

  it('a concurrent change during the update (ConflictException) is retried as an update', async () => {
    const { client, timers } = setupAws();
    await timers.wakeAt(KEY, 'failover-pd', T0 + 2 * HOUR, T0);
    let updates = 0;
    const busy = new ConflictException({ message: 'busy', Message: 'busy', $metadata: {} });
    client.before = (call) => (call.command === 'UpdateSchedule' && ++updates === 1 ? busy : undefined);
    expect(await timers.wakeAt(KEY, 'failover-pd', T0 + 3 * HOUR, T0)).toMatchObject({ action: 'updated' });
    expect(updates).toBe(2);
  });

  it('throttling surfaces as a TransientError for the step to retry', async () => {
    const { client, timers } = setupAws();
    client.before = () => new ThrottlingException({ message: 'slow down', Message: 'slow down', $metadata: {} });
    await expect(timers.wakeAt(KEY, 'failover-pd', T0 + 2 * HOUR, T0)).rejects.toBeInstanceOf(TransientError);
  });

  it.each([
    { name: 'an armed timer is deleted', armed: true },
    { name: 'a timer that is not there (fired or never armed) is fine', armed: false },
  ])('cancel: $name', async ({ armed }) => {
    const { client, timers } = setupAws();
    if (armed) await timers.wakeAt(KEY, 'failover-pd', T0 + 2 * HOUR, T0);
    await timers.cancel(KEY, 'failover-pd');
    expect(client.calls.at(-1)).toEqual({
      command: 'DeleteSchedule',
      input: { Name: scheduleName(KEY, 'failover-pd'), GroupName: 'tidb-reconciler' },
    });
    expect(client.names.size).toBe(0);
  });

  it('cancel passes on errors other than not-found', async () => {
    const { client, timers } = setupAws();
    client.before = () => new ThrottlingException({ message: 'slow down', Message: 'slow down', $metadata: {} });
    await expect(timers.cancel(KEY, 'failover-pd')).rejects.toBeInstanceOf(TransientError);
  });
});

describe('timers: schedule names and expressions', () => {
  const allowed = /^[0-9A-Za-z_.-]{1,64}$/;
  it.each([
    { name: 'a typical key reads back', key: KEY, kind: 'failover-tikv', prefix: 'prod-eks.tidb.basic_failover-tikv-' },
    { name: 'odd characters are replaced', key: 'c/ns/a+b:c', kind: 'x y', prefix: 'c.ns.a-b-c_x-y-' },
    { name: 'a long key is cut to fit 64', key: `c/${'n'.repeat(63)}/${'t'.repeat(63)}`, kind: 'pd', prefix: 'c.nnn' },
  ])('$name, within Scheduler name rules', ({ key, kind, prefix }) => {
    const name = scheduleName(key, kind);
    expect(name).toMatch(allowed);
    expect(name.startsWith(prefix)).toBe(true);
    expect(name).toMatch(/-[0-9a-f]{12}$/);
    expect(scheduleName(key, kind)).toBe(name);
  });

  it.each([
    { name: 'keys equal after sanitising', a: ['c/ns/a+b', 'k'], b: ['c/ns/a:b', 'k'] },
    { name: 'a slash and a dot', a: ['c/ns/a', 'k'], b: ['c.ns.a', 'k'] },
    { name: 'long keys equal in their first 51 characters', a: [`c/ns/${LONG}1`, 'k'], b: [`c/ns/${LONG}2`, 'k'] },
    { name: 'one key, two kinds', a: [KEY, 'failover-pd'], b: [KEY, 'failover-tikv'] },
  ])('different (key, kind) pairs get different names: $name', ({ a, b }) => {
    expect(scheduleName(a[0] ?? '', a[1] ?? '')).not.toBe(scheduleName(b[0] ?? '', b[1] ?? ''));
  });

  it.each([
    { name: 'a whole second is kept', atMs: Date.UTC(2026, 4, 17, 8, 9, 10), expected: 'at(2026-05-17T08:09:10)' },
    { name: 'milliseconds round up', atMs: Date.UTC(2026, 11, 31, 23, 59, 59, 1), expected: 'at(2027-01-01T00:00:00)' },
  ])('at() is UTC with seconds: $name', ({ atMs, expected }) => {
    expect(atExpression(atMs)).toBe(expected);
  });
});

describe('memory scheduler on the virtual clock', () => {
  it('fires at the at() time rounded down to the minute, by sending the timer message to the queue', async () => {
    // Prepare
    const { clock, scheduler, timers, received } = setupMemory();
    const deadlineMs = T0 + 2 * HOUR + 45_000;
    // Act
    await timers.wakeAt(KEY, 'failover-tikv', deadlineMs, T0);
    await clock.advanceTo(T0 + 2 * HOUR - 1);
    const before = await received();
    await clock.advance(1);
    // Assess: 45 s early, as Scheduler's 60 s precision allows; then the schedule is gone.
    expect(before).toEqual([]);
    expect(await received()).toEqual([{ key: KEY, reason: 'timer:failover-tikv', enqueuedAtMs: deadlineMs, dueAtMs: deadlineMs }]);
    expect(scheduler.list()).toEqual([]);
  });

  it('an early wake-up re-arms a short queue delay that lands on the deadline', async () => {
    const { clock, timers, received } = setupMemory();
    const deadlineMs = T0 + 2 * HOUR + 45_000;
    await timers.wakeAt(KEY, 'failover-tikv', deadlineMs, T0);
    await clock.advanceTo(T0 + 2 * HOUR);
    await received();
    const rearmed = await timers.wakeAt(KEY, 'failover-tikv', deadlineMs, clock.nowMs());
    expect(rearmed).toEqual({ via: 'queue', delaySeconds: 45 });
    await clock.advanceTo(deadlineMs - 1);
    expect(await received()).toEqual([]);
    await clock.advanceTo(deadlineMs);
    expect(await received()).toHaveLength(1);
  });

  it.each([
    { name: 'moved earlier', firstMs: 3 * HOUR, secondMs: 2 * HOUR },
    { name: 'moved later', firstMs: 1 * HOUR, secondMs: 4 * HOUR },
  ])('a re-armed timer fires once, at its new time: $name', async ({ firstMs, secondMs }) => {
    const { clock, scheduler, timers, received } = setupMemory();
    await timers.wakeAt(KEY, 'failover-pd', T0 + firstMs, T0);
    await timers.wakeAt(KEY, 'failover-pd', T0 + secondMs, T0);
    await clock.advanceTo(T0 + secondMs - 1);
    expect(await received()).toEqual([]);
    await clock.advanceTo(T0 + 5 * HOUR);
    expect(await received()).toHaveLength(1);
    expect(scheduler.firedCount()).toBe(1);
  });

  it('a cancelled timer never fires', async () => {
    const { clock, scheduler, timers, received } = setupMemory();
    await timers.wakeAt(KEY, 'failover-pd', T0 + 2 * HOUR, T0);
    await timers.cancel(KEY, 'failover-pd');
    await clock.advanceTo(T0 + 3 * HOUR);
    expect(await received()).toEqual([]);
    expect(scheduler.firedCount()).toBe(0);
  });
});
