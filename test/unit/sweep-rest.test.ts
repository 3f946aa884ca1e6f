/**
 * The sweep's cheap check (lib/step/sweep-rest.ts, docs/adr/0024): a full step unless everything
 * says the cluster is at rest and was read in full recently; then a health check when none is
 * pending, else nothing. And `runSweep` sends what the check chose.
 */
import { describe, expect, it } from '@jest/globals';

import { COVERAGE_STALE_MS } from '../../lib/exporter/coverage.js';
import type { Clock, TimerHandle } from '../../lib/platform/clock.js';
import { silentLogger } from '../../lib/platform/logger.js';
import { MemoryMetrics } from '../../lib/platform/metrics.js';
import type { OutgoingMessage } from '../../lib/queue/port.js';
import type { StateRecord } from '../../lib/state/port.js';
import { HEALTH_PENDING_GRACE_MS } from '../../lib/step/ports.js';
import { spreadOf, sweepChoice, type SweepCheckInput } from '../../lib/step/sweep-rest.js';
import { runSweep } from '../../lib/step/sweep.js';

const NOW = Date.UTC(2026, 0, 1, 12);
const KEY = 'eks/demo/basic';
const HOUR = 3_600_000;
const CONFIG = { fullReadIntervalMs: 3 * HOUR, fullReadSpreadMs: 0 };

/** A key at rest: last step complete on a full read an hour ago, a health check due in 10 s. */
function atRest(over: Partial<StateRecord> = {}, last: Partial<NonNullable<StateRecord['lastStep']>> = {}): StateRecord {
  return {
    key: KEY,
    fence: 7,
    lease: undefined,
    dirty: false,
    failures: 0,
    nextWakeAtMs: undefined,
    lastStep: { atMs: NOW - 20_000, outcome: 'complete', verified: { uid: 'u1', generation: 2, fullAtMs: NOW - HOUR }, healthAtMs: NOW + 10_000, ...last },
    ...over,
  };
}

function input(over: Partial<SweepCheckInput> = {}): SweepCheckInput {
  return { key: KEY, state: atRest(), listed: { uid: 'u1', generation: 2 }, nowMs: NOW, watchedUntilMs: NOW - 30_000, config: CONFIG, ...over };
}

describe('the sweep checks a cluster cheaply', () => {
  it.each([
    { name: 'at rest with a health check pending: nothing', over: {}, want: { kind: 'none' } },
    { name: 'a health check just past due but within its grace: nothing', over: { state: atRest({}, { healthAtMs: NOW - HEALTH_PENDING_GRACE_MS + 1 }) }, want: { kind: 'none' } },
    { name: 'a health check lost (past its grace): one with the due time the state names', over: { state: atRest({}, { healthAtMs: NOW - HEALTH_PENDING_GRACE_MS }) }, want: { kind: 'health', dueAtMs: NOW - HEALTH_PENDING_GRACE_MS } },
    { name: 'no health check armed: one without a due time', over: { state: atRest({}, { healthAtMs: undefined }) }, want: { kind: 'health', dueAtMs: undefined } },
    { name: 'the check off', over: { config: {} }, want: { kind: 'full' } },
    { name: 'the spec changed (generation)', over: { listed: { uid: 'u1', generation: 3 } }, want: { kind: 'full' } },
    { name: 'created again (uid)', over: { listed: { uid: 'u2', generation: 2 } }, want: { kind: 'full' } },
    { name: 'the LIST gave no identity', over: { listed: undefined }, want: { kind: 'full' } },
    { name: 'no state item', over: { state: undefined }, want: { kind: 'full' } },
    { name: 'the exporter may have missed events (mark stale): with a TiDB Operator re-check', over: { watchedUntilMs: NOW - COVERAGE_STALE_MS - 1 }, want: { kind: 'full', checkTidbOperator: true } },
    { name: 'the exporter never recorded a mark: with a TiDB Operator re-check', over: { watchedUntilMs: undefined }, want: { kind: 'full', checkTidbOperator: true } },
    { name: 'no state item while events may be missed: with a TiDB Operator re-check', over: { state: undefined, watchedUntilMs: undefined }, want: { kind: 'full', checkTidbOperator: true } },
    { name: 'a step holds the lease', over: { state: atRest({ lease: { owner: 'o', untilMs: NOW + 1_000 } }) }, want: { kind: 'full' } },
    { name: 'a step died holding the lease (expired, never released)', over: { state: atRest({ lease: { owner: 'o', untilMs: NOW - 60_000 } }) }, want: { kind: 'full' } },
    { name: 'a trigger arrived during a step (dirty)', over: { state: atRest({ dirty: true }) }, want: { kind: 'full' } },
    { name: 'failing', over: { state: atRest({ failures: 1 }) }, want: { kind: 'full' } },
    { name: 'the last step did not complete', over: { state: atRest({}, { outcome: 'retry' }) }, want: { kind: 'full' } },
    { name: 'the last step verified nothing', over: { state: atRest({}, { verified: undefined }) }, want: { kind: 'full' } },
    { name: 'no time of the last full read (an older item)', over: { state: atRest({}, { verified: { uid: 'u1', generation: 2 } }) }, want: { kind: 'full' } },
    { name: 'the full-read interval has passed', over: { state: atRest({}, { verified: { uid: 'u1', generation: 2, fullAtMs: NOW - 3 * HOUR } }) }, want: { kind: 'full' } },
  ])('$name', ({ over, want }) => {
    expect(sweepChoice(input(over as Partial<SweepCheckInput>))).toEqual(want);
  });

  it('spreads full reads by key over the spread, the same for a key every time', () => {
    const keys = Array.from({ length: 200 }, (_, i) => `eks/demo/tc-${i}`);
    const shares = keys.map((k) => spreadOf(k, HOUR));
    expect(shares.every((s) => s >= 0 && s < HOUR)).toBe(true);
    expect(new Set(shares).size).toBeGreaterThan(190);
    expect(Math.min(...shares)).toBeLessThan(HOUR / 10);
    expect(Math.max(...shares)).toBeGreaterThan((HOUR * 9) / 10);
    expect(keys.map((k) => spreadOf(k, HOUR))).toEqual(shares);
    expect(spreadOf(KEY, 0)).toBe(0);
  });

  it("a key's full read comes its share of the spread after the interval", () => {
    const share = spreadOf(KEY, HOUR);
    const last = (ago: number) => atRest({}, { verified: { uid: 'u1', generation: 2, fullAtMs: NOW - ago } });
    const config = { fullReadIntervalMs: 3 * HOUR, fullReadSpreadMs: HOUR };
    expect(sweepChoice(input({ config, state: last(3 * HOUR + share - 1) })).kind).toBe('none');
    expect(sweepChoice(input({ config, state: last(3 * HOUR + share) })).kind).toBe('full');
  });
});

