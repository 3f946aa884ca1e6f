/**
 * A step's whole read from the API server, kept in the state table for the health steps after it
 * (docs/adr/0024): the TidbCluster, what it owns, the bound volumes, and the addresses the
 * components' names resolved to — so a health step in any execution environment reads only the
 * components, as one in the warm process that ran the step before does. One item per key beside its
 * state item (sort key `rest-read`), gzip-compressed JSON: the state item itself stays small (it
 * carries only the fence of the read a step stands on, `StepSummary.persistedRead`), and is written
 * on every claim and release while this one is written only when a step reads the API server.
 *
 * An item is at most 400 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items);
 * a read larger than `MAX_REST_READ_BYTES` compressed is not kept (its health steps read at rest).
 * Read eventually consistent: a stale copy has another fence than the one the state item names and
 * is not used.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TerminalError } from '../platform/errors.js';
import { mapDynamoError } from './errors.js';
import { clusterPk } from './keys.js';
import { callSignal } from './requests.js';
import type { CallOptions, ClusterKey } from './port.js';
import { ATTR } from './table.js';

/** The sort key of a key's kept whole read. */
export const REST_READ_SK = 'rest-read';

/** The most a kept read may take compressed: well under DynamoDB's 400 KB item limit. */
export const MAX_REST_READ_BYTES = 300_000;

/** How long one request may take by default. */
const DEFAULT_TIMEOUT_MS = 3_000;

/**
 * A kept read: the fence of the step that read it, and what it read (JSON, opaque here). DynamoDB
 * TTL removes it `REST_READ_TTL_SECONDS` after `atMs` (a key forgotten leaves none behind for long;
 * one stepped keeps rewriting it at each full or event read).
 */
export type StoredRestRead = { readonly fence: number; readonly read: unknown; readonly atMs: number };

/** How long a kept read lives unless rewritten: a day, far beyond the 3.5 h between full reads. */
export const REST_READ_TTL_SECONDS = 86_400;

/** Where whole reads are kept (see the module comment). */
export interface RestReadStore {
  /** The read kept for `key`, or undefined when none is (or it cannot be decoded). */
  get(key: ClusterKey, opts?: CallOptions): Promise<StoredRestRead | undefined>;
  /** Keeps `read` for `key`, replacing any; false (nothing written) when it is too large to keep. */
  put(key: ClusterKey, read: StoredRestRead, opts?: CallOptions): Promise<boolean>;
}

/** `RestReadStore` in the state table. */
export class DynamoRestReads implements RestReadStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient | DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.doc = client instanceof DynamoDBDocumentClient ? client : DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async get(key: ClusterKey, opts?: CallOptions): Promise<StoredRestRead | undefined> {
    const what = `get the kept read of ${key}`;
    const signal = callSignal(opts, DEFAULT_TIMEOUT_MS);
    const input = { TableName: this.tableName, Key: { [ATTR.pk]: clusterPk(key), [ATTR.sk]: REST_READ_SK } };
    const out = await this.send(what, signal, (abortSignal) => this.doc.send(new GetCommand(input), { abortSignal }));
    const item = out.Item;
    if (item === undefined) return undefined;
    const fence = item['fence'];
    const body = item['body'];
    if (typeof fence !== 'number' || !(body instanceof Uint8Array)) return undefined;
    try {
      const atMs = typeof item['atMs'] === 'number' ? item['atMs'] : 0;
      return { fence, atMs, read: JSON.parse(gunzipSync(body).toString('utf8')) as unknown };
    } catch {
      // A kept read that does not decode is no kept read: the health step reads at rest.
      return undefined;
    }
  }

  async put(key: ClusterKey, read: StoredRestRead, opts?: CallOptions): Promise<boolean> {
    if (!Number.isSafeInteger(read.fence) || read.fence < 1) throw new TerminalError(`kept read of ${key}: fence must be a whole number ≥ 1, got ${read.fence}`, { field: 'fence' });
    const body = gzipSync(JSON.stringify(read.read));
    if (body.byteLength > MAX_REST_READ_BYTES) return false;
    const what = `keep the read of ${key}`;
    const signal = callSignal(opts, DEFAULT_TIMEOUT_MS);
    const input = { TableName: this.tableName, Item: { [ATTR.pk]: clusterPk(key), [ATTR.sk]: REST_READ_SK, fence: read.fence, atMs: read.atMs, body: new Uint8Array(body), [ATTR.expiresAt]: Math.floor(read.atMs / 1000) + REST_READ_TTL_SECONDS } };
    await this.send(what, signal, (abortSignal) => this.doc.send(new PutCommand(input), { abortSignal }));
    return true;
  }

  private async send<T>(what: string, signal: AbortSignal, fn: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      signal.throwIfAborted();
      return await fn(signal);
    } catch (err) {
      throw mapDynamoError(err, what);
    }
  }
}
