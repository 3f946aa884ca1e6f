/**
 * PD's answers the reconciler must read right, each checked against PD's source (tikv/pd,
 * release-7.1 … v8.5.5): a member whose join was interrupted (server/join/join.go adds the etcd
 * member before etcd starts), member deletion by unknown id (server/api/member.go), store state and
 * labels on unknown and Tombstone stores (server/api/store.go, server/cluster/cluster.go), and the
 * replication config's refusals (server/server.go `SetReplicationConfig`).
 */
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_KNOBS } from '../../lib/sim/tidb/knobs.js';
import { servePdRequest } from '../../lib/sim/tidb/pd-api-wait.js';

const LEADER_WAIT_MAX_MS = DEFAULT_KNOBS.pdLeaderWaitMs;
const MOVE_LEADER_TIMEOUT_MS = DEFAULT_KNOBS.pdMoveLeaderTimeoutMs;
import { startCluster } from './tidb-pd-harness.js';

/** A three-member PD whose fourth pod's join was interrupted after MemberAdd. */
async function withInterruptedJoin(version = 'v7.5.0') {
  const world = await startCluster({ version });
  world.pd.interruptNextJoin('basic-pd-3');
  const joined = world.pd.joinMember(world.info(3), 'basic-pd-3');
  if (!('ok' in joined)) throw new Error(joined.refused.message);
  return { ...world, unjoined: joined.ok.member, interrupted: joined.ok.interrupted };
}

describe('a PD member whose join was interrupted', () => {
  it('is listed with only its id and peer URL, unhealthy in /health with an empty name and null client URLs', async () => {
    // Prepare
    const { call, unjoined, interrupted } = await withInterruptedJoin();
    // Act
    const members = call('GET', '/pd/api/v1/members').json.members;
    const health = call('GET', '/pd/api/v1/health').json;
    // Assess
    expect(interrupted).toBe(true);
    expect(members).toHaveLength(4);
    const listed = members.find((m: any) => String(m.member_id) === unjoined.id);
    expect(Object.keys(listed).sort()).toEqual(['member_id', 'peer_urls']);
    expect(listed.peer_urls).toEqual(['http://basic-pd-3.basic-pd-peer.demo.svc:2380']);
    const entry = health.find((h: any) => String(h.member_id) === unjoined.id);
    expect(entry).toMatchObject({ name: '', client_urls: null, health: false });
  });

  it('counts towards the majority without serving, and the fault ends with the member it added', async () => {
    // Prepare
    const { pd, members, unjoined, info, clock, knobs } = await withInterruptedJoin();
    const one = members[1];
    if (!one) throw new Error('no member');
    // Act
    pd.members.setServing(one, false);
    // Assess: 2 of 4 serving is no majority.
    expect(pd.members.hasQuorum()).toBe(false);
    expect(unjoined.serving).toBe(false);
    pd.members.setServing(one, true);
    // The fault ended: basic-pd-3's next join is an ordinary one (refused while the member it left exists).
    await clock.advance(knobs.pdElectionMs);
    expect(pd.members.remove(unjoined)).toEqual({ ok: true });
    const next = pd.joinMember(info(3), 'basic-pd-3');
    expect('ok' in next && next.ok).toMatchObject({ interrupted: false, member: { name: 'basic-pd-3', serving: true } });
  });

  it.each([
    { name: 'before release-8.5 the message has no id', version: 'v7.5.0', withId: false },
    { name: 'from release-8.5 the message names the member id', version: 'v8.5.5', withId: true },
  ])('refuses every later join: $name', async ({ version, withId }) => {
    // Prepare
    const { pd, info, unjoined } = await withInterruptedJoin(version);
    // Act
    const again = pd.joinMember({ ...info(3), version }, 'basic-pd-3');
    const other = pd.joinMember({ ...info(4), version }, 'basic-pd-4');
    // Assess
    const expected = withId ? `there is a member ${unjoined.id} that has not joined successfully` : 'there is a member that has not joined successfully';
    for (const refused of [again, other]) expect('refused' in refused && refused.refused).toEqual({ status: 500, message: expected });
  });

  it.each([
    { name: 'by name (it has none, and its pod name is not it): 404', path: () => '/pd/api/v1/members/name/basic-pd-3', status: 404, left: 4 },
    { name: 'by id: 200, and the pod joins again', path: (id: string) => `/pd/api/v1/members/id/${id}`, status: 200, left: 3 },
  ])('is deleted $name', async ({ path, status, left }) => {
    // Prepare
    const { call, pd, info, unjoined } = await withInterruptedJoin();
    // Act
    const res = call('DELETE', path(unjoined.id));
    // Assess
    expect(res.status).toBe(status);
    expect(pd.members.list()).toHaveLength(left);
    const rejoin = pd.joinMember(info(3), 'basic-pd-3');
    expect('ok' in rejoin).toBe(left === 3);
  });
});

