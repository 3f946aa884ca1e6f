/**
 * The State port's rules for leaving nothing behind, on both local DynamoDB servers and on the
 * in-memory store the engine tests use (which must keep the same semantics): `forget` under the lease,
 * TTLs on items no step claimed, the fence staying monotonic through a forget, and history records
 * too large for one DynamoDB item stored cut instead of refused.
 */

import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { ConflictError } from '../../lib/platform/errors.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { DYNAMO_ITEM_LIMIT_BYTES } from '../../lib/state/history-fit.js';
import type { Deadline, HistoryRecord, StateStore } from '../../lib/state/port.js';
import { ensureTable } from '../../lib/state/table.js';
import { startDynalite, startDynamoDbLocal, type LocalDynamo, failoverDeadline } from '../support/dynamo.js';
import { MemoryStateStore } from '../support/memory-state.js';

const TABLE = 'tidb-reconciler-state';
const T0 = Date.UTC(2026, 0, 1);
const LEASE_MS = 30_000;
const EXPIRES = Math.floor(T0 / 1000) + 7 * 24 * 3600;
const WALL_MS = Date.UTC(2026, 5, 1);
const UNCLAIMED_EXPIRES = Math.floor(WALL_MS / 1000) + 7 * 24 * 3600;

type Backend = { store: StateStore; local?: LocalDynamo };

const backends = [
  { name: 'dynalite', start: async (): Promise<Backend> => dynamoBackend(await startDynalite()) },
  { name: 'dynamodb-local', start: async (): Promise<Backend> => dynamoBackend(await startDynamoDbLocal()) },
  { name: 'memory', start: async (): Promise<Backend> => ({ store: new MemoryStateStore(() => WALL_MS) }) },
];

async function dynamoBackend(local: LocalDynamo): Promise<Backend> {
  await ensureTable(local.client, TABLE);
  return { local, store: new DynamoStateStore(local.client, { tableName: TABLE, nowMs: () => WALL_MS }) };
}

let keySeq = 0;
const freshKey = (): string => `eks-test/tidb/gone-${++keySeq}`;

const deadline = (member: string): Deadline => failoverDeadline(member, T0);
const lastStep = { atMs: T0, outcome: 'complete' as const, message: 'TidbCluster not found' };

