import { describe, expect, it } from '@jest/globals';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';

import { VirtualClock } from '../../lib/platform/clock.js';
import { MemoryReconcileQueue, seededRandom } from '../../lib/queue/memory.js';
import { SqsPoller, type PollerOptions, type PollPhase, type SqsBatchHandler } from '../../lib/queue/poller.js';
import type { ReconcileMessageBody, ReconcileQueue } from '../../lib/queue/port.js';

const T0 = Date.UTC(2026, 0, 1);

function keyOf(body: string): string {
  return (JSON.parse(body) as ReconcileMessageBody).key;
}

/** A queue, a handler that fails the keys in `failing`, and a poller wired to both. */
function setup(failing: string[] = [], options: Partial<PollerOptions> = {}) {
  const clock = new VirtualClock(T0);
  const queue = new MemoryReconcileQueue({ clock, visibilityTimeoutSeconds: 30, random: seededRandom(3) });
  const events: SQSEvent[] = [];
  const errors: { phase: PollPhase; messageIds: string[]; error: unknown }[] = [];
  const handler: SqsBatchHandler = async (event) => {
    events.push(event);
    const failed = event.Records.filter((r) => failing.includes(keyOf(r.body)));
    return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
  };
  const poller = new SqsPoller({
    queue,
    clock,
    handler,
    waitMs: 0,
    onError: (error, info) => errors.push({ ...info, error }),
    ...options,
  });
  const send = (keys: string[]) =>
    queue.send(keys.map((key) => ({ message: { key, reason: 'test', enqueuedAtMs: clock.nowMs() } })));
  return { clock, queue, poller, events, errors, send };
}

describe('poller: partial batch failures, as the SQS event source mapping', () => {
  it('only the successful records are deleted; a failed one reappears after the visibility timeout', async () => {
    // Prepare
    const { clock, queue, poller, events, send } = setup(['c/ns/b']);
    await send(['c/ns/a', 'c/ns/b', 'c/ns/c']);
    // Act
    const outcome = await poller.pollOnce();
    // Assess
    expect(outcome).toEqual({ received: 3, deleted: 2, left: 1, failedWholeBatch: false });
    expect(queue.stats()).toEqual({ visible: 0, delayed: 0, inFlight: 1, deadLetters: 0 });
    await clock.advance(30_000);
    await poller.pollOnce();
    const again = events[1]?.Records ?? [];
    expect(again.map((r) => keyOf(r.body))).toEqual(['c/ns/b']);
    expect(again[0]?.attributes.ApproximateReceiveCount).toBe('2');
  });

  it.each([
    { name: 'the handler throws', response: 'throw' as const },
    { name: 'a failure names an unknown message id', response: { batchItemFailures: [{ itemIdentifier: 'nope' }] } },
    { name: 'a failure has an empty identifier', response: { batchItemFailures: [{ itemIdentifier: '' }] } },
  ])('the whole batch is left for redelivery when $name', async ({ response }) => {
    const { queue, send, errors, clock } = setup();
    const handler: SqsBatchHandler = async () => {
      if (response === 'throw') throw new Error('step crashed');
      return response as SQSBatchResponse;
    };
    const onError: PollerOptions['onError'] = (error, info) => errors.push({ ...info, error });
    const poller = new SqsPoller({ queue, clock, handler, waitMs: 0, onError });
    await send(['a', 'b']);
    const outcome = await poller.pollOnce();
    expect(outcome).toEqual({ received: 2, deleted: 0, left: 2, failedWholeBatch: true });
    expect(queue.stats().inFlight).toBe(2);
    expect(errors.map((e) => [e.phase, e.messageIds.length])).toEqual([['handler', 2]]);
  });

  it.each([
    { name: 'no response', response: undefined },
    { name: 'an empty failure list', response: { batchItemFailures: [] } },
  ])('every record is deleted when the handler returns $name', async ({ response }) => {
    const { queue, send, clock } = setup();
    const poller = new SqsPoller({ queue, clock, handler: async () => response, waitMs: 0 });
    await send(['a', 'b', 'c']);
    expect(await poller.pollOnce()).toMatchObject({ deleted: 3, left: 0 });
    expect(queue.stats().inFlight).toBe(0);
  });

  it('a handler that outlives the function timeout fails the whole batch', async () => {
    const { queue, send, clock, errors } = setup();
    const handler: SqsBatchHandler = () => clock.sleep(61_000).then(() => undefined);
    const onError: PollerOptions['onError'] = (error, info) => errors.push({ ...info, error });
    const poller = new SqsPoller({ queue, clock, handler, waitMs: 0, functionTimeoutMs: 60_000, onError });
    await send(['a']);
    const polled = poller.pollOnce();
    await clock.advance(60_000);
    expect(await polled).toMatchObject({ deleted: 0, failedWholeBatch: true });
    expect(String(errors[0]?.error)).toMatch(/timed out after 60000 ms/);
  });
});