describe('PD member and store answers', () => {
  it.each([
    { name: 'DELETE /members/id of an unknown id is etcd\'s 500 "member not found"', method: 'DELETE', path: () => '/pd/api/v1/members/id/12345', status: 500, body: 'etcdserver: member not found' },
    { name: 'DELETE /members/name of an unknown name is 404', method: 'DELETE', path: () => '/pd/api/v1/members/name/nobody', status: 404, body: 'not found, pd: nobody' },
    { name: 'state=Up on a Tombstone is 410 (ErrStoreRemoved)', method: 'POST', path: (t: string) => `/pd/api/v1/store/${t}/state?state=Up`, status: 410, body: 'store {t} has been removed' },
    { name: 'state=Up on an unknown store is 404', method: 'POST', path: () => '/pd/api/v1/store/999/state?state=Up', status: 404, body: 'store id 999 not found' },
    { name: 'labels on an unknown store are 500 (ErrInvalidStoreID)', method: 'POST', path: () => '/pd/api/v1/store/999/label', status: 500, body: 'invalid store id 999, not found' },
    { name: 'labels on a Tombstone are accepted', method: 'POST', path: (t: string) => `/pd/api/v1/store/${t}/label`, status: 200, body: "The store's label is updated." },
  ])('$name', async ({ method, path, status, body }) => {
    // Prepare
    const { call, stores, clock, knobs } = await startCluster({ stores: 4 });
    const tombstone = stores[3]?.id ?? '';
    call('DELETE', `/pd/api/v1/store/${tombstone}`);
    await clock.advance((knobs.regionsPerStore * 60_000) / knobs.storeDrainPerMinute + 2 * knobs.pdTickMs);
    expect(call('GET', `/pd/api/v1/store/${tombstone}`).json.store.state_name).toBe('Tombstone');
    // Act
    const res = call(method, path(tombstone), method === 'POST' && path(tombstone).endsWith('/label') ? { zone: 'a' } : undefined);
    // Assess
    expect(res.status).toBe(status);
    expect(String(res.json)).toContain(body.replace('{t}', tombstone));
  });
});

describe('PD replication config refusals', () => {
  it.each([
    { name: 'placement rules off while a TiFlash store is up: 500', tiflash: 'up', body: { 'enable-placement-rules': 'false' }, status: 500, error: 'cannot disable placement rules with TiFlash nodes' },
    { name: 'placement rules off once every TiFlash store is Tombstone: 200', tiflash: 'tombstone', body: { 'enable-placement-rules': 'false' }, status: 200, error: undefined },
    { name: 'placement rules off without TiFlash: 200', tiflash: 'none', body: { 'enable-placement-rules': 'false' }, status: 200, error: undefined },
    { name: 'other replication keys with TiFlash up: 200', tiflash: 'up', body: { 'max-replicas': 3 }, status: 200, error: undefined },
  ])('$name', async ({ tiflash, body, status, error }) => {
    // Prepare
    const { call, pd, clock, knobs } = await startCluster({ stores: 3 });
    if (tiflash !== 'none') {
      const address = 'basic-tiflash-0.basic-tiflash-peer.demo.svc:3930';
      const added = pd.registerStore({ dataUid: 'pvc-tiflash-0', podName: 'basic-tiflash-0', address, statusAddress: address, version: '7.5.0', engine: 'tiflash', labels: [], capacityBytes: 2 ** 34 });
      if (!('ok' in added)) throw new Error(added.refused.message);
      if (tiflash === 'tombstone') {
        call('DELETE', `/pd/api/v1/store/${added.ok.id}`);
        await clock.advance((knobs.regionsPerStore * 60_000) / knobs.storeDrainPerMinute + 2 * knobs.pdTickMs);
        expect(pd.stores.get(added.ok.id)?.meta).toBe('Tombstone');
      }
    }
    // Act
    const res = call('POST', '/pd/api/v1/config/replicate', body);
    // Assess
    expect(res.status).toBe(status);
    if (error !== undefined) expect(res.json).toBe(error);
    expect(call('GET', '/pd/api/v1/config/replicate').json['enable-placement-rules']).toBe(String(error === undefined ? !('enable-placement-rules' in body) : true));
  });
});

describe('store heartbeats after a PD leader change', () => {
  it.each([
    { name: 'a minute after the last persisted heartbeat: Disconnected until the next heartbeat (≤ 10 s)', sinceMs: 60_000, right: 'Disconnected' },
    { name: 'within 20 s of the last persisted heartbeat: still Up', sinceMs: 5_000, right: 'Up' },
  ])('$name', async ({ sinceMs, right }) => {
    // Prepare: heartbeats every 10 s; PD persisted the first one only (pkg/core/store.go NeedPersist, 5 min).
    const { call, pd, clock, knobs } = await startCluster({ stores: 3 });
    await clock.advance(sinceMs);
    const states = () => call('GET', '/pd/api/v1/stores').json.stores.map((s: any) => s.store.state_name);
    expect(states()).toEqual(['Up', 'Up', 'Up']);
    // Act: the new leader loads the stores from storage (server/cluster/cluster.go LoadClusterInfo).
    const moved = pd.members.forceLeader('basic-pd-1');
    // Assess
    expect('ok' in moved).toBe(true);
    expect(states()).toEqual([right, right, right]);
    await clock.advance(knobs.storeHeartbeatMs);
    expect(states()).toEqual(['Up', 'Up', 'Up']);
  });
});