describe.each(backends)('forgetting a key on $name', ({ start }) => {
  let backend: Backend;
  let store: StateStore;

  beforeAll(async () => {
    backend = await start();
    store = backend.store;
  });

  afterAll(async () => {
    await backend?.local?.stop();
  });

  /** A key claimed by step-a (fence 2, after one earlier step) with two deadlines, a wake-up and failures. */
  async function claimedWithState(key: string): Promise<void> {
    await store.claim(key, 'step-0', T0 - 60_000, LEASE_MS);
    await store.release(key, 'step-0', 1, { failures: 3, nextWakeAtMs: T0 + 90_000, lastStep });
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await store.putDeadline(key, deadline('tc-tikv-0'), 2);
    await store.putDeadline(key, deadline('tc-tikv-1'), 2);
  }

  it('forget under the lease deletes the deadlines, clears wake-up and failures, and sets the TTL; release keeps it', async () => {
    // Prepare
    const key = freshKey();
    await claimedWithState(key);

    // Act
    await store.forget(key, 'step-a', 2, EXPIRES);
    await store.release(key, 'step-a', 2, { failures: 0, nextWakeAtMs: undefined, lastStep });

    // Assess
    expect(await store.listDeadlines(key)).toEqual([]);
    expect(await store.get(key)).toMatchObject({ fence: 2, lease: undefined, failures: 0, nextWakeAtMs: undefined, expiresAtSeconds: EXPIRES });
  });

  it("forget deletes the pods' store ids with the deadlines: a cluster created again under the name starts with none", async () => {
    // Prepare
    const key = freshKey();
    await claimedWithState(key);
    await store.putStoreId(key, { component: 'tikv', podName: 'tc-tikv-0', storeId: '4' }, 2);

    // Act
    await store.forget(key, 'step-a', 2, EXPIRES);
    await store.release(key, 'step-a', 2, { failures: 0, nextWakeAtMs: undefined, lastStep });
    const next = await store.claim(key, 'step-b', T0 + 1, LEASE_MS);

    // Assess
    expect(next.claimed && next.storeIds).toEqual([]);
  });

  it.each([
    { name: 'another owner', owner: 'step-b', fence: 2 },
    { name: 'an older fence', owner: 'step-a', fence: 1 },
  ])('forget by a step that does not hold the lease is refused and changes nothing: $name', async ({ owner, fence }) => {
    // Prepare
    const key = freshKey();
    await claimedWithState(key);
    const before = await store.get(key);

    // Act
    const forget = store.forget(key, owner, fence, EXPIRES);

    // Assess
    await expect(forget).rejects.toBeInstanceOf(ConflictError);
    expect(await store.get(key)).toEqual(before);
    expect(await store.listDeadlines(key)).toHaveLength(2);
  });

  it('the fence stays monotonic through a forget: a later claim removes the TTL and counts on, a stale step still cannot commit', async () => {
    // Prepare
    const key = freshKey();
    await claimedWithState(key);
    await store.forget(key, 'step-a', 2, EXPIRES);

    // Act: step-a's lease lapses without a release; the cluster is created again and stepped.
    const next = await store.claim(key, 'step-b', T0 + LEASE_MS, LEASE_MS);
    const stale = store.release(key, 'step-a', 2, { failures: 0, nextWakeAtMs: undefined, lastStep });

    // Assess
    expect(next).toMatchObject({ claimed: true, fence: 3 });
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    const state = await store.get(key);
    expect(state).toMatchObject({ fence: 3, lease: { owner: 'step-b' } });
    expect(state?.expiresAtSeconds).toBeUndefined();
  });

  it.each([
    { name: 'markDirty', touch: (s: StateStore, k: string) => s.markDirty(k) },
    { name: 'setNextWake', touch: (s: StateStore, k: string) => s.setNextWake(k, T0 + 1_000) },
  ])('$name on a key no step claimed leaves an item that expires; a claim makes it permanent', async ({ touch }) => {
    // Prepare
    const key = freshKey();

    // Act
    await touch(store, key);
    const unclaimed = await store.get(key);
    await store.claim(key, 'step-a', T0, LEASE_MS);

    // Assess
    expect(unclaimed?.expiresAtSeconds).toBe(UNCLAIMED_EXPIRES);
    expect((await store.get(key))?.expiresAtSeconds).toBeUndefined();
  });

  it.each([
    { name: 'markDirty', touch: (s: StateStore, k: string) => s.markDirty(k), field: 'dirty', value: true },
    { name: 'setNextWake', touch: (s: StateStore, k: string) => s.setNextWake(k, T0 + 1_000), field: 'nextWakeAtMs', value: T0 + 1_000 },
  ])('$name on a claimed key does its work and adds no TTL', async ({ touch, field, value }) => {
    // Prepare
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await store.release(key, 'step-a', 1, { failures: 0, nextWakeAtMs: undefined, lastStep });

    // Act
    await touch(store, key);

    // Assess
    const state = await store.get(key);
    expect(state).toMatchObject({ [field]: value, fence: 1 });
    expect(state?.expiresAtSeconds).toBeUndefined();
  });

  it('a history record with a 500 KB trigger is stored with the trigger cut, not refused', async () => {
    // Prepare
    const key = freshKey();
    const reason = `watch: ${'x'.repeat(500 * 1024)}`;
    const record: HistoryRecord = { atMs: T0, fence: 1, trigger: reason, outcome: 'complete', actions: ['create sts basic-pd: ok'], durationMs: 3, detail: { failures: 0 } };

    // Act
    await store.appendHistory(key, record, 3600);

    // Assess
    const [stored] = await store.listHistory(key, 1);
    expect(stored).toMatchObject({ atMs: T0, fence: 1, outcome: 'complete', actions: ['create sts basic-pd: ok'], detail: { failures: 0 } });
    expect(stored?.trigger.startsWith('watch: xxx')).toBe(true);
    expect(stored?.trigger).toMatch(/… \[cut: \d+ bytes\]$/);
    expect(Buffer.byteLength(stored?.trigger ?? '')).toBeLessThan(2048);
  });

  it('a history record of many large actions keeps what fits and counts the rest', async () => {
    // Prepare
    const key = freshKey();
    const actions = Array.from({ length: 400 }, (_, i) => `update sts basic-tikv: error (${i} ${'é'.repeat(3000)})`);
    const record: HistoryRecord = { atMs: T0, fence: 1, trigger: 'sweep', outcome: 'fail', actions, durationMs: 3 };

    // Act
    await store.appendHistory(key, record, 3600);

    // Assess
    const [stored] = await store.listHistory(key, 1);
    const kept = stored?.actions ?? [];
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.at(-1)).toMatch(/^… and \d+ more actions left out to fit the item limit$/);
    expect(kept[0]).toMatch(/^update sts basic-tikv: error \(0 é+… \[cut: \d+ bytes\]$/);
    expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThan(DYNAMO_ITEM_LIMIT_BYTES);
  });
});
