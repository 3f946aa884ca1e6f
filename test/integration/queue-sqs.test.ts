import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';

import { RealClock } from '../../lib/platform/clock.js';
import { TransientError } from '../../lib/platform/errors.js';
import { SqsPoller, type SqsBatchHandler } from '../../lib/queue/poller.js';
import type { ReceivedRecord, ReconcileMessageBody } from '../../lib/queue/port.js';
import { SqsReconcileQueue } from '../../lib/queue/sqs.js';

/*
 * The SQS adapter and the poller against local-aws-sqs 2.0.2, in process. Two server traits shape the
 * tests: a long poll always waits its full WaitTimeSeconds unless MaxNumberOfMessages is reached (real
 * SQS returns as soon as something is there), so receives here use wait 0 and poll; and RedrivePolicy is
 * honoured, so redrive is tested here as well as on the memory queue.
 */

const clock = new RealClock();
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };
let server: Server;
let endpoint: string;
let queueCount = 0;

type Recorded = { command: string; ms: number; entries: number };

/** A client that records each command it sends; `rewrite` may change a command's input first. */
function recordingClient(rewrite?: (command: string, input: Record<string, unknown>) => void) {
  const calls: Recorded[] = [];
  const client = new SQSClient({ endpoint, region: 'us-east-1', credentials });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      rewrite?.(context.commandName ?? '', input);
      const startedAt = performance.now();
      try {
        return await next(args);
      } finally {
        const entries = Array.isArray(input.Entries) ? input.Entries.length : 0;
        calls.push({ command: context.commandName ?? '', ms: performance.now() - startedAt, entries });
      }
    },
    { step: 'initialize', name: 'recordCalls' },
  );
  return { client, calls };
}

async function createQueue(client: SQSClient, attributes: Record<string, string>) {
  const QueueName = `reconcile-${++queueCount}`;
  const created = await client.send(new CreateQueueCommand({ QueueName, Attributes: attributes }));
  const url = created.QueueUrl ?? '';
  const attrs = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: attrs.Attributes?.QueueArn ?? '' };
}

function message(key: string): ReconcileMessageBody {
  return { key, reason: 'test', enqueuedAtMs: Date.now() };
}

/** Short-polls until `count` records arrived or `withinMs` passed. */
async function receiveAll(queue: SqsReconcileQueue, count: number, withinMs: number): Promise<ReceivedRecord[]> {
  const out: ReceivedRecord[] = [];
  const deadline = Date.now() + withinMs;
  while (out.length < count && Date.now() < deadline) {
    const got = await queue.receive(10, 0);
    out.push(...got);
    if (got.length === 0) await clock.sleep(50);
  }
  return out;
}

function keyOf(body: string): string {
  return (JSON.parse(body) as ReconcileMessageBody).key;
}

