import { describe, expect, it } from '@jest/globals';

import { VirtualClock } from '../../lib/platform/clock.js';
import { TerminalError } from '../../lib/platform/errors.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { EventBridgeScheduler, type SchedulerCommand } from '../../lib/timer/eventbridge.js';
import { MemoryScheduler } from '../../lib/timer/memory-scheduler.js';
import type { ScheduleRequest } from '../../lib/timer/port.js';
import { executeSchedule } from '../../lib/wiring/execute-schedule.js';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const INPUT = JSON.stringify({ key: 'BackupSchedule:local/demo/nightly', reason: 'cron:backup-schedule' });

const request = (over: Partial<ScheduleRequest> = {}): ScheduleRequest => ({
  Name: 'nightly',
  GroupName: 'timers',
  ScheduleExpression: 'cron(0 2 * * ? *)',
  ScheduleExpressionTimezone: 'Asia/Shanghai',
  FlexibleTimeWindow: { Mode: 'OFF' },
  ActionAfterCompletion: 'NONE',
  State: 'ENABLED',
  Target: { Arn: 'arn:aws:sqs:us-east-1:1:q', RoleArn: 'arn:aws:iam::1:role/s', Input: INPUT },
  ...over,
});

function world() {
  const clock = new VirtualClock(T0);
  const queue = new MemoryReconcileQueue({ clock });
  const scheduler = new MemoryScheduler({ clock, queue });
  const fired = async (): Promise<unknown[]> => {
    const records = await queue.receive(10, 0);
    await queue.delete(records.map((r) => r.receiptHandle));
    return records.map((r) => JSON.parse(r.body) as unknown);
  };
  return { clock, scheduler, fired };
}

describe('the simulated EventBridge Scheduler runs recurring cron schedules', () => {
  it('fires cron(0 2 * * ? *) in Asia/Shanghai at 18:00 UTC each day, the fire time as enqueuedAtMs', async () => {
    const { clock, scheduler, fired } = world();
    await scheduler.createSchedule(request());
    await clock.advanceTo(T0 + 18 * HOUR - 1);
    expect(await fired()).toEqual([]);
    await clock.advance(1);
    expect(await fired()).toEqual([{ key: 'BackupSchedule:local/demo/nightly', reason: 'cron:backup-schedule', enqueuedAtMs: T0 + 18 * HOUR }]);
    await clock.advance(24 * HOUR);
    expect(await fired()).toHaveLength(1);
    expect(scheduler.list()[0]).toMatchObject({ state: 'ENABLED', fireAtMs: T0 + 18 * HOUR + 48 * HOUR });
  });

  it('a DISABLED schedule exists and fires nothing; enabled again it fires from the next slot on (a missed one is not made up)', async () => {
    const { clock, scheduler, fired } = world();
    await scheduler.createSchedule(request({ State: 'DISABLED' }));
    await clock.advance(3 * 24 * HOUR);
    expect(await fired()).toEqual([]);
    expect(await scheduler.getSchedule('nightly', 'timers')).toMatchObject({ State: 'DISABLED', ScheduleExpression: 'cron(0 2 * * ? *)' });
    await scheduler.updateSchedule(request());
    expect(await fired()).toEqual([]);
    await clock.advance(24 * HOUR);
    expect(await fired()).toHaveLength(1);
  });

  it.each([
    ['cron(0 2 * * * *)', /exactly one of day-of-month and day-of-week must be \?/],
    ['cron(0 2 ? * ? *)', /exactly one of day-of-month and day-of-week must be \?/],
    ['cron(0 2 * * ?)', /a cron expression has 6 fields, got 5/],
    ['cron(0 2 ? * 1/2 *)', /day-of-week field 1\/2 holds characters Scheduler does not accept/],
  ])('refuses %s as Scheduler does (ValidationException)', async (expression, message) => {
    const { scheduler } = world();
    await expect(scheduler.createSchedule(request({ ScheduleExpression: expression }))).rejects.toThrow(message);
    await expect(scheduler.createSchedule(request({ ScheduleExpression: expression }))).rejects.toBeInstanceOf(TerminalError);
    expect(scheduler.list()).toEqual([]);
  });

  it('refuses an unknown time zone, and an update that would be refused leaves the schedule firing as before', async () => {
    const { clock, scheduler, fired } = world();
    await expect(scheduler.createSchedule(request({ ScheduleExpressionTimezone: 'Mars/Olympus' }))).rejects.toThrow(/Invalid ScheduleExpressionTimezone/);
    await scheduler.createSchedule(request());
    await expect(scheduler.updateSchedule(request({ ScheduleExpression: 'cron(bad)' }))).rejects.toBeInstanceOf(TerminalError);
    await clock.advance(18 * HOUR);
    expect(await fired()).toHaveLength(1);
  });

  it('getSchedule answers undefined for a schedule that does not exist; a deleted schedule fires nothing', async () => {
    const { clock, scheduler, fired } = world();
    expect(await scheduler.getSchedule('nightly', 'timers')).toBeUndefined();
    await scheduler.createSchedule(request());
    await scheduler.deleteSchedule('nightly', 'timers');
    await clock.advance(48 * HOUR);
    expect(await fired()).toEqual([]);
  });
});

describe('schedule.put / schedule.delete', () => {
  it('a put ends with the schedule as asked whichever call it takes; a delete of a gone schedule is done', async () => {
    const { scheduler } = world();
    await executeSchedule(scheduler, { kind: 'schedule.put', request: request(), exists: true });
    await executeSchedule(scheduler, { kind: 'schedule.put', request: request({ State: 'DISABLED' }), exists: false });
    expect(await scheduler.getSchedule('nightly', 'timers')).toMatchObject({ State: 'DISABLED' });
    await executeSchedule(scheduler, { kind: 'schedule.delete', name: 'nightly', groupName: 'timers' });
    await executeSchedule(scheduler, { kind: 'schedule.delete', name: 'nightly', groupName: 'timers' });
    expect(await scheduler.getSchedule('nightly', 'timers')).toBeUndefined();
  });

  it('without a scheduler wired a Scheduler action is a TerminalError', async () => {
    await expect(executeSchedule(undefined, { kind: 'schedule.delete', name: 'x' })).rejects.toBeInstanceOf(TerminalError);
  });

  it('EventBridge: GetSchedule maps ResourceNotFoundException to undefined and the output to the request shape', async () => {
    const sent: SchedulerCommand[] = [];
    let found = true;
    const client = {
      send: async (command: SchedulerCommand): Promise<unknown> => {
        sent.push(command);
        if (!found) throw Object.assign(new Error('missing'), { name: 'ResourceNotFoundException' });
        return { Name: 'nightly', GroupName: 'timers', ScheduleExpression: 'cron(0 2 * * ? *)', ScheduleExpressionTimezone: 'UTC', State: 'DISABLED', FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: 'a', RoleArn: 'r', Input: INPUT } };
      },
    };
    const eb = new EventBridgeScheduler({ client });
    expect(await eb.getSchedule('nightly', 'timers')).toMatchObject({ Name: 'nightly', State: 'DISABLED', ActionAfterCompletion: 'NONE', Target: { Input: INPUT } });
    expect(sent[0]?.input).toEqual({ Name: 'nightly', GroupName: 'timers' });
    found = false;
    expect(await eb.getSchedule('nightly', 'timers')).toBeUndefined();
  });
});