describe('PD answers that take time', () => {
  /** Serves one request as a member's process does, and when it settled on the virtual clock. */
  function serveAt(world: Awaited<ReturnType<typeof startCluster>>, path: string, method = 'GET', member = world.members[0]) {
    if (!member) throw new Error('no member');
    const startMs = world.clock.nowMs();
    const url = new URL(path, 'http://pd');
    return servePdRequest({ cluster: world.pd, member, record: (a) => world.actions.push(a) }, world.clock, { method, path: url.pathname, query: url.searchParams, body: '', headers: {} }).then((res) => ({
      status: res.status,
      body: res.body,
      tookMs: world.clock.nowMs() - startMs,
    }));
  }

  it('a leader transfer to a member that does not serve blocks until etcd gives up (5 s), then 500', async () => {
    // Prepare
    const world = await startCluster();
    const down = world.members[2];
    if (!down) throw new Error('no member');
    world.pd.members.setServing(down, false);
    // Act
    const pending = serveAt(world, '/pd/api/v1/leader/transfer/basic-pd-2', 'POST');
    // (the request itself lets the virtual time pass while it blocks)
    const res = await pending;
    // Assess
    expect(res).toEqual({ status: 500, body: expect.stringContaining('[PD:etcd:ErrEtcdMoveLeader]etcdserver: request timed out, leader transfer took too long'), tookMs: MOVE_LEADER_TIMEOUT_MS });
    expect(world.actions.at(-1)).toMatchObject({ verb: 'pd.transferLeader', args: { to: 'basic-pd-2' } });
  });

  it.each([
    { name: 'v7.5: /members 503 "no leader" at once', version: 'v7.5.0', path: '/pd/api/v1/members', status: 503, body: 'no leader', tookMs: 0 },
    { name: 'v8.1.0: /members 503 "no leader" at once', version: 'v8.1.0', path: '/pd/api/v1/members', status: 503, body: 'no leader', tookMs: 0 },
    { name: 'v8.1.1: /members waits 3 s for a leader, then 503', version: 'v8.1.1', path: '/pd/api/v1/members', status: 503, body: 'redirect finds no leader', tookMs: LEADER_WAIT_MAX_MS },
    { name: 'v8.5.4: /health waits 3 s for a leader, then 503', version: 'v8.5.4', path: '/pd/api/v1/health', status: 503, body: 'redirect finds no leader', tookMs: LEADER_WAIT_MAX_MS },
    { name: 'v8.5.5: /health is answered by the member itself at once', version: 'v8.5.5', path: '/pd/api/v1/health', status: 200, body: 'basic-pd-0', tookMs: 0 },
    { name: 'v8.5.5: GET /config is answered by the member itself at once', version: 'v8.5.5', path: '/pd/api/v1/config', status: 200, body: 'replication', tookMs: 0 },
    { name: 'v8.5.5: /members still waits 3 s, then 503', version: 'v8.5.5', path: '/pd/api/v1/members', status: 503, body: 'redirect finds no leader', tookMs: LEADER_WAIT_MAX_MS },
  ])('without a leader, $name', async ({ version, path, status, body, tookMs }) => {
    // Prepare: two of three members stop, so PD loses its leader.
    const world = await startCluster({ version });
    for (const m of world.members.slice(1)) world.pd.members.setServing(m, false);
    expect(world.pd.hasLeader()).toBe(false);
    // Act
    const pending = serveAt(world, path);
    // (the request itself lets the virtual time pass while it waits)
    const res = await pending;
    // Assess
    expect(res.status).toBe(status);
    expect(res.body).toContain(body);
    expect(res.tookMs).toBe(tookMs);
  });

  it('v8.1.1: a leader elected while the request waits serves it', async () => {
    // Prepare
    const world = await startCluster({ version: 'v8.1.1', knobs: { pdElectionMs: 1_000 } });
    const stopped = world.members.slice(1);
    for (const m of stopped) world.pd.members.setServing(m, false);
    // Act: a member comes back; the election takes pdElectionMs.
    const pending = serveAt(world, '/pd/api/v1/members');
    const back = stopped[0];
    if (!back) throw new Error('no member');
    world.pd.members.setServing(back, true);
    // (the request lets the virtual time pass while it waits; the election happens meanwhile)
    const res = await pending;
    // Assess
    expect(world.knobs.pdElectionMs).toBeLessThan(LEADER_WAIT_MAX_MS);
    expect(res.status).toBe(200);
    expect(res.tookMs).toBeGreaterThan(0);
  });
});
