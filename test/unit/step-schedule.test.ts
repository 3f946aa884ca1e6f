import { describe, expect, it } from '@jest/globals';

import type { Outcome } from '../../lib/model/outcome.js';
import { complete, fail, retry, wait } from '../../lib/reconcile/engine/outcome.js';
import { isReplacedWake, planSchedule, type ScheduleInput } from '../../lib/step/schedule.js';
import { T0 } from '../support/fixtures.js';

const NOW = T0 + 10_000;
const EVENT = { reason: 'watch' };
const TIMER = { reason: 'timer:wake' };

function input(outcome: Outcome, over: Partial<ScheduleInput> = {}): ScheduleInput {
  return {
    outcome,
    planWakeAtMs: undefined,
    nowMs: NOW,
    claimed: { failures: 0, nextWakeAtMs: undefined, lastStep: undefined },
    trigger: EVENT,
    backoff: { baseMs: 1_000, maxMs: 100_000, jitterRatio: 0 },
    random: () => 0,
    ...over,
  };
}

const failedBefore = (failures: number, nextWakeAtMs: number) => ({
  failures,
  nextWakeAtMs,
  lastStep: { atMs: NOW - 1_000, outcome: 'fail' as const },
});

describe('the failure counter', () => {
  it.each([
    { name: 'resets on complete', outcome: complete(), expected: 0 },
    { name: 'resets on wait', outcome: wait('pods'), expected: 0 },
    { name: 'resets on a deliberate retry', outcome: retry(5_000, 'poll'), expected: 0 },
    { name: 'counts a retryable failure', outcome: fail('boom'), expected: 4 },
    { name: 'keeps its value on a terminal failure', outcome: fail('bad spec', true), expected: 3 },
  ])('$name', ({ outcome, expected }) => {
    // Prepare: three failures so far, the backoff wake-up already due
    const claimed = failedBefore(3, NOW - 1);
    // Act
    const schedule = planSchedule(input(outcome, { claimed }));
    // Assess
    expect(schedule.failures).toBe(expected);
  });
});

describe('the backoff window: only a step at/after its backoff deadline, or a timer-woken step, counts a failure', () => {
  it.each([
    { name: 'an event before the deadline does not count', trigger: EVENT, nextWakeAtMs: NOW + 3_000, failures: 2, window: true },
    { name: 'an event at the deadline counts', trigger: EVENT, nextWakeAtMs: NOW, failures: 3, window: false },
    { name: 'an event after the deadline counts', trigger: EVENT, nextWakeAtMs: NOW - 500, failures: 3, window: false },
    { name: 'an early timer wake-up counts (Scheduler fires up to a minute early)', trigger: TIMER, nextWakeAtMs: NOW + 30_000, failures: 3, window: false },
  ])('$name', ({ trigger, nextWakeAtMs, failures, window }) => {
    const schedule = planSchedule(input(fail('still broken'), { trigger, claimed: failedBefore(2, nextWakeAtMs) }));
    expect({ failures: schedule.failures, inBackoffWindow: schedule.inBackoffWindow }).toEqual({ failures, inBackoffWindow: window });
  });

  it('a failure inside the window keeps the armed backoff wake-up and arms nothing', () => {
    const schedule = planSchedule(input(fail('still broken'), { claimed: failedBefore(2, NOW + 3_000) }));
    expect(schedule).toMatchObject({ wantWakeAtMs: NOW + 3_000, armAtMs: undefined, storeWakeAtMs: NOW + 3_000 });
  });

  it('a wake-up left by an earlier non-failure is no backoff window', () => {
    const claimed = { failures: 0, nextWakeAtMs: NOW + 3_000, lastStep: { atMs: NOW - 1_000, outcome: 'retry' as const } };
    const schedule = planSchedule(input(fail('boom'), { claimed }));
    expect(schedule).toMatchObject({ failures: 1, inBackoffWindow: false, armAtMs: NOW + 1_000 });
  });
});

