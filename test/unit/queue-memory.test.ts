import { describe, expect, it } from '@jest/globals';

import { VirtualClock } from '../../lib/platform/clock.js';
import { NotFoundError, TerminalError } from '../../lib/platform/errors.js';
import { MemoryReconcileQueue, seededRandom, type MemoryQueueOptions } from '../../lib/queue/memory.js';
import type { ReceivedRecord, ReconcileMessageBody } from '../../lib/queue/port.js';

const T0 = Date.UTC(2026, 0, 1);

function setup(options: Partial<Omit<MemoryQueueOptions, 'clock'>> = {}) {
  const clock = new VirtualClock(T0);
  const queue = new MemoryReconcileQueue({ clock, visibilityTimeoutSeconds: 30, random: seededRandom(7), ...options });
  return { clock, queue };
}

function msg(key: string): ReconcileMessageBody {
  return { key, reason: 'test', enqueuedAtMs: T0 };
}

function keys(records: ReceivedRecord[]): string[] {
  return records.map((r) => (JSON.parse(r.body) as ReconcileMessageBody).key).sort();
}

/** Receives without waiting until the queue has nothing visible. */
async function drain(queue: MemoryReconcileQueue): Promise<ReceivedRecord[]> {
  const out: ReceivedRecord[] = [];
  for (;;) {
    const got = await queue.receive(10, 0);
    if (got.length === 0) return out;
    out.push(...got);
  }
}

describe('memory queue: delivery', () => {
  it('all 25 messages of one send arrive, at most 10 per receive', async () => {
    // Prepare
    const { queue } = setup();
    const sent = Array.from({ length: 25 }, (_, i) => `c/ns/tc${String(i).padStart(2, '0')}`);
    // Act
    await queue.send(sent.map((k) => ({ message: msg(k) })));
    const sizes = [(await queue.receive(10, 0)).length, (await queue.receive(10, 0)).length];
    const rest = await drain(queue);
    // Assess
    expect(sizes).toEqual([10, 10]);
    expect(rest).toHaveLength(5);
    expect(queue.stats()).toEqual({ visible: 0, delayed: 0, inFlight: 25, deadLetters: 0 });
  });

  it('a record carries its body, receive count 1 and the send time', async () => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('c/ns/a') }]);
    await clock.advance(5_000);
    const [record] = await queue.receive(1, 0);
    expect(record).toMatchObject({ body: JSON.stringify(msg('c/ns/a')), receiveCount: 1, sentAtMs: T0 });
  });

  it('delivery order is not send order (no ordering guarantee)', async () => {
    const { queue } = setup();
    const sent = Array.from({ length: 10 }, (_, i) => `k${i}`);
    await queue.send(sent.map((k) => ({ message: msg(k) })));
    const got = (await queue.receive(10, 0)).map((r) => (JSON.parse(r.body) as ReconcileMessageBody).key);
    expect(got).not.toEqual(sent);
    expect([...got].sort()).toEqual([...sent].sort());
  });

  it.each([
    { name: 'a delay of 30 s', delaySeconds: 30 },
    { name: 'the longest delay, 900 s', delaySeconds: 900 },
  ])('a delayed message stays invisible until its delay has passed on the clock: $name', async ({ delaySeconds }) => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('c/ns/a'), delaySeconds }]);
    await clock.advance(delaySeconds * 1000 - 1);
    expect(await queue.receive(10, 0)).toEqual([]);
    expect(queue.stats().delayed).toBe(1);
    await clock.advance(1);
    expect(keys(await queue.receive(10, 0))).toEqual(['c/ns/a']);
  });

  it('a delay above 900 s rejects the whole send', async () => {
    const { queue } = setup();
    const send = queue.send([{ message: msg('a') }, { message: msg('b'), delaySeconds: 901 }]);
    await expect(send).rejects.toBeInstanceOf(TerminalError);
    expect(queue.stats()).toEqual({ visible: 0, delayed: 0, inFlight: 0, deadLetters: 0 });
  });

  it.each([
    { name: 'zero', max: 0 },
    { name: 'eleven', max: 11 },
  ])('a receive asks for 1 to 10 messages, as SQS: $name is rejected', async ({ max }) => {
    const { queue } = setup();
    await expect(queue.receive(max, 0)).rejects.toBeInstanceOf(TerminalError);
  });
});

