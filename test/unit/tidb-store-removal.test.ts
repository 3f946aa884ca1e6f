/**
 * Store removal in the simulated PD as real PD does it: a removing store drains at a rate, so its
 * removal takes as long as its region count says; TiFlash stores hold learner replicas of the tables
 * with TiFlash replicas and stay Offline while no other TiFlash store can take them; and
 * `DELETE /store/{id}` checks the stores left as PD v7.1–v8.5's `checkReplicaBeforeOfflineStore`.
 */
import { describe, expect, it } from '@jest/globals';
import { setTiflashReplicas } from '../../lib/sim/tidb/verbs.js';
import { drainMs, startCluster } from './tidb-pd-harness.js';

describe('a removing store drains at the drain rate', () => {
  it.each([
    { name: 'the default 90 replicas at 180 a minute: 30 s', regionsPerStore: 90, storeDrainPerMinute: 180 },
    { name: '900 replicas at 180 a minute: 5 minutes', regionsPerStore: 900, storeDrainPerMinute: 180 },
    { name: '600 replicas at 20 a minute: half an hour', regionsPerStore: 600, storeDrainPerMinute: 20 },
  ])('$name', async ({ regionsPerStore, storeDrainPerMinute }) => {
    // Prepare
    const { pd, stores, clock, knobs } = await startCluster({ stores: 4, knobs: { regionsPerStore, storeDrainPerMinute } });
    const store = stores[0];
    if (!store) throw new Error('no store');
    const held = pd.book.regionCount(store.id);
    const expectedMs = drainMs(knobs, held);
    // Act
    pd.deleteStore(store.id);
    await clock.advance(Math.floor(expectedMs * 0.9));
    const before = { state: pd.stores.stateName(store), regions: pd.book.regionCount(store.id) };
    await clock.advance(Math.ceil(expectedMs * 0.1) + 3 * knobs.pdTickMs);
    // Assess
    expect(held).toBe(regionsPerStore);
    expect(before.state).toBe('Offline');
    expect(before.regions).toBeGreaterThan(0);
    expect(pd.stores.stateName(store)).toBe('Tombstone');
  });
});

describe('TiFlash learner replicas', () => {
  const placed = async (tiflashReplicas: number, tiflash: number) => {
    const c = await startCluster({ stores: 3, tiflash, knobs: { tiflashReplicas } });
    // Placement adds learners at the drain rate: 90 regions × the replica count.
    await c.clock.advance(drainMs(c.knobs, 90 * tiflashReplicas) + 60_000);
    return c;
  };

  it('places the tables\u2019 TiFlash replicas as learners on TiFlash stores, never voting', async () => {
    // Prepare, Act
    const { pd, tiflash } = await placed(2, 3);
    // Assess
    const regions = pd.book.all();
    expect(regions.every((r) => pd.book.learners(r).length === 2)).toBe(true);
    expect(regions.every((r) => r.peers.every((p) => !tiflash.some((t) => t.id === p)))).toBe(true);
    expect(tiflash.map((t) => pd.book.regionCount(t.id)).reduce((a, b) => a + b, 0)).toBe(regions.length * 2);
    expect(tiflash.every((t) => pd.book.leaderCount(t.id) === 0)).toBe(true);
  });

  it('holds no learners while no table has a TiFlash replica, so a removed TiFlash store is buried at once', async () => {
    // Prepare
    const { pd, tiflash, clock, knobs } = await placed(0, 1);
    const store = tiflash[0];
    if (!store) throw new Error('no store');
    // Act
    pd.deleteStore(store.id);
    await clock.advance(2 * knobs.pdTickMs);
    // Assess
    expect(pd.stores.stateName(store)).toBe('Tombstone');
  });

  it('drains a TiFlash store onto the other TiFlash stores while enough of them remain', async () => {
    // Prepare
    const { pd, tiflash, clock, knobs } = await placed(2, 3);
    const store = tiflash[2];
    if (!store) throw new Error('no store');
    const held = pd.book.regionCount(store.id);
    // Act
    pd.deleteStore(store.id);
    await clock.advance(Math.floor(drainMs(knobs, held) * 0.9));
    const before = pd.stores.stateName(store);
    await clock.advance(drainMs(knobs, held) + 3 * knobs.pdTickMs);
    // Assess
    expect(held).toBeGreaterThan(0);
    expect(before).toBe('Offline');
    expect(pd.stores.stateName(store)).toBe('Tombstone');
    expect(pd.book.all().every((r) => pd.book.learners(r).length === 2)).toBe(true);
  });

  it.each([
    { name: 'the replica count is lowered', lift: 'lower' as const },
    { name: 'a TiFlash store is added', lift: 'add' as const },
  ])('keeps a TiFlash store Offline while fewer TiFlash stores would remain than a table\u2019s replica count, until $name', async ({ lift }) => {
    // Prepare
    const { pd, tiflash, clock, knobs, addStore, keepAlive } = await placed(2, 2);
    const store = tiflash[1];
    if (!store) throw new Error('no store');
    // Act
    const deleted = pd.deleteStore(store.id);
    await clock.advance(30 * 60_000);
    const blocked = { state: pd.stores.stateName(store), regions: pd.book.regionCount(store.id) };
    if (lift === 'lower') pd.tiflashReplicas = 1;
    else keepAlive(addStore(5, 'tiflash'));
    await clock.advance(drainMs(knobs, blocked.regions) + 5 * knobs.pdTickMs);
    // Assess
    expect('ok' in deleted).toBe(true);
    expect(blocked).toEqual({ state: 'Offline', regions: pd.book.all().length });
    expect(pd.stores.stateName(store)).toBe('Tombstone');
  });
});