describe('wake-ups', () => {
  it.each<{ name: string; outcome: Outcome; planWakeAtMs?: number; want: number | undefined }>([
    { name: 'complete wants none', outcome: complete(), want: undefined },
    { name: 'wait wants none', outcome: wait('pods'), want: undefined },
    { name: 'retry wants now + afterMs', outcome: retry(5_000, 'poll'), want: NOW + 5_000 },
    { name: 'the first failure wants now + 1 s', outcome: fail('boom'), want: NOW + 1_000 },
    { name: 'a terminal failure wants none', outcome: fail('bad', true), want: undefined },
    { name: 'a terminal failure ignores a rule deadline too', outcome: fail('bad', true), planWakeAtMs: NOW + 60_000, want: undefined },
    { name: 'a rule deadline wakes a waiting key', outcome: wait('failover pending'), planWakeAtMs: NOW + 300_000, want: NOW + 300_000 },
    { name: 'the earlier of retry and deadline wins', outcome: retry(600_000, 'poll'), planWakeAtMs: NOW + 300_000, want: NOW + 300_000 },
  ])('$name', ({ outcome, planWakeAtMs, want }) => {
    const schedule = planSchedule(input(outcome, { planWakeAtMs }));
    expect(schedule.wantWakeAtMs).toBe(want);
  });

  it.each([
    { name: 'none pending: arm', pending: undefined, want: 5_000, arm: 5_000, store: 5_000 },
    { name: 'earlier than the pending one: arm and move earlier', pending: 60_000, want: 5_000, arm: 5_000, store: 5_000 },
    { name: 'later than the pending one: never move later', pending: 5_000, want: 60_000, arm: undefined, store: 5_000 },
    { name: 'equal to the pending one: nothing to arm', pending: 5_000, want: 5_000, arm: undefined, store: 5_000 },
    { name: 'nothing wanted: the pending one stays recorded', pending: 5_000, want: undefined, arm: undefined, store: 5_000 },
  ])('a wake-up moves earlier, never later: $name', ({ pending, want, arm, store }) => {
    const claimed = { failures: 0, nextWakeAtMs: pending === undefined ? undefined : NOW + pending, lastStep: undefined };
    const outcome = want === undefined ? complete() : retry(want, 'poll');
    const schedule = planSchedule(input(outcome, { claimed }));
    const rel = (t: number | undefined) => (t === undefined ? undefined : t - NOW);
    expect({ arm: rel(schedule.armAtMs), store: rel(schedule.storeWakeAtMs) }).toEqual({ arm, store });
  });

  it.each([
    { name: 'a past wake-up is consumed', trigger: EVENT, nextWakeAtMs: NOW - 1 },
    { name: 'the wake-up that woke this step is consumed, even if early', trigger: TIMER, nextWakeAtMs: NOW + 30_000 },
  ])('$name: a later wish is armed again', ({ trigger, nextWakeAtMs }) => {
    const claimed = { failures: 0, nextWakeAtMs, lastStep: undefined };
    const schedule = planSchedule(input(retry(60_000, 'poll'), { trigger, claimed }));
    expect(schedule).toMatchObject({ pendingWakeAtMs: undefined, armAtMs: NOW + 60_000, storeWakeAtMs: NOW + 60_000 });
  });
});

describe("a timer's wake-up that a later one replaced", () => {
  it.each([
    { name: 'the stored wake-up is later and still to come: replaced', due: NOW - 1_000, stored: NOW + 500, trigger: TIMER, replaced: true },
    { name: 'it is the stored wake-up: consumed, not replaced', due: NOW - 1_000, stored: NOW - 1_000, trigger: TIMER, replaced: false },
    { name: 'the stored wake-up is due as well: not replaced (it may have been lost to a held lease)', due: NOW - 2_000, stored: NOW, trigger: TIMER, replaced: false },
    { name: 'the stored wake-up is earlier (an early Scheduler wake-up): not replaced', due: NOW + 30_000, stored: NOW + 5_000, trigger: TIMER, replaced: false },
    { name: 'nothing stored: not replaced', due: NOW - 1_000, stored: undefined, trigger: TIMER, replaced: false },
    { name: 'a wake-up that does not say when it was due: never replaced', due: undefined, stored: NOW + 500, trigger: TIMER, replaced: false },
    { name: 'not a timer: never replaced', due: NOW - 1_000, stored: NOW + 500, trigger: EVENT, replaced: false },
  ])('$name', ({ due, stored, trigger, replaced }) => {
    // Act
    const result = isReplacedWake({ nextWakeAtMs: stored }, { ...trigger, ...(due === undefined ? {} : { dueAtMs: due }) }, NOW);
    // Assess
    expect(result).toBe(replaced);
  });
});
