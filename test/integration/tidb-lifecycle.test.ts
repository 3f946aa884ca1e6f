/**
 * Lifecycle flows of the simulated TiDB processes, driven by hand through the simulated API server
 * as an operator would: PD bootstrapping through discovery, TiKV stores registering, a store
 * removed through Offline to Tombstone, leaders drained by an evict-leader scheduler, and a killed
 * process seen by PD as an unhealthy member or a Disconnected then Down store.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { type World, handCluster, startWorld, waitForHealthyPd, waitForUpStores } from './tidb-harness.js';

let world: World | undefined;

afterEach(async () => {
  await world?.stop();
  world = undefined;
});

async function begin(opts: Parameters<typeof startWorld>[0] = {}): Promise<World> {
  world = await startWorld(opts);
  return world;
}

function leaderCount(metrics: string): number {
  return Number(/tikv_raftstore_region_count\{type="leader"\} (\d+)/.exec(metrics)?.[1] ?? NaN);
}

describe('PD bootstrap', () => {
  it('forms one three-member cluster through discovery, the last asker bootstrapping it', async () => {
    // Prepare
    const w = await begin();
    // Act
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd']);
    await waitForHealthyPd(w, 3);
    // Assess
    const members = (await w.pd('/pd/api/v1/members')).json;
    expect(members.members.map((m: { name: string }) => m.name).sort()).toEqual(['basic-pd-0', 'basic-pd-1', 'basic-pd-2']);
    expect(members.members.every((m: { member_id: unknown }) => BigInt(String(m.member_id)) > 2n ** 53n)).toBe(true);
    const leader = (await w.pd('/pd/api/v1/leader')).json;
    expect(members.members.map((m: { name: string }) => m.name)).toContain(leader.name);
  });

  it('crash-loops a PD pod while the discovery service has no ready endpoint, and recovers once it has', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster({ pd: 1 }), ['tidbcluster', 'pd']);
    // Act
    await w.waitFor('a PD restart', async () => (await w.object('Pod', 'basic-pd-0')).json?.status?.containerStatuses?.[0]?.restartCount >= 1, 5 * 60_000);
    const crashed = (await w.object('Pod', 'basic-pd-0')).json.status.containerStatuses[0];
    await w.deploy(handCluster({ pd: 1 }), ['discovery']);
    await waitForHealthyPd(w, 1, 10 * 60_000);
    // Assess
    expect(crashed.lastState.terminated.exitCode).toBe(1);
  });

  it('restarts a PD member on the same PVC as the same member', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd']);
    await waitForHealthyPd(w, 3);
    const before = w.sim.snapshot('demo', 'basic').members.find((m) => m.name === 'basic-pd-1')?.id;
    // Act
    await w.remove('Pod', 'basic-pd-1');
    await w.waitFor('the pod to be recreated', async () => (await w.object('Pod', 'basic-pd-1')).json?.metadata?.deletionTimestamp === undefined);
    await waitForHealthyPd(w, 3);
    // Assess
    expect(w.sim.snapshot('demo', 'basic').members.map((m) => m.name).sort()).toEqual(['basic-pd-0', 'basic-pd-1', 'basic-pd-2']);
    expect(w.sim.snapshot('demo', 'basic').members.find((m) => m.name === 'basic-pd-1')?.id).toBe(before);
  });

  it('stops a member deleted through the API, and lets a fresh PVC join as a new member (failover)', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd']);
    await waitForHealthyPd(w, 3);
    const old = w.sim.snapshot('demo', 'basic').members.find((m) => m.name === 'basic-pd-2')?.id ?? '';
    // Act
    const del = await w.pd(`/pd/api/v1/members/id/${old}`, 'DELETE');
    await w.waitFor('the removed member to exit', async () => (await w.object('Pod', 'basic-pd-2')).json?.status?.containerStatuses?.[0]?.restartCount >= 1, 60_000);
    await w.remove('PersistentVolumeClaim', 'pd-basic-pd-2');
    await w.remove('Pod', 'basic-pd-2');
    await waitForHealthyPd(w, 3);
    // Assess
    expect({ status: del.status, body: del.text ?? del.json }).toEqual(expect.objectContaining({ status: 200 }));
    const fresh = w.sim.snapshot('demo', 'basic').members.find((m) => m.name === 'basic-pd-2')?.id;
    expect(fresh).toEqual(expect.any(String));
    expect(fresh).not.toBe(old);
    expect(w.actions).toContainEqual({ verb: 'pd.deleteMember', args: { id: old } });
  });

  it('crash-loops a PD whose ConfigMap holds invalid TOML', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster({ pd: 1 }, { pdConfig: '[replication\nmax-replicas = ' }), ['tidbcluster', 'discovery', 'pd']);
    // Act
    await w.waitFor('a PD restart', async () => (await w.object('Pod', 'basic-pd-0')).json?.status?.containerStatuses?.[0]?.restartCount >= 2, 5 * 60_000);
    // Assess
    expect(w.sim.snapshot('demo', 'basic').members).toEqual([]);
  });
});

describe('TiKV and TiDB', () => {
  it('registers each TiKV at its peer address, spreads leaders, and serves TiDB /status once storage is up', async () => {
    // Prepare
    const w = await begin();
    // Act
    await w.deploy(handCluster({ tidb: 2 }), ['tidbcluster', 'discovery', 'pd', 'tikv', 'tidb']);
    await waitForUpStores(w, 3);
    await w.waitFor('TiDB /status', async () => (await w.podProxy('basic-tidb-1', 10080, '/status')).status === 200);
    // Assess
    const stores = (await w.pd('/pd/api/v1/stores')).json.stores.map((s: any) => s.store.address).sort();
    expect(stores).toEqual([0, 1, 2].map((i) => `basic-tikv-${i}.basic-tikv-peer.demo.svc:20160`));
    // The first store bootstraps the data; replicas and leaders spread as the others join.
    const balancedAfter = await w.waitFor('balanced leaders', async () => leaderCount((await w.podProxy('basic-tikv-0', 20180, '/metrics')).text) === 30);
    expect(balancedAfter).toBeLessThan(3 * 60_000);
    expect((await w.object('Pod', 'basic-tidb-1')).json.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
  });

  it('keeps TiDB server labels in the process only: through a hang, not through a container restart or a new pod', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd', 'tikv', 'tidb']);
    await w.waitFor('TiDB /status', async () => (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200);
    const labels = async () => (await w.podProxy('basic-tidb-0', 10080, '/labels', 'POST', {})).json;
    const posted = await w.podProxy('basic-tidb-0', 10080, '/labels', 'POST', { zone: 'z1' });
    // Act: a hung process comes back; then the container crashes and restarts; then the pod is recreated.
    w.sim.faults.podDown('demo', 'basic-tidb-0');
    await w.clock.advance(5000);
    w.sim.faults.podUp('demo', 'basic-tidb-0');
    await w.waitFor('TiDB back', async () => (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200);
    const afterHang = await labels();
    await w.podProxy('basic-tidb-0', 10080, '/labels', 'POST', { zone: 'z2' });
    w.sim.faults.breakImage('pingcap/tidb:v7.5.0');
    await w.clock.advance(3000);
    w.sim.faults.fixImage('pingcap/tidb:v7.5.0');
    await w.waitFor('TiDB restarted', async () => (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200);
    const restarts = (await w.object('Pod', 'basic-tidb-0')).json.status.containerStatuses.find((c: any) => c.name === 'tidb').restartCount;
    const afterRestart = await labels();
    await w.podProxy('basic-tidb-0', 10080, '/labels', 'POST', { zone: 'z3' });
    const uid = (await w.object('Pod', 'basic-tidb-0')).json.metadata.uid;
    await w.remove('Pod', 'basic-tidb-0');
    await w.waitFor('a new TiDB pod serving', async () => (await w.object('Pod', 'basic-tidb-0')).json?.metadata?.uid !== uid && (await w.podProxy('basic-tidb-0', 10080, '/status')).status === 200);
    const inNewPod = await labels();
    // Assess
    expect([posted.status, posted.json]).toEqual([200, { zone: 'z1' }]);
    expect(afterHang).toEqual({ zone: 'z1' });
    expect(restarts).toBeGreaterThan(0);
    expect(afterRestart).toEqual({});
    expect(inNewPod).toEqual({});
  });

  it('keeps the store ID when a TiKV pod is recreated on the same PVC, and a fresh PVC is a fresh store', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster({ tikv: 4 }), ['tidbcluster', 'discovery', 'pd', 'tikv']);
    await waitForUpStores(w, 4);
    const idOf = () => w.sim.snapshot('demo', 'basic').stores.find((s) => s.address.startsWith('basic-tikv-3.') && s.state !== 'Tombstone')?.id;
    const first = idOf();
    // Act
    await w.remove('Pod', 'basic-tikv-3');
    await w.waitFor('store back Up', async () => (await w.object('Pod', 'basic-tikv-3')).json?.metadata?.deletionTimestamp === undefined && w.sim.snapshot('demo', 'basic').stores.find((s) => s.id === first)?.state === 'Up');
    const same = idOf();
    await w.pd(`/pd/api/v1/store/${first ?? ''}`, 'DELETE');
    await w.waitFor('Tombstone', () => w.sim.snapshot('demo', 'basic').stores.find((s) => s.id === first)?.state === 'Tombstone', 5 * 60_000);
    await w.remove('PersistentVolumeClaim', 'tikv-basic-tikv-3');
    await w.remove('Pod', 'basic-tikv-3');
    await waitForUpStores(w, 4);
    // Assess
    expect(same).toBe(first);
    expect(idOf()).not.toBe(first);
    expect(w.sim.invariants().find((i) => i.name === 'pvc-deleted-only-after-tombstone')?.violations).toEqual([]);
  });
});

describe('store removal and leader eviction', () => {
  it('takes a deleted store Offline, then Tombstone once its regions have moved', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster({ tikv: 4 }), ['tidbcluster', 'discovery', 'pd', 'tikv']);
    await waitForUpStores(w, 4);
    await w.clock.advance(120_000);
    const id = w.sim.snapshot('demo', 'basic').stores[3]?.id ?? '';
    // Act
    const del = await w.pd(`/pd/api/v1/store/${id}`, 'DELETE');
    const states: string[] = [];
    await w.waitFor('Tombstone', async () => {
      const res = await w.pd(`/pd/api/v1/store/${id}`);
      states.push(res.json.store.state_name);
      return res.json.store.state_name === 'Tombstone';
    });
    // Assess
    expect({ status: del.status, body: del.text ?? del.json }).toEqual(expect.objectContaining({ status: 200 }));
    expect(states[0]).toBe('Offline');
    expect(states.length).toBeGreaterThan(20);
    expect((await w.pd('/pd/api/v1/stores?state=2')).json.stores.map((s: any) => String(s.store.id))).toEqual([id]);
    // As TiKV: a tombstoned store's process exits.
    await w.waitFor('the tombstoned TiKV to exit', async () => (await w.object('Pod', 'basic-tikv-3')).json.status.containerStatuses[0].restartCount >= 1, 60_000);
    expect(w.actions).toContainEqual({ verb: 'pd.deleteStore', args: { id } });
  });

  it('drains the leaders of a store under an evict-leader scheduler, as its /metrics shows', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd', 'tikv']);
    await waitForUpStores(w, 3);
    const store = (await w.pd('/pd/api/v1/stores')).json.stores.find((s: any) => s.store.address.startsWith('basic-tikv-1.'));
    // Act
    const add = await w.pd('/pd/api/v1/schedulers', 'POST', { name: 'evict-leader-scheduler', store_id: Number(store.store.id) });
    const drainMs = await w.waitFor('no leaders', async () => leaderCount((await w.podProxy('basic-tikv-1', 20180, '/metrics')).text) === 0, 60_000);
    // Assess
    expect(add.status).toBe(200);
    // Leaders drain in leaderEvictionMs (10 s); the gauge shows it at its next flush (≤ 10 s later).
    expect(drainMs).toBeLessThanOrEqual(22_000);
    expect((await w.pd('/pd/api/v1/scheduler-config/evict-leader-scheduler/list')).json['store-id-ranges']).toHaveProperty(String(store.store.id));
  });
});

describe('the TiKV leader gauge', () => {
  // As TiKV: `tikv_raftstore_region_count` is set by the region collector's timer every 10 s
  // (components/raftstore/src/coprocessor/region_info_accessor.rs, RegionCollector::on_timeout,
  // METRICS_FLUSH_INTERVAL = 10_000), not at each leader change.
  it('steps at most once every 10 s while PD moves leaders every second', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd', 'tikv']);
    await waitForUpStores(w, 3);
    await w.waitFor('balanced leaders', async () => leaderCount((await w.podProxy('basic-tikv-1', 20180, '/metrics')).text) === 30);
    const store = (await w.pd('/pd/api/v1/stores')).json.stores.find((s: any) => s.store.address.startsWith('basic-tikv-1.'));
    const live = (): number => w.sim.snapshot('demo', 'basic').stores.find((s) => s.id === String(store.store.id))?.leaderCount ?? NaN;
    // Act
    await w.pd('/pd/api/v1/schedulers', 'POST', { name: 'evict-leader-scheduler', store_id: Number(store.store.id) });
    const gauge: number[] = [];
    const pd: number[] = [];
    for (let s = 0; s < 25; s++) {
      gauge.push(leaderCount((await w.podProxy('basic-tikv-1', 20180, '/metrics')).text));
      pd.push(live());
      await w.clock.advance(1000);
    }
    // Assess
    const steps = (xs: number[]): number[] => xs.flatMap((x, i) => (i > 0 && x !== xs[i - 1] ? [i] : []));
    expect(steps(pd).length).toBeGreaterThanOrEqual(8);
    expect(steps(gauge).length).toBeLessThanOrEqual(3);
    expect(steps(gauge).every((at, i, all) => i === 0 || at - (all[i - 1] ?? 0) === 10)).toBe(true);
    expect(gauge[gauge.length - 1]).toBe(0);
  });
});

describe('a killed process', () => {
  it('makes PD report its member unhealthy, and the rest keep quorum', async () => {
    // Prepare
    const w = await begin();
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd']);
    await waitForHealthyPd(w, 3);
    // Act
    w.sim.faults.podDown('demo', 'basic-pd-1');
    await w.clock.advance(5000);
    const health = (await w.pd('/pd/api/v1/health')).json;
    // Assess
    expect(health.find((m: any) => m.name === 'basic-pd-1').health).toBe(false);
    expect(health.filter((m: any) => m.health)).toHaveLength(2);
  });

  it('makes its store Disconnected, then Down after max-store-down-time', async () => {
    // Prepare
    const w = await begin({ knobs: { maxStoreDownTimeMs: 5 * 60_000 } });
    await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd', 'tikv']);
    await waitForUpStores(w, 3);
    const stateOf = async () => (await w.pd('/pd/api/v1/stores')).json.stores.find((s: any) => s.store.address.startsWith('basic-tikv-2.')).store.state_name as string;
    // Act
    w.sim.faults.podDown('demo', 'basic-tikv-2');
    const disconnectedAfter = await w.waitFor('Disconnected', async () => (await stateOf()) === 'Disconnected', 60_000);
    const downAfter = await w.waitFor('Down', async () => (await stateOf()) === 'Down', 10 * 60_000, 10_000);
    // Assess
    expect(disconnectedAfter).toBeGreaterThan(10_000);
    expect(disconnectedAfter).toBeLessThanOrEqual(31_000);
    expect(downAfter).toBeGreaterThanOrEqual(4 * 60_000);
  });
});

describe('determinism', () => {
  it('produces the same member IDs, leader and stores for the same seed', async () => {
    // Prepare
    const run = async () => {
      const w = await startWorld({ seed: 42 });
      await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd', 'tikv']);
      await waitForUpStores(w, 3);
      await w.clock.advance(60_000);
      const snapshot = w.sim.snapshot('demo', 'basic');
      await w.stop();
      return snapshot;
    };
    // Act
    const a = await run();
    const b = await run();
    // Assess
    expect(b).toEqual(a);
  });
});
