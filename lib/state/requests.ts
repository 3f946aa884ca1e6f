/**
 * The requests the state adapter sends (GetItem, BatchGetItem, PutItem, UpdateItem, DeleteItem,
 * Query), each under an abort signal and with SDK errors mapped to typed errors. The
 * adapter (`dynamo.ts`) says *what* to write; this module owns *how* a request is sent.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, TransientError } from '../platform/errors.js';
import { writeInput, type Expr, type WriteParts } from './conditions.js';
import { mapDynamoError } from './errors.js';
import type { Item } from './items.js';
import type { CallOptions } from './port.js';
import { ATTR } from './table.js';

/** BatchGetItem's limit on keys per request. */
export const BATCH_GET_MAX_KEYS = 100;
/** Requests one `batchGet` makes at most while DynamoDB leaves keys unprocessed. */
export const BATCH_GET_ATTEMPTS = 4;

/** The primary key of one item. */
export type Ref = { pk: string; sk: string };

/**
 * One signal for a whole port call, shared by all its requests: the caller's `timeoutMs` (or the
 * adapter default) and the caller's `signal`, whichever fires first.
 */
export function callSignal(opts: CallOptions | undefined, defaultTimeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(opts?.timeoutMs ?? defaultTimeoutMs);
  return opts?.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
}

/** Resolves to undefined instead of throwing when the request's condition did not hold. */
export async function ifConditionHolds<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (err instanceof ConflictError) return undefined;
    throw err;
  }
}

/** Whether a conditional request went through (true) or its condition did not hold (false). */
export async function conditionHeld(request: Promise<unknown>): Promise<boolean> {
  return (await ifConditionHolds(request.then(() => true))) ?? false;
}

/**
 * Request helpers bound to one table. Every method takes `what` (used in error messages, e.g.
 * `release eks/ns/tc`) and the call's signal; reads are strongly consistent because lease and
 * fence decisions must see the latest write.
 */
export class StateTable {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient | DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.doc =
      client instanceof DynamoDBDocumentClient
        ? client
        : DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  /** UpdateItem; returns the item before or after the write when `returnValues` asks for it. */
  async update(
    what: string,
    signal: AbortSignal,
    ref: Ref,
    parts: WriteParts,
    returnValues?: 'ALL_NEW' | 'ALL_OLD',
  ): Promise<Item | undefined> {
    const input = { TableName: this.tableName, Key: ref, ...writeInput(parts), ReturnValues: returnValues };
    const out = await send(what, signal, (abortSignal) => this.doc.send(new UpdateCommand(input), { abortSignal }));
    return out.Attributes;
  }

  /** PutItem, conditional when `condition` is given. */
  async put(what: string, signal: AbortSignal, item: Item, condition?: Expr): Promise<void> {
    const input = { TableName: this.tableName, Item: item, ...writeInput(condition ? { condition } : {}) };
    await send(what, signal, (abortSignal) => this.doc.send(new PutCommand(input), { abortSignal }));
  }

  /** DeleteItem, conditional when `condition` is given; deleting a missing item succeeds. */
  async delete(what: string, signal: AbortSignal, ref: Ref, condition?: Expr): Promise<void> {
    const input = { TableName: this.tableName, Key: ref, ...writeInput(condition ? { condition } : {}) };
    await send(what, signal, (abortSignal) => this.doc.send(new DeleteCommand(input), { abortSignal }));
  }

  /** GetItem, strongly consistent. */
  async get(what: string, signal: AbortSignal, ref: Ref): Promise<Item | undefined> {
    const input = { TableName: this.tableName, Key: ref, ConsistentRead: true };
    const out = await send(what, signal, (abortSignal) => this.doc.send(new GetCommand(input), { abortSignal }));
    return out.Item;
  }

  /**
   * BatchGetItem, strongly consistent, for at most `BATCH_GET_MAX_KEYS` refs: the items that exist, in
   * no particular order. Keys DynamoDB leaves unprocessed (throttling, size) are asked for again, up to
   * `BATCH_GET_ATTEMPTS` requests in all; any still unprocessed then make it throw a `TransientError`.
   */
  async batchGet(what: string, signal: AbortSignal, refs: readonly Ref[]): Promise<Item[]> {
    if (refs.length > BATCH_GET_MAX_KEYS) throw new RangeError(`${what}: ${refs.length} keys exceed BatchGetItem's ${BATCH_GET_MAX_KEYS}`);
    const items: Item[] = [];
    let keys: Record<string, unknown>[] = refs.map((r) => ({ ...r }));
    for (let attempt = 1; keys.length > 0; attempt++) {
      if (attempt > BATCH_GET_ATTEMPTS) throw new TransientError(`${what}: ${keys.length} keys still unprocessed after ${BATCH_GET_ATTEMPTS} requests`);
      const input = { RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } };
      const out = await send(what, signal, (abortSignal) => this.doc.send(new BatchGetCommand(input), { abortSignal }));
      items.push(...((out.Responses?.[this.tableName] ?? []) as Item[]));
      keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
    return items;
  }

  /** Query `pk` for sort keys starting with `prefix`, following pages until `limit` items. */
  async queryPrefix(
    what: string,
    signal: AbortSignal,
    pk: string,
    prefix: string,
    q: { newestFirst: boolean; limit: number },
  ): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const remaining = q.limit - items.length;
      const input = {
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ScanIndexForward: !q.newestFirst,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        Limit: Number.isFinite(remaining) ? remaining : undefined,
      };
      const out = await send(what, signal, (abortSignal) => this.doc.send(new QueryCommand(input), { abortSignal }));
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined && items.length < q.limit);
    return items;
  }
}

async function send<T>(what: string, signal: AbortSignal, fn: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    // A signal that already fired (e.g. an earlier request of the same call used the whole
    // budget) must not start another request.
    signal.throwIfAborted();
    return await fn(signal);
  } catch (err) {
    throw mapDynamoError(err, what);
  }
}
