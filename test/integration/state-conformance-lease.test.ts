/**
 * The State port's lease rules of issue 8, on both local DynamoDB servers (dynalite and DynamoDB
 * Local): one lease-expiry wake-up elected per held lease, deadlines kept in the state item and
 * written in the same request as their fence check, and the lease check before unprotected calls.
 */

import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ConflictError } from '../../lib/platform/errors.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { clusterPk } from '../../lib/state/keys.js';
import type { Deadline, StateStore } from '../../lib/state/port.js';
import { ensureTable } from '../../lib/state/table.js';
import { DYNAMO_BACKENDS, failoverDeadline, type LocalDynamo } from '../support/dynamo.js';

const TABLE = 'tidb-reconciler-state-lease';
const T0 = Date.UTC(2026, 0, 1);
const LEASE_MS = 30_000;

const backends = DYNAMO_BACKENDS;

let keySeq = 0;
const freshKey = (): string => `eks-test/tidb/lease-${++keySeq}`;

const deadline = (member: string, over: Partial<Deadline> = {}): Deadline => failoverDeadline(member, T0, over);

const cleanRelease = { failures: 0, nextWakeAtMs: undefined, lastStep: { atMs: T0, outcome: 'complete' as const } };

describe.each(backends)('State port lease rules on $name', ({ start }) => {
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

  it('the first trigger per held lease is elected to arm its expiry wake-up, again for each new lease', async () => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);

    const first = await store.claim(key, 'trigger-1', T0 + 1000, LEASE_MS);
    const second = await store.claim(key, 'trigger-2', T0 + 2000, LEASE_MS);
    await store.claim(key, 'step-b', T0 + LEASE_MS, LEASE_MS);
    const third = await store.claim(key, 'trigger-3', T0 + LEASE_MS + 1000, LEASE_MS);

    expect(first).toMatchObject({ claimed: false, fence: 1, armExpiryWake: true });
    expect(second).toMatchObject({ claimed: false, fence: 1, armExpiryWake: false });
    expect(third).toMatchObject({ claimed: false, fence: 2, armExpiryWake: true, leaseUntilMs: T0 + 2 * LEASE_MS });
  });

  it('a claim returns the deadlines written under the previous fence, kept in the state item', async () => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    await store.putDeadline(key, deadline('tc-tikv-1'), 1);
    await store.release(key, 'step-a', 1, cleanRelease);

    const res = await store.claim(key, 'step-b', T0 + 1000, LEASE_MS);

    expect(res).toMatchObject({ claimed: true, fence: 2, deadlines: [{ ...deadline('tc-tikv-1'), fence: 1 }] });
    const raw = await local.client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: clusterPk(key) }, sk: { S: 'state' } } }));
    expect(Object.keys(raw.Item?.['deadlines']?.M ?? {})).toEqual(['tikv#tc-tikv-1#failover']);
  });

  it('a deadline write by a step whose expired lease was just taken over is refused in the same request', async () => {
    // Prepare: the old step's lease expired and a new step claimed and wrote its own deadline
    const key = freshKey();
    await store.claim(key, 'old', T0, LEASE_MS);
    await store.claim(key, 'new', T0 + LEASE_MS, LEASE_MS);
    await store.putDeadline(key, deadline('tc-tikv-1', { deadlineAtMs: T0 + 5 }), 2);

    // Act: the old step, still running, writes and deletes under fence 1
    const put = store.putDeadline(key, deadline('tc-tikv-2'), 1);
    const del = store.deleteDeadline(key, { component: 'tikv', member: 'tc-tikv-1', kind: 'failover' }, 1);

    // Assess: both refused; only the new step's deadline exists
    await expect(put).rejects.toBeInstanceOf(ConflictError);
    await expect(del).rejects.toBeInstanceOf(ConflictError);
    expect(await store.listDeadlines(key)).toEqual([{ ...deadline('tc-tikv-1', { deadlineAtMs: T0 + 5 }), fence: 2 }]);
  });

  it.each([
    { name: 'the live holder passes', owner: 'step-a', fence: 1, atMs: T0 + LEASE_MS - 1, then: undefined, ok: true },
    { name: 'an expired lease is refused', owner: 'step-a', fence: 1, atMs: T0 + LEASE_MS, then: undefined, ok: false },
    { name: 'another owner is refused', owner: 'step-x', fence: 1, atMs: T0 + 1, then: undefined, ok: false },
    { name: 'a stale fence is refused', owner: 'step-a', fence: 0, atMs: T0 + 1, then: undefined, ok: false },
    { name: 'a released lease is refused', owner: 'step-a', fence: 1, atMs: T0 + 1, then: 'release', ok: false },
    { name: 'a taken-over lease is refused', owner: 'step-a', fence: 1, atMs: T0 + 1, then: 'takeover', ok: false },
  ] as const)('a lease check before an unprotected call: $name', async (row) => {
    const key = freshKey();
    await store.claim(key, 'step-a', T0, LEASE_MS);
    if (row.then === 'release') await store.release(key, 'step-a', 1, cleanRelease);
    if (row.then === 'takeover') await store.claim(key, 'step-b', T0 + LEASE_MS, LEASE_MS);
    const before = await store.get(key);

    const check = store.assertLease(key, row.owner, row.fence, row.atMs);

    if (row.ok) await expect(check).resolves.toBeUndefined();
    else await expect(check).rejects.toBeInstanceOf(ConflictError);
    expect(await store.get(key)).toEqual(before);
  });
});
