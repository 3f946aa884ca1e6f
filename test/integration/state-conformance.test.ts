/**
 * The State port's contract, run against both local DynamoDB servers: dynalite (in-process) and
 * DynamoDB Local (the AWS implementation). A rule that holds on one and not the other is a bug in
 * the adapter's use of DynamoDB, so every test runs on both.
 */

import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ConflictError, TerminalError, TransientError } from '../../lib/platform/errors.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { clusterPk, historySk } from '../../lib/state/keys.js';
import type { Deadline, HistoryRecord, StateStore } from '../../lib/state/port.js';
import { ensureTable } from '../../lib/state/table.js';
import { DYNAMO_BACKENDS, failoverDeadline, type LocalDynamo } from '../support/dynamo.js';

const TABLE = 'tidb-reconciler-state';
const T0 = Date.UTC(2026, 0, 1);
const LEASE_MS = 30_000;

const backends = DYNAMO_BACKENDS;

let keySeq = 0;
/** A key no other test touches, so tests stay independent on one shared table. */
const freshKey = (): string => `eks-test/tidb/tc-${++keySeq}`;

const deadline = (member: string, over: Partial<Deadline> = {}): Deadline => failoverDeadline(member, T0, over);

const history = (atMs: number, fence: number): HistoryRecord => ({
  atMs,
  fence,
  trigger: 'watch',
  outcome: 'complete',
  actions: [`update sts tc-tikv at ${atMs}`],
  durationMs: 42,
});

const summary = { atMs: T0, outcome: 'complete' as const };
const cleanRelease = { failures: 0, nextWakeAtMs: undefined, lastStep: summary };

