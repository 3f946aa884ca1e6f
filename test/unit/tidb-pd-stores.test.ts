/**
 * PD's store state machine and region scheduling in the simulator: heartbeats, Disconnected and
 * Down, Offline → Tombstone at the removal rate and only with enough Up stores, evict-leader
 * draining, balancing onto new stores, replica repair, and store identity across restarts.
 */
import { describe, expect, it } from '@jest/globals';
import { drainMs, startCluster } from './tidb-pd-harness.js';

describe('store state machine', () => {
  it('reads Disconnected 20 s after the last heartbeat and Down after max-store-down-time', async () => {
    // Prepare
    const { pd, stores, clock, knobs, stopStore } = await startCluster({ stores: 3, knobs: { maxStoreDownTimeMs: 5 * 60_000 } });
    const store = stores[0];
    if (!store) throw new Error('no store');
    // Act
    stopStore(store);
    const states: string[] = [];
    for (const ms of [15_000, 10_000, 5 * 60_000]) {
      await clock.advance(ms);
      states.push(pd.stores.stateName(store));
    }
    // Assess
    expect(states).toEqual(['Up', 'Disconnected', 'Down']);
    expect(knobs.storeDisconnectMs).toBe(20_000);
  });

  it('moves raft leaders off a dead store once the raft election timeout has passed', async () => {
    // Prepare
    const { pd, stores, clock, knobs, stopStore } = await startCluster({ stores: 3 });
    const store = stores[0];
    if (!store) throw new Error('no store');
    // Act
    stopStore(store);
    await clock.advance(knobs.raftElectionMs / 2);
    const before = pd.book.leaderCount(store.id);
    await clock.advance(knobs.raftElectionMs);
    // Assess
    expect(before).toBeGreaterThan(0);
    expect(pd.book.leaderCount(store.id)).toBe(0);
  });

  it('turns an Offline store Tombstone only after its regions moved, taking storeRemovalMs', async () => {
    // Prepare
    const { pd, stores, clock, knobs } = await startCluster({ stores: 4 });
    const store = stores[0];
    if (!store) throw new Error('no store');
    const peers = pd.book.regionCount(store.id);
    // Act
    pd.deleteStore(store.id);
    await clock.advance(drainMs(knobs, knobs.regionsPerStore) / 2);
    const halfway = { state: pd.stores.stateName(store), regions: pd.book.regionCount(store.id) };
    await clock.advance(drainMs(knobs, knobs.regionsPerStore) / 2 + 2 * knobs.pdTickMs);
    // Assess
    expect(halfway.state).toBe('Offline');
    expect(halfway.regions).toBeGreaterThan(0);
    expect(halfway.regions).toBeLessThan(peers);
    expect(pd.stores.stateName(store)).toBe('Tombstone');
    expect(stores.slice(1).map((s) => pd.book.regionCount(s.id)).reduce((a, b) => a + b, 0)).toBe(pd.book.all().length * 3);
  });

  it('keeps a store Offline while too few other stores are Up to take its replicas', async () => {
    // Prepare
    const { pd, stores, clock, knobs, stopStore } = await startCluster({ stores: 4 });
    const [leaving, , , dead] = stores;
    if (!leaving || !dead) throw new Error('no store');
    stopStore(dead);
    await clock.advance(knobs.storeDisconnectMs + knobs.pdTickMs);
    // Act
    const deleted = pd.deleteStore(leaving.id);
    await clock.advance(10 * drainMs(knobs, knobs.regionsPerStore));
    // Assess
    expect('ok' in deleted).toBe(true);
    expect(pd.stores.stateName(leaving)).toBe('Offline');
    expect(pd.book.regionCount(leaving.id)).toBeGreaterThan(0);
  });

  it('cancels a removal with state Up, and records the call as an action', async () => {
    // Prepare
    const { pd, stores, call, actions } = await startCluster({ stores: 4 });
    const id = stores[0]?.id ?? '';
    pd.deleteStore(id);
    // Act
    const res = call('POST', `/pd/api/v1/store/${id}/state?state=Up`);
    // Assess
    expect(res.status).toBe(200);
    expect(pd.stores.get(id)?.meta).toBe('Up');
    expect(actions).toEqual([expect.objectContaining({ verb: 'pd.setStoreState', args: { id, state: 'Up' } })]);
  });

  it('gives a restarted store its ID back, refuses a tombstoned one and a second store at a live address', async () => {
    // Prepare
    const { pd, stores, clock, knobs, stopStore } = await startCluster({ stores: 4 });
    const [first, , , last] = stores;
    if (!first || !last) throw new Error('no store');
    const info = { podName: 'x', statusAddress: 'x:20180', version: '7.5.0', engine: 'tikv' as const, labels: [], capacityBytes: 1 };
    pd.deleteStore(last.id);
    await clock.advance(drainMs(knobs, knobs.regionsPerStore) + 2 * knobs.pdTickMs);
    stopStore(first);
    // Act
    const again = pd.registerStore({ ...info, dataUid: first.dataUid, address: first.address });
    const tombstone = pd.registerStore({ ...info, dataUid: last.dataUid, address: last.address });
    const clash = pd.registerStore({ ...info, dataUid: 'pvc-new', address: first.address });
    const reuse = pd.registerStore({ ...info, dataUid: 'pvc-fresh', address: last.address });
    // Assess
    expect('ok' in again && again.ok.id).toBe(first.id);
    expect('refused' in tombstone && tombstone.refused.message).toContain('has been removed');
    expect('refused' in clash && clash.refused.message).toContain('duplicated store address');
    expect('ok' in reuse && reuse.ok.id).not.toBe(last.id);
  });
});

