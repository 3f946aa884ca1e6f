import { describe, expect, it } from '@jest/globals';
import type { Clock, TimerHandle } from '../../lib/platform/clock.js';
import { silentLogger } from '../../lib/platform/logger.js';
import { MemoryMetrics } from '../../lib/platform/metrics.js';
import type { OutgoingMessage } from '../../lib/queue/port.js';
import { MAX_DELAY_SECONDS } from '../../lib/queue/port.js';
import { runSweep, sweepMessage, type SweepResult } from '../../lib/step/sweep.js';
import type { ApiBudgetConfig } from '../../lib/platform/config.js';
import { fullStepsPerSweep, slotDelaySeconds, spreadHash, SWEEP_BUDGET_SHARE, SweepSlots } from '../../lib/step/sweep-spread.js';
import { parseScenario } from '../../lib/local/scenario/file.js';

const T0 = Date.UTC(2026, 0, 1);
/** Slot 0's delay for EKS cluster `eks` over 300 s (its offset, a hash of the name). */
const SLOT0 = 243;
const fleet = (n: number): string[] => Array.from({ length: n }, (_, i) => `eks/fleet/tc-${String(i).padStart(5, '0')}`);

const frozenClock: Clock = { nowMs: () => T0, setTimer: (): TimerHandle => ({ id: 0 }), clearTimer: () => undefined, sleep: async () => undefined };

/** Sweeps `keys` with `spreadSeconds` (and an API budget) into a queue that keeps what it is sent. */
async function sweepInto(keys: readonly string[], spreadSeconds: number | undefined, apiBudget?: ApiBudgetConfig): Promise<OutgoingMessage[]> {
  return (await sweepWith(keys, spreadSeconds, apiBudget)).sent;
}

async function sweepWith(keys: readonly string[], spreadSeconds: number | undefined, apiBudget?: ApiBudgetConfig): Promise<{ sent: OutgoingMessage[]; result: SweepResult }> {
  const sent: OutgoingMessage[] = [];
  const ports = { lister: { listClusterKeys: async () => [...keys] }, state: { getMany: async () => new Map() }, queue: { send: async (m: readonly OutgoingMessage[]) => void sent.push(...m) }, clock: frozenClock, logger: silentLogger, metrics: new MemoryMetrics() };
  const result = await runSweep(ports, { dueWithinMs: 60_000, ...(spreadSeconds === undefined ? {} : { spreadSeconds }), ...(apiBudget ? { apiBudget } : {}) });
  return { sent, result };
}

