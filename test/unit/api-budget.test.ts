/**
 * The per-EKS-cluster API request budget's arithmetic (lib/budget/gcra.ts, docs/adr/0028): GCRA's
 * schedule, when a reservation may start, and the bound it keeps — at most burst + rate·L requests
 * start in any window of L seconds — over arrivals far beyond the rate.
 */
import { describe, expect, it } from '@jest/globals';

import { reserve, reservedTatMs, scheduleMs, startAtMs } from '../../lib/budget/gcra.js';
import { MemoryApiBudget } from '../../lib/budget/memory.js';
import { deferSeconds, isBudgeted } from '../../lib/step/api-budget.js';

const RATE = { requestsPerSecond: 50, burstRequests: 50 };
const T0 = 1_000_000;

describe('the budget schedule', () => {
  it.each([
    { name: 'an idle budget (none yet) starts from now', tat: undefined, now: T0, requests: 25, want: T0 + 500 },
    { name: 'an idle budget (behind now) starts from now', tat: T0 - 10_000, now: T0, requests: 25, want: T0 + 500 },
    { name: 'a busy budget is extended', tat: T0 + 2_000, now: T0, requests: 25, want: T0 + 2_500 },
    { name: 'one request is a fiftieth of a second', tat: T0, now: T0, requests: 1, want: T0 + 20 },
  ])('$name', ({ tat, now, requests, want }) => {
    expect(reservedTatMs(tat, now, requests, RATE)).toBe(want);
  });

  it.each([
    { name: 'owing at most the burst, it starts now', tat: T0 + 1_000, want: T0 },
    { name: 'owing less than the burst, it starts now', tat: T0 + 400, want: T0 },
    { name: 'owing more, it starts once the schedule is down to the burst', tat: T0 + 1_500, want: T0 + 500 },
    { name: 'far behind, it waits the rest', tat: T0 + 61_000, want: T0 + 60_000 },
  ])('$name', ({ tat, want }) => {
    expect(startAtMs(tat, T0, RATE)).toBe(want);
  });

  it.each([
    { name: 'two full steps fit the burst', before: undefined, want: [T0, T0] },
    { name: 'the third waits half a second', before: T0 + 1_000, want: [T0 + 500] },
  ])('$name', ({ before, want }) => {
    let tat = before;
    const starts = want.map(() => {
      const r = reserve(tat, T0, 25, RATE);
      tat = r.tatMs;
      return r.startAtMs;
    });
    expect(starts).toEqual(want);
  });

  it.each([
    { name: '50 a second, burst 50', rate: { requestsPerSecond: 50, burstRequests: 50 }, cost: 25, arrivalsPerS: 20 },
    { name: '50 a second, burst 25', rate: { requestsPerSecond: 50, burstRequests: 25 }, cost: 25, arrivalsPerS: 10 },
    { name: '10 a second, burst 23', rate: { requestsPerSecond: 10, burstRequests: 23 }, cost: 23, arrivalsPerS: 5 },
    { name: '1 000 a second, burst 100, single requests', rate: { requestsPerSecond: 1_000, burstRequests: 100 }, cost: 1, arrivalsPerS: 3_000 },
  ])('$name: steps arriving far faster than the rate start at most burst + rate in any second, and at the rate on average', async ({ rate, cost, arrivalsPerS }) => {
    // Prepare: a minute of arrivals at `arrivalsPerS`, every one reserving as it arrives.
    const budget = new MemoryApiBudget();
    const starts: number[] = [];
    for (let i = 0; i < 60 * arrivalsPerS; i++) {
      const now = T0 + Math.floor((i * 1000) / arrivalsPerS);
      // Act
      starts.push(await budget.reserve('eks', cost, now, rate));
    }
    // Assess: requests started in every one-second window (sliding, by the millisecond of each start).
    starts.sort((a, b) => a - b);
    let worst = 0;
    for (let i = 0, j = 0; i < starts.length; i++) {
      while ((starts[j] ?? 0) <= (starts[i] ?? 0) - 1000) j++;
      worst = Math.max(worst, (i - j + 1) * cost);
    }
    expect(worst).toBeLessThanOrEqual(rate.burstRequests + rate.requestsPerSecond);
    const spanS = ((starts.at(-1) ?? T0) - T0) / 1000;
    expect((starts.length * cost - rate.burstRequests) / spanS).toBeLessThanOrEqual(rate.requestsPerSecond * 1.01);
  });

  it('each EKS cluster has its own budget', async () => {
    const budget = new MemoryApiBudget();
    await budget.reserve('eks-a', 50, T0, RATE);
    await budget.reserve('eks-a', 50, T0, RATE);
    expect([await budget.reserve('eks-a', 25, T0, RATE), await budget.reserve('eks-b', 25, T0, RATE)]).toEqual([T0 + 1_500, T0]);
  });

  it('scheduleMs: requests over the rate, in milliseconds', () => {
    expect(scheduleMs(23, { requestsPerSecond: 10 })).toBe(2_300);
  });
});

describe('what a step defers, and by how long', () => {
  it.each([
    { name: 'a start now: not deferred', startAt: T0, want: 0 },
    { name: 'a start past: not deferred', startAt: T0 - 5, want: 0 },
    { name: 'a millisecond ahead: one second (SQS delays are whole seconds)', startAt: T0 + 1, want: 1 },
    { name: 'two and a half seconds ahead: three', startAt: T0 + 2_500, want: 3 },
    { name: "beyond SQS's longest delay: 900 s, then deferred again", startAt: T0 + 2_000_000, want: 900 },
  ])('$name', ({ startAt, want }) => {
    expect(deferSeconds(startAt, T0)).toBe(want);
  });

  it.each([
    { name: 'a watch event', trigger: { reason: 'watch' }, want: true },
    { name: "the sweep's full step", trigger: { reason: 'sweep' }, want: true },
    { name: "a timer's wake-up", trigger: { reason: 'timer:wake', dueAtMs: T0 }, want: true },
    { name: 'a health check (asks the API server nothing at rest)', trigger: { reason: 'health', dueAtMs: T0 }, want: false },
    { name: "an operator's request", trigger: { reason: 'admin:step' }, want: false },
  ])('$name is budgeted: $want', ({ trigger, want }) => {
    expect(isBudgeted(trigger)).toBe(want);
  });
});