beforeAll(async () => {
  server = await createSqsServer({ port: 0, hostname: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('SQS adapter against local-aws-sqs', () => {
  it('a send of 25 messages goes out as 3 SendMessageBatch calls and all 25 arrive', async () => {
    // Prepare
    const { client, calls } = recordingClient();
    const { url } = await createQueue(client, { VisibilityTimeout: '30' });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    const keys = Array.from({ length: 25 }, (_, i) => `c/ns/tc${String(i).padStart(2, '0')}`);
    calls.length = 0;
    // Act
    await queue.send(keys.map((k) => ({ message: message(k) })));
    const records = await receiveAll(queue, 25, 5_000);
    // Assess
    expect(calls.filter((c) => c.command === 'SendMessageBatchCommand').map((c) => c.entries)).toEqual([10, 10, 5]);
    expect(records.map((r) => keyOf(r.body)).sort()).toEqual(keys);
    expect(records.every((r) => r.receiveCount === 1 && r.sentAtMs > 0)).toBe(true);
    client.destroy();
  });

  it('DelaySeconds is honoured: a delayed message is not delivered before its delay', async () => {
    const { client } = recordingClient();
    const { url } = await createQueue(client, { VisibilityTimeout: '30' });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    const sentAt = Date.now();
    await queue.send([{ message: message('c/ns/now') }, { message: message('c/ns/later'), delaySeconds: 2 }]);
    const first = await receiveAll(queue, 1, 1_000);
    const later = await receiveAll(queue, 1, 5_000);
    const delayedMs = Date.now() - sentAt;
    expect(first.map((r) => keyOf(r.body))).toEqual(['c/ns/now']);
    expect(later.map((r) => keyOf(r.body))).toEqual(['c/ns/later']);
    expect(delayedMs).toBeGreaterThanOrEqual(2_000);
    client.destroy();
  });

  it('an entry the server rejects once is retried alone and arrives', async () => {
    let rejected = false;
    const { client, calls } = recordingClient((command, input) => {
      const entries = input.Entries as { Id: string; DelaySeconds?: number }[] | undefined;
      const second = entries?.[1];
      if (command === 'SendMessageBatchCommand' && !rejected && second) {
        second.DelaySeconds = 1_000; // the server answers InvalidParameterValue for this entry only
        rejected = true;
      }
    });
    const { url } = await createQueue(client, { VisibilityTimeout: '30' });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    calls.length = 0;
    await queue.send([{ message: message('a') }, { message: message('b') }, { message: message('c') }]);
    expect(calls.map((c) => c.entries)).toEqual([3, 1]);
    expect((await receiveAll(queue, 3, 3_000)).map((r) => keyOf(r.body)).sort()).toEqual(['a', 'b', 'c']);
    client.destroy();
  });

  it('an entry the server rejects twice fails the send with a TransientError naming it', async () => {
    const { client } = recordingClient((command, input) => {
      const entries = input.Entries as { Id: string; DelaySeconds?: number }[] | undefined;
      const bad = entries?.find((e) => e.Id === 'm1');
      if (command === 'SendMessageBatchCommand' && bad) bad.DelaySeconds = 1_000;
    });
    const { url } = await createQueue(client, { VisibilityTimeout: '30' });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    const sent = queue.send([{ message: message('c/ns/a') }, { message: message('c/ns/b') }]);
    await expect(sent).rejects.toBeInstanceOf(TransientError);
    await expect(sent).rejects.toThrow(/m1 \(c\/ns\/b: InvalidParameterValue, sender fault\)/);
    client.destroy();
  });

  it('ChangeMessageVisibility brings a received message back after the new timeout, not the queue\'s', async () => {
    // Prepare: the queue hides a received message for 30 s
    const { client, calls } = recordingClient();
    const { url } = await createQueue(client, { VisibilityTimeout: '30' });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    await queue.send([{ message: message('c/ns/held') }]);
    const [first] = await receiveAll(queue, 1, 5_000);
    // Act: held for 1 s (as a step holds its record for its lease)
    await queue.changeVisibility(first?.receiptHandle ?? '', 1);
    // Assess: hidden for now, back within a few seconds (the queue's 30 s no longer applies)
    expect(await queue.receive(10, 0)).toEqual([]);
    const [again] = await receiveAll(queue, 1, 5_000);
    expect(again?.messageId).toBe(first?.messageId);
    expect(calls.filter((c) => c.command === 'ChangeMessageVisibilityCommand')).toHaveLength(1);
  });

  it('a receive ends at once, empty, when its signal aborts', async () => {
    const { client } = recordingClient();
    const { url } = await createQueue(client, { VisibilityTimeout: '30' });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    const abort = new AbortController();
    const startedAt = Date.now();
    setTimeout(() => abort.abort(), 200);
    expect(await queue.receive(10, 20_000, abort.signal)).toEqual([]);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    client.destroy();
  });

  it('a call to a server that never answers fails as a TransientError at its deadline', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const silentEndpoint = `http://127.0.0.1:${port}`;
    const client = new SQSClient({ endpoint: silentEndpoint, region: 'us-east-1', credentials });
    const queue = new SqsReconcileQueue({ client, queueUrl: `${silentEndpoint}/123456789012/q`, callTimeoutMs: 300 });
    const startedAt = Date.now();
    const sent = queue.send([{ message: message('a') }]);
    await expect(sent).rejects.toBeInstanceOf(TransientError);
    await expect(sent).rejects.toThrow(/SendMessageBatch timed out after 300 ms/);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    client.destroy();
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });
});

describe('poller against local-aws-sqs', () => {
  it('deletes only successful records; a failed one is back after the visibility timeout, receiveCount 2', async () => {
    // Prepare
    const { client } = recordingClient();
    const { url } = await createQueue(client, { VisibilityTimeout: '1' });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    const seen: { key: string; receiveCount: string; atMs: number }[] = [];
    let failB = true;
    const handler: SqsBatchHandler = async (event) => {
      for (const r of event.Records) {
        seen.push({ key: keyOf(r.body), receiveCount: r.attributes.ApproximateReceiveCount, atMs: Date.now() });
      }
      const failed = event.Records.filter((r) => failB && keyOf(r.body) === 'c/ns/b');
      return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
    };
    const poller = new SqsPoller({ queue, clock, handler, waitMs: 0 });
    await queue.send(['c/ns/a', 'c/ns/b', 'c/ns/c'].map((k) => ({ message: message(k) })));
    // Act
    const first = await poller.pollOnce();
    failB = false;
    const immediately = await poller.pollOnce();
    let again = await poller.pollOnce();
    const deadline = Date.now() + 5_000;
    while (!again && Date.now() < deadline) {
      await clock.sleep(100);
      again = await poller.pollOnce();
    }
    await clock.sleep(1_200); // a second visibility timeout: anything not deleted would be back
    const leftover = await queue.receive(10, 0);
    // Assess
    expect(first).toEqual({ received: 3, deleted: 2, left: 1, failedWholeBatch: false });
    expect(immediately).toBeUndefined();
    expect(again).toEqual({ received: 1, deleted: 1, left: 0, failedWholeBatch: false });
    const redelivered = seen.slice(3);
    expect(redelivered.map((s) => [s.key, s.receiveCount])).toEqual([['c/ns/b', '2']]);
    expect((redelivered[0]?.atMs ?? 0) - (seen[0]?.atMs ?? 0)).toBeGreaterThanOrEqual(900);
    expect(leftover).toEqual([]);
    client.destroy();
  });

  it('a message that fails maxReceiveCount times is redriven to the dead-letter queue', async () => {
    const { client } = recordingClient();
    const dlq = await createQueue(client, { VisibilityTimeout: '30' });
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 });
    const { url } = await createQueue(client, { VisibilityTimeout: '1', RedrivePolicy: redrivePolicy });
    const queue = new SqsReconcileQueue({ client, queueUrl: url });
    const dead = new SqsReconcileQueue({ client, queueUrl: dlq.url });
    const counts: string[] = [];
    const handler: SqsBatchHandler = async (event) => {
      counts.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
      throw new Error('poison');
    };
    const poller = new SqsPoller({ queue, clock, handler, waitMs: 0, onError: () => undefined });
    await queue.send([{ message: message('c/ns/poison') }]);
    let deadRecords: ReceivedRecord[] = [];
    const deadline = Date.now() + 8_000;
    while (deadRecords.length === 0 && Date.now() < deadline) {
      await poller.pollOnce();
      deadRecords = await dead.receive(10, 0);
      if (deadRecords.length === 0) await clock.sleep(100);
    }
    expect(counts).toEqual(['1', '2']);
    expect(deadRecords.map((r) => keyOf(r.body))).toEqual(['c/ns/poison']);
    expect(await queue.receive(10, 0)).toEqual([]);
    client.destroy();
  });
});
