/**
 * `tidb-reconciler admin redrive` end to end on the local stack (`npm start`): a malformed reconcile
 * message fails its five receives and lands in the dead-letter queue (the local SQS server's
 * redrive policy); `admin redrive --dry-run` counts it, `admin redrive --wait` starts an SQS message
 * move task through the admin function (as its own role, under IAM) and follows it until SQS reports
 * it moved 1 of 1; the message is back in the reconcile queue.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, ListMessageMoveTasksCommand, SendMessageCommand, SetQueueAttributesCommand, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';

import { runAdminCommand } from '../../lib/cli/admin.js';
import { writeEndpointFile } from '../../lib/local/admin-endpoint.js';
import { type LocalStack, startLocalStack } from '../../lib/local/local-stack.js';
import { silentLogger } from '../../lib/platform/logger.js';
import { SqsDeadLetterRedrive } from '../../lib/queue/redrive.js';

let stack: LocalStack;
let stackFile: string;

async function admin(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCommand([...args, '--local', stackFile], { env: {}, out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The queue's visible and in-flight counts, read as the deployer. */
async function counts(queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const out = await stack.sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
  return { visible: Number(out.Attributes?.ApproximateNumberOfMessages ?? 0), inFlight: Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) };
}

async function until(done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  stack = await startLocalStack({ logger: silentLogger, sweepIntervalMs: 3_600_000 });
  stackFile = join(mkdtempSync(join(tmpdir(), 'redrive-')), 'local-stack.json');
  writeEndpointFile(stackFile, { pid: process.pid, adminUrl: stack.adminUrl, apiServerUrl: stack.apiServerUrl, region: stack.adminSigning.region, credentials: stack.adminSigning.credentials });
  // A one-second visibility timeout instead of 370 s, so five failed receives take seconds.
  await stack.sqs.client.send(new SetQueueAttributesCommand({ QueueUrl: stack.sqs.queueUrl, Attributes: { VisibilityTimeout: '1' } }));
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('admin redrive on the local stack', () => {
  it('a malformed message lands in the dead-letter queue; redrive moves it back and prints the counts', async () => {
    // Prepare: the reconcile handler reports the record failed on every receive; after five, SQS moves it.
    await stack.sqs.client.send(new SendMessageCommand({ QueueUrl: stack.sqs.queueUrl, MessageBody: '{"key": 42}' }));
    await until(async () => (await counts(stack.sqs.deadLetterQueueUrl)).visible === 1, 60_000);

    // Act
    const dryRun = await admin(['redrive', '--dry-run']);
    const started = await admin(['redrive', '--wait']);
    const status = await admin(['redrive', '--status']);

    // Assess
    expect(dryRun).toEqual(expect.objectContaining({ code: 0, err: '' }));
    expect(dryRun.out).toContain('waiting: 1 message (0 in flight)');
    expect(dryRun.out).toContain('dry run: a redrive would move 1 message back to the reconcile queue; nothing was moved');
    expect(dryRun.out).toContain('move tasks: none');
    expect(started).toEqual(expect.objectContaining({ code: 0, err: '' }));
    expect(started.out).toMatch(/redrive started by arn:aws:sts::000000000000:assumed-role\/local-operator\/[^:]+: moved 0 of 1/);
    expect(started.out).toContain('COMPLETED: moved 1 of 1');
    expect(status.out).toMatch(/COMPLETED +moved 1 of 1/);
    expect(stack.iam.denials).toEqual([]);
    expect([...(stack.iam.used.get('admin') ?? [])]).toEqual(expect.arrayContaining(['sqs:StartMessageMoveTask', 'sqs:ListMessageMoveTasks', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']));
  }, 120_000);

  it('the moved message is a new message of the reconcile queue: still malformed, it fails five receives again and returns', async () => {
    // Act: the reconcile handler receives the redriven message again (a new message: receive count 0).
    await until(async () => (await counts(stack.sqs.deadLetterQueueUrl)).visible === 1, 60_000);
    const dryRun = await admin(['redrive', '--dry-run']);

    // Assess
    expect(dryRun.out).toContain('waiting: 1 message (0 in flight)');
    expect(dryRun.out).toMatch(/COMPLETED +moved 1 of 1/);
  }, 90_000);

  it('the local SQS server keeps one running task per dead-letter queue, as SQS does', async () => {
    // Prepare: the message of the test before waits in the dead-letter queue again.
    const { client, deadLetterQueueUrl, deadLetterQueueArn } = stack.sqs;
    const redrive = new SqsDeadLetterRedrive({ client, deadLetterQueueUrl, deadLetterQueueArn, destinationArn: deadLetterQueueArn.replace(/-dlq$/, '') });
    // Act
    await redrive.start(1);
    const second = redrive.start();
    // Assess
    await expect(second).rejects.toThrow('There is already a task running. Only one active task is allowed for a source queue arn at a given time.');
  }, 30_000);

  it.each([
    { name: 'a source that is no dead-letter queue, by SQS', as: 'deployer', error: 'InvalidParameterValue: Source queue must be configured as a Dead Letter Queue.' },
    { name: 'the admin role on the reconcile queue, by IAM', as: 'admin', error: 'is not authorized to perform: sqs:StartMessageMoveTask on resource: arn:aws:sqs:us-east-1:000000000000:tidb-reconciler-reconcile' },
  ])('a move task from the reconcile queue is refused: $name', async ({ as, error }) => {
    const queueArn = stack.sqs.deadLetterQueueArn.replace(/-dlq$/, '');
    const client = as === 'admin' ? stack.sqs.clientFor(stack.iam.credentialsOf('admin')) : stack.sqs.client;
    const redrive = new SqsDeadLetterRedrive({ client, deadLetterQueueUrl: stack.sqs.queueUrl, deadLetterQueueArn: queueArn, destinationArn: stack.sqs.deadLetterQueueArn });
    await expect(redrive.start()).rejects.toThrow(error);
    if (as === 'admin') expect(stack.iam.denials.map((d) => d.action)).toEqual(['sqs:StartMessageMoveTask']);
  }, 30_000);

  it('a move task without a destination returns each message to the queue it came from, as SQS does', async () => {
    // Prepare: the malformed message is back in the dead-letter queue once more.
    const { client, deadLetterQueueUrl, deadLetterQueueArn } = stack.sqs;
    await until(async () => (await counts(deadLetterQueueUrl)).visible === 1 && !(await client.send(new ListMessageMoveTasksCommand({ SourceArn: deadLetterQueueArn }))).Results?.some((t) => t.Status === 'RUNNING'), 60_000);
    // Act
    await client.send(new StartMessageMoveTaskCommand({ SourceArn: deadLetterQueueArn }));
    await until(async () => (await client.send(new ListMessageMoveTasksCommand({ SourceArn: deadLetterQueueArn }))).Results?.[0]?.Status !== 'RUNNING', 30_000);
    // Assess
    const [task] = (await client.send(new ListMessageMoveTasksCommand({ SourceArn: deadLetterQueueArn, MaxResults: 1 }))).Results ?? [];
    expect(task).toEqual(expect.objectContaining({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 1 }));
    expect(task?.DestinationArn).toBeUndefined();
    expect(task?.FailureReason).toBeUndefined();
  }, 120_000);
});

