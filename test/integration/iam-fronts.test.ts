/**
 * The IAM fronts before dynalite and the local SQS server, through the real SDK clients: a call its
 * role allows reaches the server; a refused one fails as it does on AWS (DynamoDB's
 * AccessDeniedException, SQS's AccessDenied, AWS's message); an unknown access key is refused as
 * an invalid token; the deployer sets up freely.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchGetItemCommand, CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';

import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../lib/local/dynalite.js';
import { DEPLOYER } from '../../lib/local/iam/authority.js';
import { type LocalSqs, startLocalSqs } from '../../lib/local/local-stack.js';

let dynamo: EmbeddedDynamo;
let sqs: LocalSqs;
const key = { pk: { S: 'tc#local#demo#basic' }, sk: { S: 'state' } };
const PRINCIPAL = (fn: string): string => `arn:aws:sts::000000000000:assumed-role/tidb-reconciler-dev-us-east-1-${fn}/tidb-reconciler-dev-${fn}`;
const TABLE_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/tidb-reconciler-state';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:tidb-reconciler-reconcile';

/** What a call threw: its name, message and HTTP status (or `ok`). */
async function outcome(call: Promise<unknown>): Promise<{ name: string; message?: string; status?: number }> {
  try {
    await call;
    return { name: 'ok' };
  } catch (err) {
    const e = err as Error & { $metadata?: { httpStatusCode?: number } };
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode ?? 0 };
  }
}

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo();
  sqs = await startLocalSqs(dynamo.identities.iam);
}, 60_000);

afterAll(async () => {
  await sqs?.close();
  await dynamo?.close();
});

describe('the DynamoDB front', () => {
  it.each([
    { fn: 'reconcile', command: () => new PutItemCommand({ TableName: 'tidb-reconciler-state', Item: key }), action: undefined, verdict: 'allowed' },
    { fn: 'sweep', command: () => new BatchGetItemCommand({ RequestItems: { 'tidb-reconciler-state': { Keys: [key] } } }), action: undefined, verdict: 'allowed' },
    // GetItem: the exporter's watched-until mark (ADR 0024); the sweep writes nothing.
    { fn: 'sweep', command: () => new GetItemCommand({ TableName: 'tidb-reconciler-state', Key: key }), action: undefined, verdict: 'allowed' },
    { fn: 'sweep', command: () => new PutItemCommand({ TableName: 'tidb-reconciler-state', Item: key }), action: 'dynamodb:PutItem', verdict: 'refused dynamodb:PutItem' },
    { fn: 'exporter', command: () => new BatchGetItemCommand({ RequestItems: { 'tidb-reconciler-state': { Keys: [key] } } }), action: 'dynamodb:BatchGetItem', verdict: 'refused dynamodb:BatchGetItem' },
    { fn: 'admin', command: () => new CreateTableCommand({ TableName: 'tidb-reconciler-state', KeySchema: [], AttributeDefinitions: [], BillingMode: 'PAY_PER_REQUEST' }), action: 'dynamodb:CreateTable', verdict: 'refused dynamodb:CreateTable' },
  ])('$fn: $verdict', async ({ fn, command, action }) => {
    const got = await outcome(dynamo.identities.dynamo(fn).send(command() as never));
    if (action === undefined) expect(got).toEqual({ name: 'ok' });
    else
      expect(got).toEqual({
        name: 'AccessDeniedException',
        status: 400,
        message: `User: ${PRINCIPAL(fn)} is not authorized to perform: ${action} on resource: ${TABLE_ARN} because no identity-based policy allows the ${action} action`,
      });
  });

  it('an unknown access key is an invalid token, and no access key a missing one', async () => {
    const stranger = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' }, maxAttempts: 1 });
    try {
      expect(await outcome(stranger.send(new GetItemCommand({ TableName: 'tidb-reconciler-state', Key: key })))).toEqual({
        name: 'UnrecognizedClientException',
        status: 400,
        message: 'The security token included in the request is invalid.',
      });
    } finally {
      stranger.destroy();
    }
    const unsigned = await fetch(dynamo.endpoint, { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.ListTables', 'content-type': 'application/x-amz-json-1.0' }, body: '{}' });
    expect(unsigned.status).toBe(400);
    expect(((await unsigned.json()) as { __type: string }).__type).toBe('com.amazonaws.dynamodb.v20120810#MissingAuthenticationTokenException');
  });

  it('the deployer reads and writes anything (set-up and inspection)', async () => {
    expect(await outcome(new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: DEPLOYER }).send(new GetItemCommand({ TableName: 'tidb-reconciler-state', Key: key })))).toEqual({ name: 'ok' });
  });
});

describe('the SQS front', () => {
  const entries = [{ Id: '1', MessageBody: '{}' }];
  it.each([
    { fn: 'timer', send: () => new SendMessageBatchCommand({ QueueUrl: sqs.queueUrl, Entries: entries }), action: undefined, verdict: 'allowed' },
    { fn: 'reconcile', send: () => new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 1 }), action: undefined, verdict: 'allowed' },
    { fn: 'sweep', send: () => new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 1 }), action: 'sqs:ReceiveMessage', verdict: 'refused sqs:ReceiveMessage' },
    { fn: 'admin', send: () => new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 1 }), action: 'sqs:ReceiveMessage', verdict: 'refused sqs:ReceiveMessage' },
  ])('$fn: $verdict', async ({ fn, send, action }) => {
    const client = sqs.clientFor({ ...dynamo.identities.iam.credentialsOf(fn) });
    const got = await outcome(client.send(send() as never));
    if (action === undefined) expect(got).toEqual({ name: 'ok' });
    // SQS's JSON protocol carries the query-compatible code, which the SDK names the error after.
    else expect(got).toEqual({ name: 'AccessDenied', status: 403, message: `User: ${PRINCIPAL(fn)} is not authorized to perform: ${action} on resource: ${QUEUE_ARN} because no identity-based policy allows the ${action} action` });
  });
});
