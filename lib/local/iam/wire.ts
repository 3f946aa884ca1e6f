/**
 * What IAM authorises for a DynamoDB or SQS request on the wire, and how each service answers a
 * refusal. DynamoDB (JSON 1.0, `X-Amz-Target: DynamoDB_20120810.<Op>`) checks `dynamodb:<Op>` on
 * every table the request names, and a transaction each item's own action
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html). SQS
 * (JSON `AmazonSQS.<Op>` or the query protocol's `Action=`) authorises a batch by its single action
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-api-permissions-reference.html).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { LocalResolver } from './resolve.js';

/** The services a front can stand before. */
export type WireService = 'dynamodb' | 'sqs';

/** One authorisation a request needs: an action on every one of `resources`. */
export type AwsCall = { readonly action: string; readonly resources: readonly string[]; readonly context?: Readonly<Record<string, string>> };

type Where = Pick<LocalResolver, 'account' | 'region' | 'partition'>;

/** The calls `body` needs authorised. Throws on a request it cannot read (the server then refuses it). */
export function callOf(service: WireService, headers: IncomingHttpHeaders, body: Buffer, where: Where): AwsCall[] {
  return service === 'dynamodb' ? dynamoCalls(headers, body, where) : sqsCalls(headers, body, where);
}

function dynamoCalls(headers: IncomingHttpHeaders, body: Buffer, where: Where): AwsCall[] {
  const op = String(headers['x-amz-target'] ?? '').split('.')[1];
  if (!op) throw new Error('no X-Amz-Target');
  const input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  const table = (name: unknown): string => `arn:${where.partition}:dynamodb:${where.region}:${where.account}:table/${String(name)}`;
  if (op === 'BatchGetItem' || op === 'BatchWriteItem') return [{ action: `dynamodb:${op}`, resources: Object.keys((input['RequestItems'] ?? {}) as object).map(table) }];
  if (op === 'TransactWriteItems' || op === 'TransactGetItems') {
    const items = (input['TransactItems'] ?? []) as Record<string, { TableName?: string }>[];
    const perItem: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
    return items.flatMap((item) => Object.entries(item).map(([kind, v]) => ({ action: `dynamodb:${perItem[kind] ?? kind}`, resources: [table(v.TableName)] })));
  }
  if (op === 'ListTables') return [{ action: 'dynamodb:ListTables', resources: ['*'] }];
  return [{ action: `dynamodb:${op}`, resources: [table(input['TableName'])] }];
}

/**
 * What a message move task's caller needs on its source queue: the start itself and what SQS does
 * as the caller to each message (receive, delete) and to the queue (its attributes); `sqs:SendMessage`
 * on the destination besides
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-dead-letter-queue-redrive.html).
 */
export const MOVE_TASK_SOURCE_ACTIONS = ['sqs:StartMessageMoveTask', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'] as const;

const SQS_BATCH_ACTION: Readonly<Record<string, string>> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

function sqsCalls(headers: IncomingHttpHeaders, body: Buffer, where: Where): AwsCall[] {
  const target = headers['x-amz-target'];
  let op: string | undefined;
  let input: Record<string, unknown>;
  if (typeof target === 'string') {
    op = target.split('.')[1];
    input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } else {
    input = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
    op = input['Action'] as string | undefined;
  }
  if (!op) throw new Error('no SQS action');
  const action = `sqs:${SQS_BATCH_ACTION[op] ?? op}`;
  if (op === 'ListQueues') return [{ action, resources: ['*'] }];
  const arn = (value: unknown): string => String(value);
  if (op === 'StartMessageMoveTask') {
    // The destination defaults to each message's original source queue, which the request does not name.
    const destination = input['DestinationArn'];
    return [
      ...MOVE_TASK_SOURCE_ACTIONS.map((a) => ({ action: a, resources: [arn(input['SourceArn'])] })),
      ...(destination === undefined ? [] : [{ action: 'sqs:SendMessage', resources: [arn(destination)] }]),
    ];
  }
  if (op === 'ListMessageMoveTasks') return [{ action, resources: [arn(input['SourceArn'])] }];
  const url = input['QueueUrl'];
  const name = typeof url === 'string' ? url.split('/').filter(Boolean).pop() : (input['QueueName'] as string | undefined);
  return [{ action, resources: [`arn:${where.partition}:sqs:${where.region}:${where.account}:${String(name)}`] }];
}

/** How a refusal is answered. */
export type RefusalKind = 'access-denied' | 'invalid-token' | 'missing-token';

/**
 * The service's answer to a refused request: DynamoDB's JSON error (HTTP 400, `__type` in its
 * namespace), SQS's JSON error (HTTP 403 for AccessDenied, with the query-compatible
 * `x-amzn-query-error` code the SDK reads beside `__type`).
 */
export function errorBody(service: WireService, kind: RefusalKind, message: string): { status: number; headers: Record<string, string>; body: string } {
  if (service === 'dynamodb') {
    const type = { 'access-denied': 'AccessDeniedException', 'invalid-token': 'UnrecognizedClientException', 'missing-token': 'MissingAuthenticationTokenException' }[kind];
    return { status: 400, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message }) };
  }
  const [type, code] = { 'access-denied': ['AccessDeniedException', 'AccessDenied'], 'invalid-token': ['InvalidClientTokenId', 'InvalidClientTokenId'], 'missing-token': ['MissingAuthenticationTokenException', 'MissingAuthenticationToken'] }[kind];
  return {
    status: 403,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${code};Sender` },
    body: JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message }),
  };
}