describe('runSweep sends what the check chose', () => {
  const clock: Clock = { nowMs: () => NOW, setTimer: (): TimerHandle => ({ id: 0 }), clearTimer: () => undefined, sleep: async () => undefined };
  const states = new Map<string, StateRecord>([
    ['eks/demo/rest', { ...atRest(), key: 'eks/demo/rest' }],
    ['eks/demo/lost', { ...atRest({}, { healthAtMs: NOW - 5 * 60_000 }), key: 'eks/demo/lost' }],
    ['eks/demo/changed', { ...atRest(), key: 'eks/demo/changed' }],
  ]);
  const listed = new Map([
    ['eks/demo/rest', { uid: 'u1', generation: 2 }],
    ['eks/demo/lost', { uid: 'u1', generation: 2 }],
    ['eks/demo/changed', { uid: 'u1', generation: 3 }],
  ]);

  async function sweep(watchedUntilMs: number | undefined): Promise<{ sent: OutgoingMessage[]; result: Awaited<ReturnType<typeof runSweep>> }> {
    const sent: OutgoingMessage[] = [];
    const result = await runSweep(
      {
        lister: { listClusterKeys: async () => [...listed.keys()], listed: () => listed },
        state: { getMany: async (keys) => new Map(keys.flatMap((k) => (states.has(k) ? [[k, states.get(k) as StateRecord] as const] : []))) },
        queue: { send: async (messages) => void sent.push(...messages) },
        clock,
        logger: silentLogger,
        metrics: new MemoryMetrics(),
        watchedUntil: async () => watchedUntilMs,
      },
      { dueWithinMs: 60_000, ...CONFIG },
    );
    return { sent, result };
  }

  it('a cluster at rest gets nothing, a lost health check is re-armed, a changed one is stepped in full', async () => {
    const { sent, result } = await sweep(NOW - 10_000);
    expect(sent.map((m) => m.message)).toEqual([
      { key: 'eks/demo/lost', reason: 'health', enqueuedAtMs: NOW, dueAtMs: NOW - 5 * 60_000 },
      { key: 'eks/demo/changed', reason: 'sweep', enqueuedAtMs: NOW },
    ]);
    expect(result).toMatchObject({ listed: 3, enqueued: ['eks/demo/lost', 'eks/demo/changed'], checked: ['eks/demo/lost'], atRest: ['eks/demo/rest'] });
  });

  it('with the exporter behind, every cluster is stepped in full, as before the check', async () => {
    const { sent, result } = await sweep(NOW - COVERAGE_STALE_MS - 1);
    expect(sent.map((m) => [m.message.key, m.message.reason])).toEqual([
      ['eks/demo/rest', 'sweep'],
      ['eks/demo/lost', 'sweep'],
      ['eks/demo/changed', 'sweep'],
    ]);
    expect(result.atRest).toEqual([]);
  });
});
