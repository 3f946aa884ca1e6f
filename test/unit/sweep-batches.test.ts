import { describe, it, expect } from '@jest/globals';
import type { Clock, TimerHandle } from '../../lib/platform/clock.js';
import { TransientError } from '../../lib/platform/errors.js';
import { silentLogger } from '../../lib/platform/logger.js';
import { MemoryMetrics, METRIC } from '../../lib/platform/metrics.js';
import { PartialBatchError, type OutgoingMessage } from '../../lib/queue/port.js';
import { runSweep, SWEEP_SEND_ATTEMPTS, type SweepPorts } from '../../lib/step/sweep.js';

const T0 = Date.UTC(2026, 0, 1);
const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `eks/demo/tc-${String(i).padStart(4, '0')}`);

/** A clock frozen at T0 whose sleeps return at once and are recorded. */
function instantClock(slept: number[]): Clock {
  return {
    nowMs: () => T0,
    setTimer: (): TimerHandle => ({ id: 0 }),
    clearTimer: () => undefined,
    sleep: async (ms: number) => void slept.push(ms),
  };
}

type SendOutcome = 'ok' | { failKeys: (batch: readonly string[]) => string[] } | 'throw';

/**
 * A queue whose sends take a few macrotasks each, counting how many are in flight at once; `plan`
 * says what each call (by call number) does.
 */
function slowQueue(plan: (call: number) => SendOutcome = () => 'ok') {
  const sent: string[][] = [];
  const calls: string[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send = async (messages: readonly OutgoingMessage[]): Promise<void> => {
    const batch = messages.map((m) => m.message.key);
    const call = calls.push(batch);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    inFlight--;
    const outcome = plan(call);
    if (outcome === 'throw') throw new TransientError('connection reset');
    const failed = outcome === 'ok' ? [] : outcome.failKeys(batch);
    sent.push(batch.filter((k) => !failed.includes(k)));
    if (failed.length > 0) throw new PartialBatchError(`SendMessageBatch: ${failed.length} entries failed after one retry`, failed);
  };
  return { queue: { send }, sent, calls, maxInFlight: () => maxInFlight };
}

function ports(listed: readonly string[], queue: SweepPorts['queue'], slept: number[] = [], metrics = new MemoryMetrics()): SweepPorts {
  return {
    lister: { listClusterKeys: async () => [...listed] },
    state: { getMany: async () => new Map() },
    queue,
    clock: instantClock(slept),
    logger: silentLogger,
    metrics,
  };
}

describe('the sweep sends its batches concurrently, with a bound', () => {
  it.each([
    { name: 'one at a time when the bound is 1', keys: 100, concurrency: 1, maxInFlight: 1 },
    { name: 'never more than the bound of 8', keys: 1000, concurrency: 8, maxInFlight: 8 },
    { name: 'never more than the bound of 16', keys: 1000, concurrency: 16, maxInFlight: 16 },
    { name: 'no more than there are batches', keys: 25, concurrency: 8, maxInFlight: 3 },
  ])('$name', async ({ keys: n, concurrency, maxInFlight }) => {
    // Prepare
    const q = slowQueue();
    const listed = keys(n);

    // Act
    const result = await runSweep(ports(listed, q.queue), { dueWithinMs: 60_000, sendConcurrency: concurrency });

    // Assess
    expect(q.maxInFlight()).toBe(maxInFlight);
    expect(q.calls.every((b) => b.length <= 10)).toBe(true);
    expect(q.calls.flat()).toEqual(listed);
    expect(result.enqueued).toEqual(listed);
  });
});

describe('the sweep retries what a batch failed to send', () => {
  it('a partial failure resends only the entries the queue names, and everything is enqueued once', async () => {
    // Prepare: the second call loses two of its entries
    const q = slowQueue((call) => (call === 2 ? { failKeys: (b) => b.slice(3, 5) } : 'ok'));
    const listed = keys(30);
    const slept: number[] = [];

    // Act
    const result = await runSweep(ports(listed, q.queue, slept), { dueWithinMs: 60_000, sendConcurrency: 4 });

    // Assess
    expect(q.calls.map((b) => b.length)).toEqual([10, 10, 10, 2]);
    expect(q.calls[3]).toEqual(listed.slice(13, 15));
    expect(q.sent.flat().sort()).toEqual(listed);
    expect(result.enqueued).toEqual(listed);
    expect(slept).toEqual([200]);
  });

  it('a request that fails outright is resent whole, with a doubling wait', async () => {
    // Prepare: the first two tries of the only batch fail
    const q = slowQueue((call) => (call <= 2 ? 'throw' : 'ok'));
    const listed = keys(7);
    const slept: number[] = [];

    // Act
    const result = await runSweep(ports(listed, q.queue, slept), { dueWithinMs: 60_000 });

    // Assess
    expect(q.calls).toEqual([listed, listed, listed]);
    expect(result.enqueued).toEqual(listed);
    expect(slept).toEqual([200, 400]);
  });

  it('keys still unsent after every try make the sweep throw, after the other batches went out', async () => {
    // Prepare: every try of the first batch loses one key
    const q = slowQueue(() => ({ failKeys: (b) => b.filter((k) => k === 'eks/demo/tc-0003') }));
    const listed = keys(30);
    const metrics = new MemoryMetrics();

    // Act
    const run = runSweep(ports(listed, q.queue, [], metrics), { dueWithinMs: 60_000, sendConcurrency: 2 });

    // Assess
    await expect(run).rejects.toThrow(TransientError);
    await expect(run).rejects.toThrow(/sweep: 1 of 30 keys not enqueued \(first: eks\/demo\/tc-0003\)/);
    expect(q.calls.filter((b) => b.includes('eks/demo/tc-0003'))).toHaveLength(SWEEP_SEND_ATTEMPTS);
    expect(q.sent.flat().sort()).toEqual(listed.filter((k) => k !== 'eks/demo/tc-0003'));
    expect(metrics.total(METRIC.sweepEnqueued)).toBe(29);
  });

  it('an aborted sweep starts no new batch and reports the keys it did not reach', async () => {
    // Prepare: the sweep's time runs out during the first batch
    const budget = new AbortController();
    const q = slowQueue((call) => (call === 1 ? (budget.abort(new Error('sweep deadline')), 'ok') : 'ok'));

    // Act
    const run = runSweep(ports(keys(50), q.queue), { dueWithinMs: 60_000, sendConcurrency: 1 }, budget.signal);

    // Assess
    await expect(run).rejects.toThrow(/sweep: 40 of 50 keys not enqueued \(first: eks\/demo\/tc-0010\): sweep deadline/);
    expect(q.calls).toHaveLength(1);
  });
});