describe('memory queue: visibility and redelivery', () => {
  it('a received message that is not deleted reappears after the visibility timeout with receive count 2', async () => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('c/ns/a') }]);
    const [first] = await queue.receive(10, 0);
    await clock.advance(29_999);
    expect(await queue.receive(10, 0)).toEqual([]);
    await clock.advance(1);
    const [second] = await queue.receive(10, 0);
    expect(second?.messageId).toBe(first?.messageId);
    expect(second?.receiveCount).toBe(2);
    expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
  });

  it('a deleted message is never delivered again', async () => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('a') }, { message: msg('b') }]);
    const records = await queue.receive(10, 0);
    await queue.delete(records.map((r) => r.receiptHandle));
    await clock.advance(3_600_000);
    expect(queue.stats()).toEqual({ visible: 0, delayed: 0, inFlight: 0, deadLetters: 0 });
  });

  it('a receipt handle from an earlier delivery deletes nothing, as in SQS', async () => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('a') }]);
    const [old] = await queue.receive(10, 0);
    await clock.advance(30_000);
    await queue.receive(10, 0);
    await queue.delete([old?.receiptHandle ?? '']);
    expect(queue.stats().inFlight).toBe(1);
  });

  it('changing visibility to 0 makes a message visible at once; longer extends it', async () => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('a') }, { message: msg('b') }]);
    const records = await queue.receive(10, 0);
    const [a, b] = records;
    await queue.changeVisibility(a?.receiptHandle ?? '', 0);
    await queue.changeVisibility(b?.receiptHandle ?? '', 120);
    expect((await queue.receive(10, 0)).map((r) => r.messageId)).toEqual([a?.messageId]);
    await clock.advance(119_999);
    expect((await queue.receive(10, 0)).map((r) => r.messageId)).toEqual([a?.messageId]);
    await clock.advance(1);
    expect((await queue.receive(10, 0)).map((r) => r.messageId)).toEqual([b?.messageId]);
  });

  it('changing the visibility of a message no longer in flight is NotFound', async () => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('a') }]);
    const [a] = await queue.receive(10, 0);
    await clock.advance(30_000);
    await expect(queue.changeVisibility(a?.receiptHandle ?? '', 10)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('after maxReceiveCount deliveries a message moves to the dead-letter list, never delivered again', async () => {
    // Prepare
    const { clock, queue } = setup({ maxReceiveCount: 3 });
    await queue.send([{ message: msg('c/ns/poison') }, { message: msg('c/ns/fine') }]);
    // Act: the poison message is received and never deleted; the fine one is deleted at once.
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) {
      for (const r of await queue.receive(10, 0)) {
        if (keys([r])[0] === 'c/ns/fine') await queue.delete([r.receiptHandle]);
        else counts.push(r.receiveCount);
      }
      await clock.advance(30_000);
    }
    // Assess
    expect(counts).toEqual([1, 2, 3]);
    const dead = queue.deadLetters();
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ body: JSON.stringify(msg('c/ns/poison')), receiveCount: 3 });
    expect(queue.stats()).toEqual({ visible: 0, delayed: 0, inFlight: 0, deadLetters: 1 });
  });
});

describe('memory queue: long polling on the clock', () => {
  it('a waiting receive returns as soon as a message is sent', async () => {
    const { clock, queue } = setup();
    const pending = queue.receive(10, 20_000);
    await clock.advance(5_000);
    await queue.send([{ message: msg('a') }]);
    await clock.advance(0);
    expect(keys(await pending)).toEqual(['a']);
    expect(clock.nowMs()).toBe(T0 + 5_000);
  });

  it('a waiting receive returns when a delayed message becomes visible', async () => {
    const { clock, queue } = setup();
    await queue.send([{ message: msg('a'), delaySeconds: 3 }]);
    let resolvedAtMs: number | undefined;
    const pending = queue.receive(10, 20_000).then((r) => ((resolvedAtMs = clock.nowMs()), r));
    await clock.advance(20_000);
    expect(keys(await pending)).toEqual(['a']);
    expect(resolvedAtMs).toBe(T0 + 3_000);
  });

  it('a waiting receive returns empty after its wait, and at once when its signal aborts', async () => {
    const { clock, queue } = setup();
    const timedOut = queue.receive(10, 2_000);
    await clock.advance(2_000);
    expect(await timedOut).toEqual([]);
    const abort = new AbortController();
    const aborted = queue.receive(10, 20_000, abort.signal);
    abort.abort();
    expect(await aborted).toEqual([]);
    expect(clock.nowMs()).toBe(T0 + 2_000);
  });
});

describe('memory queue: duplicate delivery (fault injection)', () => {
  it.each([
    { name: 'duplicateFactor 0 delivers each message once', duplicateFactor: 0, expected: 20 },
    { name: 'duplicateFactor 1 delivers each message twice under the same id', duplicateFactor: 1, expected: 40 },
  ])('$name', async ({ duplicateFactor, expected }) => {
    const { queue } = setup({ duplicateFactor });
    await queue.send(Array.from({ length: 20 }, (_, i) => ({ message: msg(`k${i}`) })));
    const records = await drain(queue);
    expect(records).toHaveLength(expected);
    expect(new Set(records.map((r) => r.messageId)).size).toBe(20);
  });

  it('a duplicate is deleted independently of its twin', async () => {
    const { clock, queue } = setup({ duplicateFactor: 1 });
    await queue.send([{ message: msg('a') }]);
    const [one] = await queue.receive(1, 0);
    await queue.delete([one?.receiptHandle ?? '']);
    await clock.advance(30_000);
    expect(keys(await queue.receive(10, 0))).toEqual(['a']);
  });

  it('a factor between 0 and 1 duplicates some messages, repeatably for a seed', async () => {
    const counts = [];
    for (let run = 0; run < 2; run++) {
      const { queue } = setup({ duplicateFactor: 0.3, random: seededRandom(42) });
      await queue.send(Array.from({ length: 100 }, (_, i) => ({ message: msg(`k${i}`) })));
      counts.push((await drain(queue)).length);
    }
    expect(counts[0]).toBe(counts[1]);
    expect(counts[0]).toBeGreaterThan(110);
    expect(counts[0]).toBeLessThan(150);
  });
});
