/**
 * The kept whole read of a key (lib/state/rest-reads.ts, docs/adr/0024) against dynalite: what is
 * put comes back as it was under its fence, beside the key's state item and never in it; a newer
 * put replaces it; one too large to keep is not written; none for a key never kept.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { clusterPk } from '../../lib/state/keys.js';
import { DynamoRestReads, MAX_REST_READ_BYTES, REST_READ_SK, REST_READ_TTL_SECONDS } from '../../lib/state/rest-reads.js';
import { startDynaliteWithTable, type LocalDynamo } from '../support/dynamo.js';

const TABLE = 'tidb-reconciler-state';
const T0 = Date.UTC(2026, 0, 1);
const KEY = 'eks/demo/basic';

let local: LocalDynamo;

beforeAll(async () => {
  local = await startDynaliteWithTable(TABLE);
}, 30_000);

afterAll(async () => {
  await local.stop();
});

describe('kept whole reads in the state table', () => {
  it('comes back as it was put, under its fence, with a TTL, and a later put replaces it', async () => {
    // Prepare
    const store = new DynamoRestReads(local.client, TABLE);
    const read = { cluster: { metadata: { name: 'basic', uid: 'u1' } }, addresses: [['basic-pd.demo.svc:2379', ['10.0.0.1']]] };
    // Act
    const first = await store.put(KEY, { fence: 4, atMs: T0, read });
    const got = await store.get(KEY);
    await store.put(KEY, { fence: 5, atMs: T0 + 1_000, read: { other: true } });
    const replaced = await store.get(KEY);
    const raw = await DynamoDBDocumentClient.from(local.client).send(new GetCommand({ TableName: TABLE, Key: { pk: clusterPk(KEY), sk: REST_READ_SK } }));
    // Assess
    expect(first).toBe(true);
    expect(got).toEqual({ fence: 4, atMs: T0, read });
    expect(replaced).toEqual({ fence: 5, atMs: T0 + 1_000, read: { other: true } });
    expect(raw.Item?.['expiresAt']).toBe(Math.floor((T0 + 1_000) / 1000) + REST_READ_TTL_SECONDS);
  });

  it("is an item of its own: the key's state item neither holds it nor is changed by it", async () => {
    // Prepare
    const state = new DynamoStateStore(local.client, { tableName: TABLE });
    const key = 'eks/demo/own-item';
    await state.claim(key, 'o', T0, 30_000);
    const before = await state.get(key);
    // Act
    await new DynamoRestReads(local.client, TABLE).put(key, { fence: 1, atMs: T0, read: { big: 'x'.repeat(10_000) } });
    // Assess
    expect(await state.get(key)).toEqual(before);
  });

  it('a read too large to keep is not written; a key never kept has none', async () => {
    // Prepare: random text does not compress below the bound
    const store = new DynamoRestReads(local.client, TABLE);
    const noise = Array.from({ length: MAX_REST_READ_BYTES / 4 }, () => Math.random().toString(36).slice(2, 10)).join('');
    // Act
    const kept = await store.put('eks/demo/huge', { fence: 1, atMs: T0, read: { noise } });
    // Assess
    expect(kept).toBe(false);
    expect(await store.get('eks/demo/huge')).toBeUndefined();
    expect(await store.get('eks/demo/never')).toBeUndefined();
  });

  it('refuses a fence that is not a whole number ≥ 1, naming the field', async () => {
    await expect(new DynamoRestReads(local.client, TABLE).put(KEY, { fence: 0, atMs: T0, read: {} })).rejects.toMatchObject({ field: 'fence' });
  });
});