describe('ALTER TABLE … SET TIFLASH REPLICA (the world verb)', () => {
  // As TiDB's checkTiFlashReplicaCount (pkg/ddl): no more replicas than TiFlash stores.
  it.each([
    { name: 'as many replicas as TiFlash stores is accepted', count: 2, error: undefined },
    { name: 'more replicas than TiFlash stores is refused', count: 3, error: 'the tiflash replica count: 3 should be less than the total tiflash server count: 2' },
  ])('$name', async ({ count, error }) => {
    // Prepare
    const { pd } = await startCluster({ stores: 3, tiflash: 2 });
    // Act
    const act = (): void => setTiflashReplicas(pd, count);
    // Assess
    if (error === undefined) expect(act).not.toThrow();
    else expect(act).toThrow(error);
    expect(pd.tiflashReplicas).toBe(error === undefined ? count : 0);
  });
});

describe('DELETE /store/{id} checks the stores left as PD does', () => {
  // PD v7.1–v8.5 server/cluster/cluster.go checkReplicaBeforeOfflineStore: getUpStores counts every
  // store whose stored state is Up (IsUp: Preparing or Serving — TiFlash, Disconnected and Down too)
  // for a store of any engine; ErrNoStoreForRegionLeader when every store left evicts leaders.
  it.each([
    { name: 'a TiFlash store counts towards max-replicas for a TiKV store', tikv: 3, tiflash: 1, down: 0, evict: 0, target: 'tikv' as const, status: 200, code: '' },
    { name: 'a Down store still counts: its stored state is Up', tikv: 4, tiflash: 0, down: 1, evict: 0, target: 'tikv' as const, status: 200, code: '' },
    { name: 'the check applies to a TiFlash store', tikv: 2, tiflash: 1, down: 0, evict: 0, target: 'tiflash' as const, status: 400, code: '[PD:core:ErrStoresNotEnough]can not remove store' },
    { name: 'too few Up stores for a TiKV store', tikv: 3, tiflash: 0, down: 0, evict: 0, target: 'tikv' as const, status: 400, code: 'the number of up stores would be 2 while need 3' },
    { name: 'every store left evicting leaders', tikv: 4, tiflash: 0, down: 0, evict: 3, target: 'tikv' as const, status: 400, code: '[PD:core:ErrNoStoreForRegionLeader]can not remove store' },
    { name: 'one store left not evicting leaders', tikv: 4, tiflash: 0, down: 0, evict: 2, target: 'tikv' as const, status: 200, code: '' },
  ])('$name', async ({ tikv, tiflash: flash, down, evict, target, status, code }) => {
    // Prepare
    const { pd, stores, tiflash, call, clock, knobs, stopStore } = await startCluster({ stores: tikv, tiflash: flash, knobs: { maxStoreDownTimeMs: 60_000 } });
    const victim = target === 'tikv' ? stores[0] : tiflash[0];
    if (!victim) throw new Error('no store');
    for (const s of stores.slice(stores.length - down)) stopStore(s);
    await clock.advance(down > 0 ? 2 * 60_000 : 0);
    for (const s of stores.slice(1, 1 + evict)) pd.addEvictLeader(s.id);
    // Act
    const res = call('DELETE', `/pd/api/v1/store/${victim.id}`);
    // Assess
    expect(res.status).toBe(status);
    expect(res.body).toContain(code);
    if (down > 0) expect(stores.slice(stores.length - down).map((s) => pd.stores.stateName(s))).toEqual(['Down']);
    expect(pd.stores.get(victim.id)?.meta).toBe(status === 200 ? 'Offline' : 'Up');
    expect(knobs.maxStoreDownTimeMs).toBe(60_000);
  });
});
