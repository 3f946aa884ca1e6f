/**
 * TiFlash, TiCDC, Pump and discovery as TiDB Operator sees them through the API server's proxy,
 * plus the fault injectors and the world verbs the scenario runner uses.
 */
import { describe, expect, it } from '@jest/globals';
import { handCluster, startWorld, waitForHealthyPd, waitForUpStores, worldPerTest } from './tidb-harness.js';

const { begin, track } = worldPerTest();

const b64 = (s: string) => Buffer.from(`${s}\n`).toString('base64');

describe('TiFlash', () => {
  it('registers a store labelled engine=tiflash and reports Running on 20292', async () => {
    // Prepare
    const w = await begin({ tidb: 0, tiflash: 1 }, ['tikv', 'tiflash']);
    // Act
    await waitForUpStores(w, 4);
    const status = await w.podProxy('basic-tiflash-0', 20292, '/tiflash/store-status');
    // Assess
    expect(status.text).toBe('Running');
    const stores = (await w.pd('/pd/api/v1/stores')).json.stores;
    const tiflash = stores.find((s: any) => s.store.address.startsWith('basic-tiflash-0.'));
    expect(tiflash.store.address).toBe('basic-tiflash-0.basic-tiflash-peer.demo.svc:3930');
    expect(tiflash.store.labels).toEqual([{ key: 'engine', value: 'tiflash' }]);
  });
});

