/**
 * A failing invocation never ends a simulated run: the sweep's scheduled event is retried as
 * Lambda retries an asynchronous invocation, and a reconcile invocation that throws leaves its
 * whole batch to come back after the visibility timeout.
 */
import { describe, expect, it } from '@jest/globals';
import { type AsyncFailure, AsyncInvoker } from '../../lib/local/async-invocation.js';
import { type InvokeResult, VirtualEventSource } from '../../lib/local/virtual-delivery.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';

/** Drives `invoker` for `forMs` of virtual time, running due attempts after every timer. */
async function drive(clock: VirtualClock, invoker: AsyncInvoker, forMs: number): Promise<void> {
  const until = clock.nowMs() + forMs;
  for (;;) {
    await invoker.runDue();
    const next = clock.nextTimerAtMs();
    if (next === undefined || next > until) break;
    await clock.advanceTo(next);
  }
}

describe('the sweep is invoked asynchronously, with Lambda’s retries', () => {
  it.each([
    { name: 'an event that keeps failing is tried three times: at once, 1 min later, 2 min after that', failures: 9, attemptsAtMs: [0, 60_000, 180_000], retries: [60_000, 120_000, undefined] },
    { name: 'an event whose first retry succeeds is not tried again', failures: 1, attemptsAtMs: [0, 60_000], retries: [60_000] },
    { name: 'an event that succeeds is tried once', failures: 0, attemptsAtMs: [0], retries: [] },
  ])('$name', async ({ failures, attemptsAtMs, retries }) => {
    // Prepare
    const clock = new VirtualClock();
    const t0 = clock.nowMs();
    const attempts: number[] = [];
    const failed: AsyncFailure[] = [];
    let left = failures;
    const invoker = new AsyncInvoker(
      clock,
      async () => {
        attempts.push(clock.nowMs() - t0);
        if (left-- > 0) throw new Error('list TidbClusters: 500');
      },
      (f) => failed.push(f),
    );

    // Act
    invoker.enqueue();
    await drive(clock, invoker, 30 * 60_000);

    // Assess
    expect(attempts).toEqual(attemptsAtMs);
    expect(failed.map((f) => f.retryInMs)).toEqual(retries);
    expect(failed.every((f) => f.error === 'list TidbClusters: 500')).toBe(true);
  });

  it('the next scheduled event runs even while an earlier one is still being retried', async () => {
    // Prepare
    const clock = new VirtualClock();
    const t0 = clock.nowMs();
    const attempts: number[] = [];
    const invoker = new AsyncInvoker(clock, async () => {
      attempts.push(clock.nowMs() - t0);
      throw new Error('down');
    }, () => undefined);
    clock.setTimer(() => invoker.enqueue(), 90_000);

    // Act
    invoker.enqueue();
    await drive(clock, invoker, 30 * 60_000);

    // Assess
    expect(attempts).toEqual([0, 60_000, 90_000, 150_000, 180_000, 270_000]);
  });
});

describe('a reconcile invocation that throws', () => {
  it('leaves its whole batch to come back after the visibility timeout', async () => {
    // Prepare
    const clock = new VirtualClock();
    const queue = new MemoryReconcileQueue({ clock, visibilityTimeoutSeconds: 370 });
    await queue.send(['k8s/demo/a', 'k8s/demo/b'].map((key) => ({ message: { key, reason: 'event', enqueuedAtMs: clock.nowMs() } })));
    const results: InvokeResult[] = ['failed', { batchItemFailures: [] }];
    const batches: number[] = [];
    const source = new VirtualEventSource(queue, async (event) => {
      batches.push(event.Records.length);
      return results.shift() ?? { batchItemFailures: [] };
    }, clock);

    // Act
    await source.deliverDue();
    const visibleAgainAtMs = queue.nextVisibleAtMs();
    await clock.advance(370_000);
    await source.deliverDue();

    // Assess
    expect(visibleAgainAtMs).toBe(clock.nowMs());
    expect(batches).toEqual([2, 2]);
    expect(queue.nextVisibleAtMs()).toBeUndefined();
  });
});