describe.each(backends)('State port on $name', ({ start }) => {
  let local: LocalDynamo;
  let store: StateStore;

  beforeAll(async () => {
    local = await start();
    await ensureTable(local.client, TABLE);
    store = new DynamoStateStore(local.client, { tableName: TABLE });
  });

  afterAll(async () => {
    await local?.stop();
  });

  it('a claim on a free key takes the lease with fence 1 and a clean state', async () => {
    const key = freshKey();

    const res = await store.claim(key, 'step-a', T0, LEASE_MS);

    const expected = {
      key,
      fence: 1,
      lease: { owner: 'step-a', untilMs: T0 + LEASE_MS },
      dirty: false,
      failures: 0,
      nextWakeAtMs: undefined,
      lastStep: undefined,
    };
    expect(res).toEqual({ claimed: true, fence: 1, state: expected, deadlines: [], storeIds: [] });
    expect(await store.get(key)).toEqual(expected);
  });

  it('a claim while the lease is held fails, names the holder and marks the key dirty', async () => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);

    const res = await store.claim(key, 'step-b', T0 + 1000, LEASE_MS);

    expect(res).toEqual({ claimed: false, heldBy: 'step-a', leaseUntilMs: T0 + LEASE_MS, fence: 1, armExpiryWake: true });
    expect(await store.get(key)).toMatchObject({ fence: 1, dirty: true, lease: { owner: 'step-a' } });
  });

  it.each([
    { name: 'a millisecond before expiry the lease is still held', atMs: T0 + LEASE_MS - 1, claimed: false, fence: 1 },
    { name: 'at the expiry instant the lease is free', atMs: T0 + LEASE_MS, claimed: true, fence: 2 },
    { name: 'long after expiry the lease is free', atMs: T0 + 10 * LEASE_MS, claimed: true, fence: 2 },
  ])('a claim after a crashed step: $name', async ({ atMs, claimed, fence }) => {
    const key = freshKey();
    await store.claim(key, 'crashed', T0, LEASE_MS);

    const res = await store.claim(key, 'step-b', atMs, LEASE_MS);

    expect(res.claimed).toBe(claimed);
    const state = await store.get(key);
    expect(state?.fence).toBe(fence);
    expect(state?.lease).toEqual(
      claimed ? { owner: 'step-b', untilMs: atMs + LEASE_MS } : { owner: 'crashed', untilMs: T0 + LEASE_MS },
    );
    // A successful claim starts a fresh step: the trigger that marked it dirty is now covered.
    expect(state?.dirty).toBe(!claimed);
  });

  it.each([
    { name: 'its lease was taken over after expiry', staleFence: 1, takeover: true, releasedFirst: false },
    { name: 'it names a fence that was never its own', staleFence: 7, takeover: false, releasedFirst: false },
    { name: 'it already released', staleFence: 1, takeover: false, releasedFirst: true },
  ])('a release by a stale holder is a ConflictError and changes nothing: $name', async (row) => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    if (row.takeover) await store.claim(key, 'step-b', T0 + LEASE_MS, LEASE_MS);
    if (row.releasedFirst) await store.release(key, 'step-a', 1, cleanRelease);
    const before = await store.get(key);

    const release = store.release(key, 'step-a', row.staleFence, {
      failures: 9,
      nextWakeAtMs: T0 + 1,
      lastStep: { atMs: T0 + 5, outcome: 'fail', message: 'stale' },
    });

    await expect(release).rejects.toBeInstanceOf(ConflictError);
    expect(await store.get(key)).toEqual(before);
  });

  it.each([
    { name: 'a competing claim', wasDirty: true, trigger: (k: string) => store.claim(k, 'step-b', T0 + 1, LEASE_MS) },
    { name: 'markDirty', wasDirty: true, trigger: (k: string) => store.markDirty(k) },
    { name: 'no trigger', wasDirty: false, trigger: async () => undefined },
  ])('release reports and clears a trigger that arrived during the step: $name', async ({ wasDirty, trigger }) => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await trigger(key);

    const res = await store.release(key, 'step-a', 1, cleanRelease);

    expect(res).toEqual({ wasDirty });
    expect(await store.get(key)).toMatchObject({ dirty: false, lease: undefined, fence: 1 });
  });

  it('the failure counter, next wake-up and last step persist across release and the next claim', async () => {
    const key = freshKey();
    const lastStep = { atMs: T0 + 900, outcome: 'fail' as const, reconcileId: 'r-1', message: 'pd unavailable' };
    await store.claim(key, 'step-a', T0, LEASE_MS);

    await store.release(key, 'step-a', 1, { failures: 3, nextWakeAtMs: T0 + 8000, lastStep });

    const persisted = { failures: 3, nextWakeAtMs: T0 + 8000, lastStep, lease: undefined, dirty: false };
    expect(await store.get(key)).toMatchObject(persisted);
    const next = await store.claim(key, 'step-b', T0 + 8000, LEASE_MS);
    expect(next).toMatchObject({ claimed: true, fence: 2, state: { failures: 3, nextWakeAtMs: T0 + 8000, lastStep } });
    await store.release(key, 'step-b', 2, cleanRelease);
    expect(await store.get(key)).toMatchObject(cleanRelease);
  });

  it.each([
    { name: 'the first wake-up is set', sets: [10_000], moved: [true], finalMs: 10_000 },
    { name: 'a later wake-up is refused', sets: [10_000, 20_000], moved: [true, false], finalMs: 10_000 },
    { name: 'an equal wake-up is a no-op', sets: [10_000, 10_000], moved: [true, false], finalMs: 10_000 },
    { name: 'an earlier wake-up wins', sets: [10_000, 20_000, 5_000], moved: [true, false, true], finalMs: 5_000 },
  ])('a wake-up is moved earlier, never later: $name', async ({ sets, moved, finalMs }) => {
    const key = freshKey();

    const results: boolean[] = [];
    for (const afterMs of sets) results.push(await store.setNextWake(key, T0 + afterMs));

    expect(results).toEqual(moved);
    expect((await store.get(key))?.nextWakeAtMs).toBe(T0 + finalMs);
  });

  it('deadlines are written, listed in key order and deleted under the current fence', async () => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);

    await store.putDeadline(key, deadline('tc-tikv-2'), 1);
    await store.putDeadline(key, deadline('tc-tikv-0', { deadlineAtMs: T0 + 60_000 }), 1);
    await store.putDeadline(key, deadline('tc-pd-1', { component: 'pd', kind: 'failover' }), 1);
    await store.putDeadline(key, deadline('tc-tikv-0', { deadlineAtMs: T0 + 90_000 }), 1);
    await store.deleteDeadline(key, { component: 'pd', member: 'tc-pd-1', kind: 'failover' }, 1);

    expect(await store.listDeadlines(key)).toEqual([
      { ...deadline('tc-tikv-0', { deadlineAtMs: T0 + 90_000 }), fence: 1 },
      { ...deadline('tc-tikv-2'), fence: 1 },
    ]);
  });

  it.each([
    { name: 'its lease was taken over', fence: 1, takeover: true, release: false },
    { name: 'it already released', fence: 1, takeover: false, release: true },
    { name: 'the fence was never issued', fence: 5, takeover: false, release: false },
  ])('a deadline write or delete with a stale fence is refused: $name', async (row) => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await store.putDeadline(key, deadline('tc-tikv-1'), 1);
    if (row.takeover) await store.claim(key, 'step-b', T0 + LEASE_MS, LEASE_MS);
    if (row.release) await store.release(key, 'step-a', 1, cleanRelease);

    const put = store.putDeadline(key, deadline('tc-tikv-1', { deadlineAtMs: T0 + 1 }), row.fence);
    const put2 = store.putDeadline(key, deadline('tc-tikv-9'), row.fence);
    const del = store.deleteDeadline(key, { component: 'tikv', member: 'tc-tikv-1', kind: 'failover' }, row.fence);

    await expect(put).rejects.toBeInstanceOf(ConflictError);
    await expect(put2).rejects.toBeInstanceOf(ConflictError);
    await expect(del).rejects.toBeInstanceOf(ConflictError);
    expect(await store.listDeadlines(key)).toEqual([{ ...deadline('tc-tikv-1'), fence: 1 }]);
  });

  it("a pod's store id is recorded under the fence, replaced by a newer one, and returned by the next claim", async () => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);

    await store.putStoreId(key, { component: 'tikv', podName: 'tc-tikv-1', storeId: '5' }, 1);
    await store.putStoreId(key, { component: 'tikv', podName: 'tc-tikv-0', storeId: '4' }, 1);
    await store.putStoreId(key, { component: 'tikv', podName: 'tc-tikv-1', storeId: '18446744073709551615' }, 1);
    await store.release(key, 'step-a', 1, cleanRelease);
    const next = await store.claim(key, 'step-b', T0 + 1, LEASE_MS);

    expect(next.claimed && next.storeIds).toEqual([
      { component: 'tikv', podName: 'tc-tikv-0', storeId: '4' },
      { component: 'tikv', podName: 'tc-tikv-1', storeId: '18446744073709551615' },
    ]);
  });

  it.each([
    { name: 'its lease was taken over', fence: 1, takeover: true, release: false },
    { name: 'it already released', fence: 1, takeover: false, release: true },
  ])('a store id write with a stale fence is refused: $name', async (row) => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await store.putStoreId(key, { component: 'tikv', podName: 'tc-tikv-1', storeId: '5' }, 1);
    if (row.takeover) await store.claim(key, 'step-b', T0 + LEASE_MS, LEASE_MS);
    if (row.release) await store.release(key, 'step-a', 1, cleanRelease);

    const put = store.putStoreId(key, { component: 'tikv', podName: 'tc-tikv-1', storeId: '9' }, row.fence);

    await expect(put).rejects.toBeInstanceOf(ConflictError);
    const next = await store.claim(key, 'step-c', T0 + 3 * LEASE_MS, LEASE_MS);
    expect(next.claimed && next.storeIds).toEqual([{ component: 'tikv', podName: 'tc-tikv-1', storeId: '5' }]);
  });

  it('history is listed newest first, each record carrying its TTL attribute in epoch seconds', async () => {
    const key = freshKey();
    const ttlSeconds = 7 * 24 * 3600;
    for (const [atMs, fence] of [[T0 + 2000, 2], [T0 + 1000, 1], [T0 + 3000, 3], [T0 + 3000, 4]] as const) {
      await store.appendHistory(key, history(atMs, fence), ttlSeconds);
    }

    const all = await store.listHistory(key, 10);
    const newest2 = await store.listHistory(key, 2);

    expect(all.map((h) => [h.atMs, h.fence])).toEqual([[T0 + 3000, 4], [T0 + 3000, 3], [T0 + 2000, 2], [T0 + 1000, 1]]);
    expect(all[3]).toEqual({ ...history(T0 + 1000, 1), expiresAtSeconds: (T0 + 1000) / 1000 + ttlSeconds });
    expect(newest2.map((h) => h.fence)).toEqual([4, 3]);
    const rawKey = { pk: { S: clusterPk(key) }, sk: { S: historySk(T0 + 1000, 1) } };
    const raw = await local.client.send(new GetItemCommand({ TableName: TABLE, Key: rawKey }));
    expect(raw.Item?.['expiresAt']).toEqual({ N: String((T0 + 1000) / 1000 + ttlSeconds) });
  });

  it('a history record keeps who asked for an admin step (requestedBy), and a record without one reads back without it', async () => {
    const key = freshKey();
    const requestedBy = { arn: 'arn:aws:sts::111122223333:assumed-role/team-a/alice', username: 'alice' };
    await store.appendHistory(key, { ...history(T0 + 2000, 2), trigger: 'admin:pause', requestedBy }, 60);
    await store.appendHistory(key, history(T0 + 1000, 1), 60);

    const [admin, plain] = await store.listHistory(key, 10);

    expect(admin?.requestedBy).toEqual(requestedBy);
    expect(plain && 'requestedBy' in plain).toBe(false);
  });

  it('a history record is never overwritten by one with the same time and fence', async () => {
    const key = freshKey();
    await store.appendHistory(key, history(T0, 1), 60);

    const again = store.appendHistory(key, { ...history(T0, 1), trigger: 'sweep' }, 60);

    await expect(again).rejects.toBeInstanceOf(ConflictError);
    expect((await store.listHistory(key, 10)).map((h) => h.trigger)).toEqual(['watch']);
  });

  it('getMany reads up to 100 keys as get reads each, leaving out keys never claimed or marked', async () => {
    // Prepare
    const claimed = freshKey();
    const marked = freshKey();
    const absent = freshKey();
    const claim = await store.claim(claimed, 'step-a', T0, LEASE_MS);
    if (!claim.claimed) throw new Error('the claim must win');
    await store.release(claimed, 'step-a', claim.fence, { ...cleanRelease, nextWakeAtMs: T0 + 60_000 });
    await store.markDirty(marked);
    const filler = Array.from({ length: 97 }, () => freshKey());

    // Act
    const records = await store.getMany([claimed, absent, marked, ...filler]);

    // Assess
    expect([...records.keys()].sort()).toEqual([claimed, marked].sort());
    expect(records.get(claimed)).toEqual(await store.get(claimed));
    expect(records.get(marked)).toEqual(await store.get(marked));
    expect(await store.getMany([])).toEqual(new Map());
  });

  it('exporter checkpoints round-trip per cluster and resource', async () => {
    expect(await store.getCheckpoint('eks-cp', 'tidbclusters')).toBeUndefined();

    await store.putCheckpoint('eks-cp', 'tidbclusters', '1001');
    await store.putCheckpoint('eks-cp', 'pods', '2002');
    await store.putCheckpoint('eks-cp', 'tidbclusters', '1005');

    expect(await store.getCheckpoint('eks-cp', 'tidbclusters')).toBe('1005');
    expect(await store.getCheckpoint('eks-cp', 'pods')).toBe('2002');
    expect(await store.getCheckpoint('eks-other', 'pods')).toBeUndefined();
  });

  it('of 10 concurrent claims on one key exactly one wins and the others mark it dirty', async () => {
    const key = freshKey();
    const owners = Array.from({ length: 10 }, (_, i) => `step-${i}`);

    const results = await Promise.all(owners.map((o) => store.claim(key, o, T0, LEASE_MS)));

    const winners = results.flatMap((r, i) => (r.claimed ? [owners[i]] : []));
    expect(winners).toHaveLength(1);
    const losers = results.filter((r) => !r.claimed);
    const lost = { claimed: false, heldBy: winners[0], leaseUntilMs: T0 + LEASE_MS, fence: 1 };
    expect(losers.map(({ armExpiryWake, ...rest }) => rest)).toEqual(Array(9).fill(lost));
    // Exactly one loser arms the lease's expiry wake-up, however the claims interleave.
    expect(losers.filter((l) => !l.claimed && l.armExpiryWake)).toHaveLength(1);
    expect(await store.get(key)).toMatchObject({ fence: 1, dirty: true, lease: { owner: winners[0] } });
  });

  it('forget gives the state item the TTL attribute expiresAt in epoch seconds, what DynamoDB TTL reads', async () => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);

    await store.forget(key, 'step-a', 1, Math.floor(T0 / 1000) + 3600);

    const raw = await local.client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: clusterPk(key) }, sk: { S: 'state' } }, ConsistentRead: true }));
    expect(raw.Item?.['expiresAt']).toEqual({ N: String(Math.floor(T0 / 1000) + 3600) });
  });

  it('a call whose caller signal already fired is a TransientError and writes nothing', async () => {
    const key = freshKey();

    const claim = store.claim(key, 'step-a', T0, LEASE_MS, { signal: AbortSignal.abort() });

    await expect(claim).rejects.toBeInstanceOf(TransientError);
    expect(await store.get(key)).toBeUndefined();
  });

  it.each([
    { name: 'a missing table', act: () => new DynamoStateStore(local.client, { tableName: 'absent' }).get('a/b/c') },
    { name: 'a malformed cluster key', act: () => store.get('only/two') },
  ])('a request that cannot succeed by retrying is a TerminalError: $name', async ({ act }) => {
    await expect(act()).rejects.toBeInstanceOf(TerminalError);
  });
});