describe("a sweep message's delay is its EKS cluster's next slot of the spread", () => {
  it.each([
    { name: 'the first slot', k8sCluster: 'eks', slot: 0, spread: 300, delay: SLOT0 },
    { name: 'the same slot, every time', k8sCluster: 'eks', slot: 7, spread: 300, delay: slotDelaySeconds('eks', 7, 300) },
    { name: 'no spread: no delay', k8sCluster: 'eks', slot: 3, spread: 0, delay: 0 },
    { name: 'a negative spread is none', k8sCluster: 'eks', slot: 3, spread: -5, delay: 0 },
  ])('$name: slot $slot over $spread s waits $delay s', ({ k8sCluster, slot, spread, delay }) => {
    expect([slotDelaySeconds(k8sCluster, slot, spread), slotDelaySeconds(k8sCluster, slot, spread)]).toEqual([delay, delay]);
  });

  it.each([{ spread: 1 }, { spread: 60 }, { spread: 300 }, { spread: 900 }, { spread: 100_000 }])('over $spread s every delay is a whole second in [0, min(spread, 900))', ({ spread }) => {
    const delays = Array.from({ length: 2000 }, (_, i) => slotDelaySeconds('eks', i, spread));
    const bound = Math.min(spread, MAX_DELAY_SECONDS);
    expect(delays.every((d) => Number.isInteger(d) && d >= 0 && d < bound)).toBe(true);
  });

  it.each([
    { name: 'one message', n: 1, spread: 300 },
    { name: 'a few due a full read', n: 17, spread: 300 },
    { name: "a fleet at rest's share of full reads", n: 266, spread: 300 },
    { name: 'as many as seconds', n: 300, spread: 300 },
    { name: 'a sixth of the fleet after an outage', n: 1667, spread: 300 },
    { name: 'the whole fleet', n: 10_000, spread: 300 },
    { name: 'the whole fleet over a minute', n: 10_000, spread: 60 },
    { name: "the whole fleet over SQS's longest delay", n: 10_000, spread: 900 },
  ])('$name ($n over $spread s): no second gets more than its share rounded up, plus one', ({ n, spread }) => {
    // Act: a sweep sending n keys takes the sequence's first n slots.
    const perSecond = new Array<number>(spread).fill(0);
    for (let i = 0; i < n; i++) {
      const d = slotDelaySeconds('eks-prod', i, spread);
      perSecond[d] = (perSecond[d] ?? 0) + 1;
    }
    // Assess
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(Math.ceil(n / spread) + 1);
  });

  it('independent draws from each key (the spreading before) bunch: 271 keys over 300 s put more than two into one second', () => {
    const perSecond = new Array<number>(300).fill(0);
    for (const key of fleet(10_000).filter((_, i) => i % 37 === 0)) {
      const d = Math.floor((spreadHash(key) / 2 ** 32) * 300);
      perSecond[d] = (perSecond[d] ?? 0) + 1;
    }
    expect(Math.max(...perSecond)).toBeGreaterThan(2);
  });

  it.each([
    { name: 'keys of one EKS cluster take its slots in order', keys: ['a/ns/x', 'a/ns/y', 'a/ns/z'], want: [slotDelaySeconds('a', 0, 300), slotDelaySeconds('a', 1, 300), slotDelaySeconds('a', 2, 300)] },
    { name: 'each EKS cluster has its own sequence', keys: ['a/ns/x', 'b/ns/x', 'a/ns/y'], want: [slotDelaySeconds('a', 0, 300), slotDelaySeconds('b', 0, 300), slotDelaySeconds('a', 1, 300)] },
    { name: "a backup kind's key counts for its EKS cluster", keys: ['a/ns/x', 'Backup:a/ns/b'], want: [slotDelaySeconds('a', 0, 300), slotDelaySeconds('a', 1, 300)] },
  ])('$name', ({ keys, want }) => {
    const slots = new SweepSlots(300);
    expect(keys.map((k) => slots.delaySecondsFor(k))).toEqual(want);
  });

  it('two EKS clusters start their sequences at different seconds', () => {
    expect(slotDelaySeconds('eks-a', 0, 300)).not.toEqual(slotDelaySeconds('eks-b', 0, 300));
  });
});

describe('the sweep spreads its messages over the interval', () => {
  it('1 000 clusters swept over 300 s: delays cover the interval, each stamped as enqueued when it becomes visible', async () => {
    // Act
    const sent = await sweepInto(fleet(1000), 300);
    // Assess
    const delays = sent.map((m) => m.delaySeconds ?? 0);
    expect(sent).toHaveLength(1000);
    expect(Math.min(...delays)).toBeLessThan(5);
    expect(Math.max(...delays)).toBeGreaterThanOrEqual(295);
    expect(Math.max(...delays)).toBeLessThan(300);
    const perSecond = new Map<number, number>();
    delays.forEach((d) => perSecond.set(d, (perSecond.get(d) ?? 0) + 1));
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(Math.ceil(1000 / 300) + 1);
    expect(sent.every((m, i) => m.message.enqueuedAtMs === T0 + (m.delaySeconds ?? 0) * 1000 && (m.delaySeconds ?? 0) === slotDelaySeconds('eks', i, 300))).toBe(true);
  });

  it.each([
    { name: 'a spread of 0', spread: 0 },
    { name: 'no spread configured', spread: undefined },
  ])('with $name every message is sent at once, as before the spread', async ({ spread }) => {
    const sent = await sweepInto(fleet(50), spread);
    expect(sent.every((m) => m.delaySeconds === undefined && m.message.enqueuedAtMs === T0)).toBe(true);
  });

  it('a message is the key, reason sweep and its delay', () => {
    expect(sweepMessage('local/demo/basic', T0, 197)).toEqual({ message: { key: 'local/demo/basic', reason: 'sweep', enqueuedAtMs: T0 + 197_000 }, delaySeconds: 197 });
  });
});