describe('TiCDC', () => {
  it('elects one owner, moves ownership on resign, and drains a capture to zero tables', async () => {
    // Prepare
    const w = await begin({ tidb: 0, ticdc: 2 }, ['tikv', 'ticdc']);
    await w.waitFor('two captures', async () => (await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures')).json?.length === 2);
    const captures = (await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures')).json as { id: string; is_owner: boolean; address: string }[];
    const owner = captures.find((c) => c.is_owner);
    const other = captures.find((c) => !c.is_owner);
    // Act
    const drainOwner = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures/drain', 'PUT', { capture_id: owner?.id });
    const first = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures/drain', 'PUT', { capture_id: other?.id });
    await w.clock.advance(5000);
    const halfway = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures/drain', 'PUT', { capture_id: other?.id });
    await w.clock.advance(6000);
    const done = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures/drain', 'PUT', { capture_id: other?.id });
    const resign = await w.podProxy('basic-ticdc-1', 8301, '/api/v1/owner/resign', 'POST');
    const after = (await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures')).json as { id: string; is_owner: boolean }[];
    // Assess
    expect(captures.filter((c) => c.is_owner)).toHaveLength(1);
    expect(drainOwner.status).toBe(400);
    expect([first.status, Number(first.json.current_table_count)]).toEqual([202, 12]);
    expect(Number(halfway.json.current_table_count)).toBeGreaterThan(0);
    expect(Number(halfway.json.current_table_count)).toBeLessThan(12);
    expect(Number(done.json.current_table_count)).toBe(0);
    expect(resign.status).toBe(202);
    expect(after.find((c) => c.is_owner)?.id).toBe(other?.id);
    expect(w.actions.map((a) => a.verb)).toEqual(['ticdc.drainCapture', 'ticdc.drainCapture', 'ticdc.drainCapture', 'ticdc.drainCapture', 'ticdc.resignOwner']);
  });
});

describe('TiCDC with one capture', () => {
  it('a resigning lone owner leaves TiCDC without an owner until its next campaign, then owns again; drain is refused', async () => {
    // Prepare
    const w = await begin({ tidb: 0, ticdc: 1 }, ['tikv', 'ticdc']);
    await w.waitFor('one capture', async () => (await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures')).json?.length === 1);
    const before = (await w.podProxy('basic-ticdc-0', 8301, '/status')).json as { id: string; is_owner: boolean };
    // Act
    const resign = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/owner/resign', 'POST');
    const between = (await w.podProxy('basic-ticdc-0', 8301, '/status')).json as { id: string; is_owner: boolean };
    const health = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/health');
    const again = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/owner/resign', 'POST');
    const drain = await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures/drain', 'PUT', { capture_id: before.id });
    await w.clock.advance(1_000);
    const after = (await w.podProxy('basic-ticdc-0', 8301, '/status')).json as { id: string; is_owner: boolean };
    // Assess
    expect(before.is_owner).toBe(true);
    expect(resign.status).toBe(202);
    expect([between.id, between.is_owner]).toEqual([before.id, false]);
    expect(health.status).toBe(500);
    expect(again.status).toBe(500); // no owner to forward the resignation to
    expect(drain.status).toBe(400);
    expect([after.id, after.is_owner]).toEqual([before.id, true]);
  });
});

describe('Pump', () => {
  it('goes closing then offline after the offline call, and stops serving', async () => {
    // Prepare
    const w = await begin({ tidb: 0, pump: 2 }, ['tikv', 'pump']);
    await w.waitFor('two pumps', async () => Object.keys((await w.podProxy('basic-pump-0', 8250, '/status')).json?.status ?? {}).length === 2);
    // Act
    const close = await w.podProxy('basic-pump-1', 8250, '/state/basic-pump-1:8250/close', 'PUT');
    const closing = (await w.podProxy('basic-pump-0', 8250, '/status')).json.status['basic-pump-1:8250'].state;
    await w.clock.advance(6000);
    const offline = (await w.podProxy('basic-pump-0', 8250, '/status')).json.status['basic-pump-1:8250'].state;
    // Assess
    expect(close.status).toBe(200);
    expect([closing, offline]).toEqual(['closing', 'offline']);
    expect((await w.podProxy('basic-pump-1', 8250, '/status')).status).toBe(503);
    expect((await w.object('Pod', 'basic-pump-1')).json.status.phase).toBe('Running');
    expect(w.actions).toContainEqual({ verb: 'pump.offline', args: { nodeId: 'basic-pump-1:8250' } });
  });
});

describe('discovery', () => {
  it('answers --initial-cluster to the last of the desired first askers, and forgets askers when the TidbCluster changes', async () => {
    // Prepare
    const w = track(await startWorld());
    const c = handCluster({ pd: 3 });
    await w.deploy(c, ['tidbcluster', 'discovery']);
    await w.waitFor('discovery', async () => (await w.api('GET', `/api/v1/namespaces/demo/services/basic-discovery:10261/proxy/verify/${b64('x')}`)).status === 200);
    const ask = (pod: string) => w.api('GET', `/api/v1/namespaces/demo/services/basic-discovery:10261/proxy/new/${b64(`${pod}.basic-pd-peer.demo.svc:2380`)}`);
    // Act
    const a = await ask('basic-pd-0');
    const b = await ask('basic-pd-1');
    await w.edit('TidbCluster', 'basic', (tc) => (tc.metadata.annotations = { touched: 'yes' }));
    const c1 = await ask('basic-pd-2');
    const c2 = await ask('basic-pd-0');
    const c3 = await ask('basic-pd-1');
    // Assess
    expect([a.status, b.status, c1.status, c2.status]).toEqual([500, 500, 500, 500]);
    expect(c3.status).toBe(200);
    expect(c3.text).toBe('--initial-cluster=basic-pd-1=http://basic-pd-1.basic-pd-peer.demo.svc:2380');
  });

  it('answers --join with the members’ client URLs once PD runs', async () => {
    // Prepare
    const w = await begin({ tidb: 0, tikv: 0 }, []);
    // Act
    const res = await w.api('GET', `/api/v1/namespaces/demo/services/basic-discovery:10261/proxy/new/${b64('basic-pd-3.basic-pd-peer.demo.svc:2380')}`);
    // Assess
    expect(res.status).toBe(200);
    expect(res.text.startsWith('--join=')).toBe(true);
    expect(res.text.slice('--join='.length).split(',').sort()).toEqual([0, 1, 2].map((i) => `http://basic-pd-${i}.basic-pd-peer.demo.svc:2379`));
  });
});

describe('faults and world verbs', () => {
  it('fails every PD call while the PD API is down, then serves again', async () => {
    // Prepare
    const w = await begin({ tidb: 0, tikv: 0 }, []);
    // Act
    w.sim.faults.pdApiDown(2 * 60_000);
    const during = await w.pd('/pd/api/v1/health');
    await w.clock.advance(2 * 60_000);
    const after = await w.pd('/pd/api/v1/health');
    // Assess
    expect(during.status).toBe(503);
    expect(after.status).toBe(200);
  });

  it('makes PD lose its evict-leader schedulers, and those added meanwhile, for the given time', async () => {
    // Prepare
    const w = await begin({ tidb: 0 }, ['tikv']);
    await waitForUpStores(w, 3);
    const [a, b] = ((await w.pd('/pd/api/v1/stores')).json.stores as { store: { id: unknown } }[]).map((s) => Number(s.store.id));
    const add = (id: number | undefined) => w.pd('/pd/api/v1/schedulers', 'POST', { name: 'evict-leader-scheduler', store_id: id });
    const listed = async () => Object.keys((await w.pd('/pd/api/v1/scheduler-config/evict-leader-scheduler/list')).json?.['store-id-ranges'] ?? {});
    await add(a);
    // Act
    w.sim.faults.pdSchedulersLost(60_000);
    const atFault = await listed();
    const addDuring = await add(b);
    const rightAfterAdd = await listed();
    await w.clock.advance(2_000);
    const afterTick = await listed();
    await w.clock.advance(60_000);
    await add(b);
    await w.clock.advance(2_000);
    const afterWindow = await listed();
    // Assess
    expect(atFault).toEqual([]);
    expect(addDuring.status).toBe(200);
    expect(rightAfterAdd).toEqual([String(b)]);
    expect(afterTick).toEqual([]);
    expect(afterWindow).toEqual([String(b)]);
  });

  it('fails Kubernetes API requests at the given rate for the given time', async () => {
    // Prepare
    const w = await begin({ tidb: 0, tikv: 0 }, []);
    // Act
    w.sim.faults.kubeApiErrors(1, 60_000);
    const during = await Promise.all([1, 2, 3, 4].map(() => w.object('Pod', 'basic-pd-0')));
    await w.clock.advance(60_000);
    const after = await w.object('Pod', 'basic-pd-0');
    // Assess
    expect(during.every((r) => r.status === 500 || r.status === 429)).toBe(true);
    expect(after.status).toBe(200);
  });

  it('crash-loops the pods of a broken image until it is fixed', async () => {
    // Prepare
    const w = await begin({ tidb: 0, tikv: 0 }, []);
    await w.edit('StatefulSet', 'basic-pd', (s) => (s.spec.template.spec.containers[0].image = 'pingcap/pd:v99'));
    // Act
    w.sim.faults.breakImage('pingcap/pd:v99');
    await w.waitFor('a crash loop', async () => (await w.object('Pod', 'basic-pd-2')).json?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff');
    w.sim.faults.fixImage('pingcap/pd:v99');
    await waitForHealthyPd(w, 3);
    // Assess
    expect(w.sim.invariants().find((i) => i.name === 'pd-quorum-kept')?.violations).toEqual([]);
  });

  it('moves the PD leader and sets PD config as an administrator would', async () => {
    // Prepare
    const w = await begin({ tidb: 0, tikv: 0 }, []);
    const leader = (await w.pd('/pd/api/v1/leader')).json.name as string;
    const target = ['basic-pd-0', 'basic-pd-1', 'basic-pd-2'].find((n) => n !== leader) ?? '';
    // Act
    w.sim.movePdLeader('demo', 'basic', target);
    w.sim.setPdConfig('demo', 'basic', { replication: { 'max-replicas': 5, 'location-labels': ['zone', 'host'] } });
    // Assess
    expect((await w.pd('/pd/api/v1/leader')).json.name).toBe(target);
    const replication = (await w.pd('/pd/api/v1/config/replicate')).json;
    expect([Number(replication['max-replicas']), replication['location-labels']]).toEqual([5, 'zone,host']);
  });

  it('brings every PD member back after all PD pods are deleted at once', async () => {
    // Prepare
    const w = await begin({ tidb: 0, tikv: 0 }, []);
    const ids = w.sim.snapshot('demo', 'basic').members.map((m) => m.id).sort();
    // Act
    for (const i of [0, 1, 2]) await w.remove('Pod', `basic-pd-${i}`);
    await w.clock.advance(5000);
    await waitForHealthyPd(w, 3);
    // Assess
    expect(w.sim.snapshot('demo', 'basic').members.map((m) => m.id).sort()).toEqual(ids);
  });
});