describe('poller: the event and context a handler sees', () => {
  it('records look like Lambda SQS records and the context counts down on the clock', async () => {
    const { queue, send, clock } = setup();
    let seen: { event: SQSEvent; remainingAtStart: number; remainingLater: number } | undefined;
    const handler: SqsBatchHandler = async (event: SQSEvent, context: Context) => {
      const remainingAtStart = context.getRemainingTimeInMillis();
      await clock.sleep(1_500);
      seen = { event, remainingAtStart, remainingLater: context.getRemainingTimeInMillis() };
    };
    const poller = new SqsPoller({
      queue,
      clock,
      handler,
      waitMs: 0,
      functionTimeoutMs: 10_000,
      eventSourceArn: 'arn:aws:sqs:eu-west-1:1:q',
      awsRegion: 'eu-west-1',
    });
    await send(['c/ns/a']);
    const polled = poller.pollOnce();
    await clock.advance(1_500);
    await polled;
    const record = seen?.event.Records[0];
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-west-1:1:q',
      awsRegion: 'eu-west-1',
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(T0) },
    });
    expect(record?.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
    expect([seen?.remainingAtStart, seen?.remainingLater]).toEqual([10_000, 8_500]);
  });
});

describe('poller: batching', () => {
  it.each([
    { name: 'batchSize 25 gathers all 25 records into one event', batchSize: 25, sizes: [25] },
    { name: 'batchSize 10 splits 25 records into 10, 10 and 5', batchSize: 10, sizes: [10, 10, 5] },
    { name: 'batchSize 4 hands over at most 4 at a time', batchSize: 4, sizes: [4, 4, 4, 4, 4, 4, 1] },
  ])('$name', async ({ batchSize, sizes }) => {
    const { poller, events, send } = setup([], { batchSize });
    await send(Array.from({ length: 25 }, (_, i) => `k${i}`));
    while (await poller.pollOnce());
    expect(events.map((e) => e.Records.length)).toEqual(sizes);
  });

  it('the batching window waits on the clock for more records before invoking', async () => {
    const { clock, poller, events, send } = setup([], { batchSize: 10, batchingWindowMs: 5_000 });
    await send(['a', 'b']);
    const polled = poller.pollOnce();
    await clock.advance(3_000);
    await send(['c']);
    await clock.advance(2_000);
    await polled;
    expect(events.map((e) => e.Records.map((r) => keyOf(r.body)).sort())).toEqual([['a', 'b', 'c']]);
  });
});

describe('poller: receive calls', () => {
  it('with no batching window, a batch smaller than batchSize costs a single receive', async () => {
    const { clock, queue, send } = setup();
    let receives = 0;
    const counting: ReconcileQueue = {
      send: (m) => queue.send(m),
      delete: (h) => queue.delete(h),
      changeVisibility: (h, s) => queue.changeVisibility(h, s),
      receive: (max, waitMs, signal) => (receives++, queue.receive(max, waitMs, signal)),
    };
    const poller = new SqsPoller({ queue: counting, clock, handler: async () => undefined, waitMs: 0 });
    await send(['a', 'b', 'c']);
    expect(await poller.pollOnce()).toMatchObject({ received: 3 });
    expect(receives).toBe(1);
  });
});

describe('poller: running and stopping', () => {
  it('a started poller handles what arrives and stops promptly while waiting on an empty queue', async () => {
    const { clock, queue, events, send } = setup();
    const poller = new SqsPoller({ queue, clock, handler: async (e) => void events.push(e), waitMs: 20_000 });
    poller.start();
    await send(['a']);
    await clock.advance(100);
    await send(['b']);
    await clock.advance(100);
    await poller.stop();
    expect(events.flatMap((e) => e.Records.map((r) => keyOf(r.body))).sort()).toEqual(['a', 'b']);
    expect(queue.stats()).toEqual({ visible: 0, delayed: 0, inFlight: 0, deadLetters: 0 });
  });

  it('a started poller with short polls idles on the clock instead of spinning', async () => {
    const { clock, queue, events, send } = setup();
    let receives = 0;
    const counting: ReconcileQueue = {
      send: (m) => queue.send(m),
      delete: (h) => queue.delete(h),
      changeVisibility: (h, s) => queue.changeVisibility(h, s),
      receive: (max, waitMs, signal) => (receives++, queue.receive(max, waitMs, signal)),
    };
    const poller = new SqsPoller({ queue: counting, clock, handler: async (e) => void events.push(e), waitMs: 0 });
    poller.start();
    await clock.advance(10_000);
    await send(['a']);
    await clock.advance(1_000);
    await poller.stop();
    expect(receives).toBeLessThanOrEqual(13);
    expect(events).toHaveLength(1);
  });

  it('a failing receive is reported and polling continues after a pause', async () => {
    // Prepare: a queue whose first receive fails.
    const { clock, queue, events, send } = setup();
    let calls = 0;
    const flaky: ReconcileQueue = {
      send: (m) => queue.send(m),
      delete: (h) => queue.delete(h),
      changeVisibility: (h, s) => queue.changeVisibility(h, s),
      receive: (max, waitMs, signal) =>
        ++calls === 1 ? Promise.reject(new Error('throttled')) : queue.receive(max, waitMs, signal),
    };
    const errors: PollPhase[] = [];
    const poller = new SqsPoller({
      queue: flaky,
      clock,
      handler: async (e) => void events.push(e),
      waitMs: 20_000,
      errorBackoffMs: 1_000,
      onError: (_, info) => errors.push(info.phase),
    });
    await send(['a']);
    // Act
    poller.start();
    await clock.advance(999);
    const beforePause = events.length;
    await clock.advance(1);
    await poller.stop();
    // Assess
    expect(errors).toEqual(['receive']);
    expect([beforePause, events.length]).toEqual([0, 1]);
  });
});