describe('region scheduling', () => {
  it('drains leaders from a store under the evict-leader scheduler within leaderEvictionMs, and they return after', async () => {
    // Prepare
    const { pd, stores, clock, knobs } = await startCluster({ stores: 3 });
    const store = stores[1];
    if (!store) throw new Error('no store');
    const start = pd.book.leaderCount(store.id);
    // Act
    pd.addEvictLeader(store.id);
    await clock.advance(knobs.leaderEvictionMs / 2);
    const halfway = pd.book.leaderCount(store.id);
    await clock.advance(knobs.leaderEvictionMs / 2 + knobs.pdTickMs);
    const drained = pd.book.leaderCount(store.id);
    pd.removeEvictLeader(store.id);
    await clock.advance(knobs.leaderEvictionMs + knobs.pdTickMs);
    // Assess
    expect(halfway).toBeGreaterThan(0);
    expect(halfway).toBeLessThan(start);
    expect(drained).toBe(0);
    expect(pd.book.leaderCount(store.id)).toBeGreaterThanOrEqual(start - 1);
  });

  it('cannot move leaders away from the only store', async () => {
    // Prepare
    const { pd, stores, clock, knobs } = await startCluster({ stores: 1 });
    const store = stores[0];
    if (!store) throw new Error('no store');
    // Act
    pd.addEvictLeader(store.id);
    await clock.advance(10 * knobs.leaderEvictionMs);
    // Assess
    expect(pd.book.leaderCount(store.id)).toBe(pd.book.all().length);
  });

  it('moves regions and leaders onto a new store until the stores are balanced', async () => {
    // Prepare
    const { pd, clock, knobs, addStore, keepAlive } = await startCluster({ stores: 3 });
    // Act
    const added = addStore(3);
    keepAlive(added);
    await clock.advance(3 * drainMs(knobs, knobs.regionsPerStore));
    // Assess
    const total = pd.book.all().length * 3;
    expect(pd.book.regionCount(added.id)).toBeGreaterThanOrEqual(Math.floor(total / 4) - 1);
    expect(pd.book.leaderCount(added.id)).toBeGreaterThanOrEqual(Math.floor(pd.book.all().length / 4) - 1);
  });

  it('replaces the replicas of a Down store on the remaining Up stores', async () => {
    // Prepare
    const { pd, stores, clock, knobs, stopStore } = await startCluster({ stores: 4, knobs: { maxStoreDownTimeMs: 60_000 } });
    const store = stores[0];
    if (!store) throw new Error('no store');
    stopStore(store);
    // Act
    await clock.advance(60_000 + 3 * drainMs(knobs, knobs.regionsPerStore));
    // Assess
    expect(pd.stores.stateName(store)).toBe('Down');
    expect(pd.book.regionCount(store.id)).toBe(0);
    expect(pd.book.all().every((r) => r.peers.length === 3)).toBe(true);
  });

  it('loses a region when the volumes of all its replicas are deleted', async () => {
    // Prepare
    const { pd, stores, clock, knobs } = await startCluster({ stores: 3 });
    const lost: string[] = [];
    pd.onRegionLost((r) => lost.push(r.id));
    // Act
    for (const s of stores) pd.stores.dataDeleted(s.dataUid);
    await clock.advance(knobs.pdTickMs);
    // Assess
    expect(lost.length).toBe(90);
    expect(pd.book.all()).toHaveLength(0);
  });
});
