import { describe, expect, it } from '@jest/globals';
import type { Clock, TimerHandle } from '../../lib/platform/clock.js';
import { silentLogger } from '../../lib/platform/logger.js';
import { MemoryMetrics } from '../../lib/platform/metrics.js';
import type { OutgoingMessage } from '../../lib/queue/port.js';
import { MAX_DELAY_SECONDS } from '../../lib/queue/port.js';
import { runSweep, sweepMessage } from '../../lib/step/sweep.js';
import { sweepDelaySeconds } from '../../lib/step/sweep-spread.js';
import { parseScenario } from '../../lib/local/scenario/file.js';

const T0 = Date.UTC(2026, 0, 1);
const fleet = (n: number): string[] => Array.from({ length: n }, (_, i) => `eks/fleet/tc-${String(i).padStart(5, '0')}`);

const frozenClock: Clock = { nowMs: () => T0, setTimer: (): TimerHandle => ({ id: 0 }), clearTimer: () => undefined, sleep: async () => undefined };

/** Sweeps `keys` with `spreadSeconds` into a queue that keeps what it is sent. */
async function sweepInto(keys: readonly string[], spreadSeconds: number | undefined): Promise<OutgoingMessage[]> {
  const sent: OutgoingMessage[] = [];
  const ports = { lister: { listClusterKeys: async () => [...keys] }, state: { getMany: async () => new Map() }, queue: { send: async (m: readonly OutgoingMessage[]) => void sent.push(...m) }, clock: frozenClock, logger: silentLogger, metrics: new MemoryMetrics() };
  await runSweep(ports, { dueWithinMs: 60_000, ...(spreadSeconds === undefined ? {} : { spreadSeconds }) });
  return sent;
}

describe("a sweep message's delay comes from its key", () => {
  it.each([
    { name: 'a local key', key: 'local/demo/basic', spread: 300, delay: 197 },
    { name: 'a fleet key', key: 'eks/fleet/tc-00000', spread: 300, delay: 233 },
    { name: 'its neighbour lands far from it', key: 'eks/fleet/tc-00001', spread: 300, delay: 16 },
    { name: 'a longer spread scales the same draw', key: 'local/demo/basic', spread: 900, delay: 591 },
    { name: "a spread past SQS's 900 s is capped there", key: 'local/demo/basic', spread: 5000, delay: 591 },
    { name: 'no spread: no delay', key: 'local/demo/basic', spread: 0, delay: 0 },
    { name: 'a negative spread is none', key: 'local/demo/basic', spread: -5, delay: 0 },
  ])('$name: $key over $spread s waits $delay s, every time', ({ key, spread, delay }) => {
    expect([sweepDelaySeconds(key, spread), sweepDelaySeconds(key, spread)]).toEqual([delay, delay]);
  });

  it.each([{ spread: 1 }, { spread: 60 }, { spread: 300 }, { spread: 900 }, { spread: 100_000 }])('over $spread s every delay is a whole second in [0, min(spread, 900))', ({ spread }) => {
    const delays = fleet(2000).map((k) => sweepDelaySeconds(k, spread));
    const bound = Math.min(spread, MAX_DELAY_SECONDS);
    expect(delays.every((d) => Number.isInteger(d) && d >= 0 && d < bound)).toBe(true);
  });

  it.each([
    { name: 'numbered clusters of one namespace', keys: fleet(10_000) },
    { name: 'clusters across namespaces', keys: Array.from({ length: 10_000 }, (_, i) => `eks/team-${i % 37}/db-${i}`) },
  ])('10 000 $name spread uniformly: each 30 s tenth of 300 s gets 1 000 ± 10%, no second more than 2 × its share', ({ keys }) => {
    const perSecond = new Array<number>(300).fill(0);
    for (const key of keys) perSecond[sweepDelaySeconds(key, 300)] = (perSecond[sweepDelaySeconds(key, 300)] ?? 0) + 1;
    const tenths = Array.from({ length: 10 }, (_, i) => perSecond.slice(i * 30, i * 30 + 30).reduce((a, b) => a + b, 0));
    expect(tenths.every((n) => n >= 900 && n <= 1100)).toBe(true);
    expect(Math.max(...perSecond)).toBeLessThanOrEqual((2 * 10_000) / 300);
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
    const minutes = new Set(delays.map((d) => Math.floor(d / 60)));
    expect([...minutes].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(sent.every((m) => m.message.enqueuedAtMs === T0 + (m.delaySeconds ?? 0) * 1000 && (m.delaySeconds ?? 0) === sweepDelaySeconds(m.message.key, 300))).toBe(true);
  });

  it.each([
    { name: 'a spread of 0', spread: 0 },
    { name: 'no spread configured', spread: undefined },
  ])('with $name every message is sent at once, as before the spread', async ({ spread }) => {
    const sent = await sweepInto(fleet(50), spread);
    expect(sent.every((m) => m.delaySeconds === undefined && m.message.enqueuedAtMs === T0)).toBe(true);
  });

  it('a message is the key, reason sweep and its delay', () => {
    expect(sweepMessage('local/demo/basic', T0, { spreadSeconds: 300 })).toEqual({ message: { key: 'local/demo/basic', reason: 'sweep', enqueuedAtMs: T0 + 197_000 }, delaySeconds: 197 });
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
