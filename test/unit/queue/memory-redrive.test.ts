import { describe, expect, it } from '@jest/globals';
import { MemoryReconcileQueue } from '../../../lib/queue/memory.js';
import { MemoryDeadLetterRedrive } from '../../../lib/queue/memory-redrive.js';
import { VirtualClock } from '../../../lib/platform/clock.js';

const DLQ = 'arn:aws:sqs:us-east-1:000000000000:q-dlq';
const QUEUE = 'arn:aws:sqs:us-east-1:000000000000:q';

/** A queue with `dead` messages in its dead-letter list (each received `maxReceiveCount` times, never deleted). */
async function withDeadLetters(dead: number, maxReceiveCount: number | null = 1): Promise<{ clock: VirtualClock; queue: MemoryReconcileQueue; redrive: MemoryDeadLetterRedrive }> {
  const clock = new VirtualClock();
  const queue = new MemoryReconcileQueue({ clock, visibilityTimeoutSeconds: 1, ...(maxReceiveCount === null ? {} : { maxReceiveCount }) });
  await queue.send(Array.from({ length: dead }, (_, i) => ({ message: { key: `c/ns/n${i}`, reason: 'test', enqueuedAtMs: 0 } })));
  while (queue.stats().visible > 0) await queue.receive(10, 0);
  await clock.advance(2000);
  queue.stats();
  return { clock, queue, redrive: new MemoryDeadLetterRedrive(queue, clock, DLQ, QUEUE) };
}

describe('message move tasks on the in-memory queue, as SQS runs them', () => {
  it('moves what waited when it started, as new messages, and completes', async () => {
    // Prepare
    const { clock, queue, redrive } = await withDeadLetters(3);
    // Act
    await redrive.start();
    const running = await redrive.tasks();
    await clock.advance(1000);
    const done = await redrive.tasks();
    const delivered = await queue.receive(10, 0);
    // Assess
    expect(running).toEqual([expect.objectContaining({ status: 'RUNNING', approximateMoved: 0, approximateToMove: 3, taskHandle: expect.any(String) })]);
    expect(done).toEqual([expect.objectContaining({ status: 'COMPLETED', approximateMoved: 3, approximateToMove: 3, sourceArn: DLQ, destinationArn: QUEUE })]);
    expect(done[0]).not.toHaveProperty('taskHandle');
    expect(await redrive.counts()).toEqual({ waiting: 0, inFlight: 0 });
    expect(delivered.map((r) => r.receiveCount)).toEqual([1, 1, 1]);
  });

  it('moves at most MaxNumberOfMessagesPerSecond each second', async () => {
    const { clock, redrive } = await withDeadLetters(5);
    await redrive.start(2);
    await clock.advance(1000);
    const afterOne = (await redrive.tasks())[0];
    await clock.advance(2000);
    const afterThree = (await redrive.tasks())[0];
    expect([afterOne?.status, afterOne?.approximateMoved]).toEqual(['RUNNING', 2]);
    expect([afterThree?.status, afterThree?.approximateMoved]).toEqual(['COMPLETED', 5]);
  });

  it.each([
    { name: 'a queue with no dead-letter queue (no redrive policy)', maxReceiveCount: null, rate: undefined, error: 'InvalidParameterValue: Source queue must be configured as a Dead Letter Queue.' },
    { name: 'a rate of 0', maxReceiveCount: 1, rate: 0, error: "MaxNumberOfMessagesPerSecond is invalid. Reason: You must enter a number that's between 1 and 500." },
    { name: 'a rate above 500', maxReceiveCount: 1, rate: 501, error: "between 1 and 500" },
  ])('refuses $name as SQS does', async ({ maxReceiveCount, rate, error }) => {
    const { redrive } = await withDeadLetters(1, maxReceiveCount);
    await expect(redrive.start(rate)).rejects.toThrow(error);
  });

  it('allows one running task per source queue', async () => {
    const { clock, redrive } = await withDeadLetters(4);
    await redrive.start(1);
    await expect(redrive.start()).rejects.toThrow('There is already a task running. Only one active task is allowed for a source queue arn at a given time.');
    await clock.advance(4000);
    await expect(redrive.start()).resolves.toEqual({ taskHandle: expect.any(String) });
    expect((await redrive.tasks()).map((t) => t.status)).toEqual(['RUNNING', 'COMPLETED']);
  });
});