describe("the sweep sends no more full steps than its share of the API budget (docs/adr/0028)", () => {
  const BUDGET = { requestsPerSecond: 50, burstRequests: 50, stepRequests: 25 };

  it.each([
    { name: 'the default budget over 300 s', spread: 300, budget: BUDGET, want: Math.floor((SWEEP_BUDGET_SHARE * 50 * 300) / 25) },
    { name: 'a slower budget over a minute', spread: 60, budget: { requestsPerSecond: 5, burstRequests: 25, stepRequests: 25 }, want: 9 },
    { name: 'at least one', spread: 1, budget: { requestsPerSecond: 1, burstRequests: 25, stepRequests: 25 }, want: 1 },
    { name: 'no budget: unbounded', spread: 300, budget: undefined, want: Number.POSITIVE_INFINITY },
    { name: 'a rate of 0: unbounded', spread: 300, budget: { ...BUDGET, requestsPerSecond: 0 }, want: Number.POSITIVE_INFINITY },
    { name: 'no spread (every message at once): unbounded, the steps pace themselves', spread: 0, budget: BUDGET, want: Number.POSITIVE_INFINITY },
  ])('$name: $want', ({ spread, budget, want }) => {
    expect(fullStepsPerSweep(spread, budget)).toBe(want);
  });

  it('1 000 clusters due over 300 s: the first 480 in list order are sent, spread evenly; the rest are held for the next sweep', async () => {
    // Act
    const { sent, result } = await sweepWith(fleet(1000), 300, BUDGET);
    // Assess
    expect(sent.map((m) => m.message.key)).toEqual(fleet(480));
    expect(result.held).toEqual(fleet(1000).slice(480));
    expect(result.enqueued).toHaveLength(480);
    const perSecond = new Map<number, number>();
    sent.forEach((m) => perSecond.set(m.delaySeconds ?? 0, (perSecond.get(m.delaySeconds ?? 0) ?? 0) + 1));
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(3);
  });

  it('each EKS cluster has its own share', () => {
    const slots = new SweepSlots(300, 1);
    expect(['a/ns/x', 'a/ns/y', 'b/ns/x'].map((k) => slots.delaySecondsFor(k))).toEqual([slotDelaySeconds('a', 0, 300), undefined, slotDelaySeconds('b', 0, 300)]);
  });
});

describe('a scenario sets the spread as SWEEP_SPREAD_SECONDS does (config.sweepSpread)', () => {
  const file = (spread: string): string => `name: t\nconfig: {sweepSpread: ${spread}}\ncluster:\n  metadata: {name: basic, namespace: demo}\n  spec:\n    pd: {replicas: 3}\ntimeline:\n  - advance: 1m\n`;

  it.each([
    { name: 'none: every message at once', spread: '0s', ms: 0 },
    { name: 'two minutes', spread: '2m', ms: 120_000 },
    { name: "SQS's longest delay", spread: '15m', ms: 900_000 },
  ])('$name', ({ spread, ms }) => {
    const result = parseScenario(file(spread), 's.yaml');
    expect(result.ok && result.scenario.config.sweepSpreadMs).toBe(ms);
  });

  it.each([
    { name: "past SQS's longest delay", spread: '16m' },
    { name: 'a fraction of a second', spread: '1500ms' },
  ])('refuses $name, naming the field', ({ spread }) => {
    const result = parseScenario(file(spread), 's.yaml');
    expect(result.ok ? '' : result.error).toBe(`s.yaml:2: config.sweepSpread: expected whole seconds from 0s to 15m (SQS's longest delay), got the string "${spread}"`);
  });

  it('absent, it is left to the interval', () => {
    const result = parseScenario(file('0s').replace('config: {sweepSpread: 0s}\n', ''), 's.yaml');
    expect(result.ok && 'sweepSpreadMs' in result.scenario.config).toBe(false);
  });
});
