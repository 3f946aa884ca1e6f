/**
 * The state item's layout version on a local DynamoDB: a claim records the layout it writes, an item
 * from before versions (no attribute) is claimed and gets it, and a reconciler of an older layout
 * refuses to step a key whose item a newer one wrote — a `TerminalError` naming both versions —
 * instead of misreading it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { TerminalError } from '../../lib/platform/errors.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { clusterPk } from '../../lib/state/keys.js';
import { STATE_SCHEMA_VERSION } from '../../lib/state/table.js';
import { startDynaliteWithTable, type LocalDynamo } from '../support/dynamo.js';

const TABLE = 'tidb-reconciler-state';
const T0 = Date.UTC(2026, 0, 1);
const LEASE_MS = 30_000;

let local: LocalDynamo;
let store: DynamoStateStore;
let seq = 0;
const freshKey = (): string => `eks-test/tidb/schema-${++seq}`;
const ref = (key: string) => ({ pk: { S: clusterPk(key) }, sk: { S: 'state' } });

async function schemaOf(key: string): Promise<string | undefined> {
  const item = await local.client.send(new GetItemCommand({ TableName: TABLE, Key: ref(key) }));
  return item.Item?.['schemaVersion']?.N;
}

async function setSchema(key: string, version: number | undefined): Promise<void> {
  const update = version === undefined ? { UpdateExpression: 'REMOVE schemaVersion' } : { UpdateExpression: 'SET schemaVersion = :v', ExpressionAttributeValues: { ':v': { N: String(version) } } };
  await local.client.send(new UpdateItemCommand({ TableName: TABLE, Key: ref(key), ...update }));
}

beforeAll(async () => {
  local = await startDynaliteWithTable(TABLE);
  store = new DynamoStateStore(local.client, { tableName: TABLE });
});

afterAll(async () => {
  await local?.stop();
});

describe('the state item carries its layout version', () => {
  it('a claim records the layout this code writes', async () => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    expect(await schemaOf(key)).toBe(String(STATE_SCHEMA_VERSION));
  });

  it('an item from before layout versions is claimed, and gets the version', async () => {
    // Prepare: an item as an older reconciler left it.
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await store.release(key, 'step-a', 1, { failures: 0, nextWakeAtMs: undefined, lastStep: { atMs: T0, outcome: 'complete' } });
    await setSchema(key, undefined);
    // Act
    const claim = await store.claim(key, 'step-b', T0 + 1_000, LEASE_MS);
    // Assess
    expect(claim.claimed).toBe(true);
    expect(await schemaOf(key)).toBe(String(STATE_SCHEMA_VERSION));
  });

  it('an item a newer layout wrote is refused, naming both versions, and left as it was', async () => {
    // Prepare: a newer reconciler stepped the key and released it.
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await store.release(key, 'step-a', 1, { failures: 0, nextWakeAtMs: undefined, lastStep: { atMs: T0, outcome: 'complete' } });
    await setSchema(key, STATE_SCHEMA_VERSION + 1);
    // Act
    const err = await store.claim(key, 'step-old', T0 + 1_000, LEASE_MS).catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as Error).message).toContain(`layout version ${STATE_SCHEMA_VERSION + 1}, and this reconciler knows up to ${STATE_SCHEMA_VERSION}`);
    expect((await store.get(key))?.lease).toBeUndefined();
    expect(await schemaOf(key)).toBe(String(STATE_SCHEMA_VERSION + 1));
  });
});
