/**
 * Conformance of the simulated PD API with the request/response shapes TiDB Operator relies on
 * (reference §3.1): paths, JSON fields, status codes, and uint64 IDs written as raw digits.
 */
import { describe, expect, it } from '@jest/globals';
import { isLosslessNumber } from 'lossless-json';
import { drainMs, startCluster } from './tidb-pd-harness.js';

describe('PD members API', () => {
  it('lists members with uint64 member IDs above 2^53 that survive a lossless round trip', async () => {
    // Prepare
    const { call, members } = await startCluster();
    // Act
    const res = call('GET', '/pd/api/v1/members');
    // Assess
    expect(res.status).toBe(200);
    const listed = res.json.members as { name: string; member_id: unknown; peer_urls: string[]; client_urls: string[] }[];
    expect(listed.map((m) => m.name)).toEqual(['basic-pd-0', 'basic-pd-1', 'basic-pd-2']);
    for (const [i, m] of listed.entries()) {
      expect(isLosslessNumber(m.member_id)).toBe(true);
      expect(String(m.member_id)).toBe(members[i]?.id);
      expect(BigInt(String(m.member_id)) > 2n ** 53n).toBe(true);
      // A plain JSON.parse would round it: the digits in the body are exact.
      expect(res.body).toContain(`"member_id": ${members[i]?.id ?? ''}`);
    }
    expect(listed[0]?.client_urls).toEqual(['http://basic-pd-0.basic-pd-peer.demo.svc:2379']);
    expect(listed[0]?.peer_urls).toEqual(['http://basic-pd-0.basic-pd-peer.demo.svc:2380']);
    expect(res.json.leader.name).toBe(res.json.etcd_leader.name);
    expect(isLosslessNumber(res.json.header.cluster_id)).toBe(true);
  });

  it('reports health per member: an array of {name, member_id, client_urls, health}', async () => {
    // Prepare
    const { call, pd, members } = await startCluster();
    const pd2 = members[2];
    if (!pd2) throw new Error('no member');
    pd.members.setServing(pd2, false);
    // Act
    const res = call('GET', '/pd/api/v1/health');
    // Assess
    expect(res.status).toBe(200);
    expect(res.json.map((h: { name: string; health: boolean }) => [h.name, h.health])).toEqual([
      ['basic-pd-0', true],
      ['basic-pd-1', true],
      ['basic-pd-2', false],
    ]);
    expect(Object.keys(res.json[0]).sort()).toEqual(['client_urls', 'health', 'member_id', 'name']);
  });

  it.each([
    { name: 'by name', path: '/pd/api/v1/members/name/basic-pd-2', status: 200, body: 'removed, pd: basic-pd-2', args: { name: 'basic-pd-2' } },
    { name: 'by unknown name', path: '/pd/api/v1/members/name/basic-pd-9', status: 404, body: 'not found, pd: basic-pd-9', args: { name: 'basic-pd-9' } },
    { name: 'by id that does not parse', path: '/pd/api/v1/members/id/wrong-id', status: 400, body: 'strconv.ParseUint: parsing "wrong-id": invalid syntax', args: undefined },
    // server/api/member.go: by id goes straight to etcd's RemoveMember, whose "member not found" is a 500.
    { name: 'by unknown id', path: '/pd/api/v1/members/id/12891273174085095651', status: 500, body: 'etcdserver: member not found', args: { id: '12891273174085095651' } },
  ])('deletes a member $name with PD’s status and message', async ({ path, status, body, args }) => {
    // Prepare
    const { call, actions } = await startCluster();
    // Act
    const res = call('DELETE', path);
    // Assess
    expect(res.status).toBe(status);
    expect(res.json).toBe(body);
    if (args) expect(actions[0]?.args).toEqual(args);
  });

  it('deletes a member by its uint64 id', async () => {
    // Prepare
    const { call, members, pd } = await startCluster();
    const id = members[1]?.id ?? '';
    // Act
    const res = call('DELETE', `/pd/api/v1/members/id/${id}`);
    // Assess
    expect(res.status).toBe(200);
    expect(pd.members.list().map((m) => m.name)).toEqual(['basic-pd-0', 'basic-pd-2']);
  });

  it('refuses to remove a healthy member when the rest would have no serving majority', async () => {
    // Prepare
    const { call, pd, members } = await startCluster();
    const down = members[2];
    if (!down) throw new Error('no member');
    pd.members.setServing(down, false);
    // Act
    const res = call('DELETE', '/pd/api/v1/members/name/basic-pd-1');
    // Assess
    expect(res.status).toBe(500);
    expect(pd.members.list()).toHaveLength(3);
  });

  it('transfers the leader after the transfer delay and refuses an unknown target', async () => {
    // Prepare
    const { call, pd, clock, knobs, members } = await startCluster();
    const target = members.find((m) => m.name !== pd.members.leader()?.name)?.name ?? '';
    // Act
    const ok = call('POST', `/pd/api/v1/leader/transfer/${target}`);
    const bad = call('POST', '/pd/api/v1/leader/transfer/nobody');
    await clock.advance(knobs.pdLeaderTransferMs);
    // Assess
    expect(ok.status).toBe(200);
    expect(ok.json).toBe('The transfer command is submitted.');
    expect(bad.status).toBe(500);
    expect(call('GET', '/pd/api/v1/leader').json.name).toBe(target);
  });

  it('goes on with a transfer in progress when asked again for the same member (as raft), and replaces it for another', async () => {
    // Prepare
    const { call, pd, clock, knobs, members } = await startCluster();
    const [first, second] = members.filter((m) => m.name !== pd.members.leader()?.name).map((m) => m.name);
    if (!first || !second) throw new Error('no members');
    const leaderBefore = pd.members.leader()?.name;
    // Act
    call('POST', `/pd/api/v1/leader/transfer/${first}`);
    await clock.advance(knobs.pdLeaderTransferMs - 1);
    const again = call('POST', `/pd/api/v1/leader/transfer/${first}`);
    await clock.advance(1);
    const afterRepeat = pd.members.leader()?.name;
    call('POST', `/pd/api/v1/leader/transfer/${second}`);
    await clock.advance(knobs.pdLeaderTransferMs - 1);
    call('POST', `/pd/api/v1/leader/transfer/${leaderBefore ?? ''}`);
    await clock.advance(1);
    const afterSwitch = pd.members.leader()?.name;
    await clock.advance(knobs.pdLeaderTransferMs);
    // Assess
    expect(leaderBefore).not.toBe(first);
    expect(again.status).toBe(200);
    expect(afterRepeat).toBe(first);
    expect(afterSwitch).toBe(first);
    expect(pd.members.leader()?.name).toBe(leaderBefore);
  });

  it('answers 503 "no leader" to every redirected call once a majority is down', async () => {
    // Prepare
    const { call, pd, members } = await startCluster();
    const [, m1, m2] = members;
    if (!m1 || !m2) throw new Error('no member');
    // Act
    pd.members.setServing(m1, false);
    pd.members.setServing(m2, false);
    // Assess
    for (const path of ['/pd/api/v1/health', '/pd/api/v1/members', '/pd/api/v1/leader', '/pd/api/v1/stores']) {
      const res = call('GET', path);
      expect([path, res.status, res.body]).toEqual([path, 503, 'no leader\n']);
    }
  });

  it('elects a new leader pdElectionMs after the leader stops, with no leader in between', async () => {
    // Prepare
    const { call, pd, clock, knobs, members } = await startCluster();
    const leader = pd.members.leader();
    if (!leader) throw new Error('no leader');
    const other = members.find((m) => m !== leader);
    // Act
    pd.members.setServing(leader, false);
    const during = call('GET', '/pd/api/v1/leader', undefined, other);
    await clock.advance(knobs.pdElectionMs);
    const after = call('GET', '/pd/api/v1/leader', undefined, other);
    // Assess
    expect(during.status).toBe(503);
    expect(after.status).toBe(200);
    expect(after.json.name).not.toBe(leader.name);
  });
});

describe('PD cluster and config API', () => {
  it('returns the cluster id as a raw uint64', async () => {
    // Prepare
    const { call, pd } = await startCluster();
    // Act
    const res = call('GET', '/pd/api/v1/cluster');
    // Assess
    expect(res.status).toBe(200);
    expect(String(res.json.id)).toBe(pd.clusterId);
    expect(res.json.max_peer_count).toEqual(expect.anything());
  });

  it('encodes location-labels as a comma string and booleans as strings, as PD’s Go structs do', async () => {
    // Prepare
    const { call } = await startCluster();
    // Act
    const update = call('POST', '/pd/api/v1/config/replicate', { 'location-labels': 'zone,host', 'enable-placement-rules': 'true', 'max-replicas': 3 });
    const res = call('GET', '/pd/api/v1/config');
    // Assess
    expect(update.status).toBe(200);
    expect(res.json.replication['location-labels']).toBe('zone,host');
    expect(res.json.replication['enable-placement-rules']).toBe('true');
    expect(Number(res.json.replication['max-replicas'])).toBe(3);
    expect(res.json.schedule['max-store-down-time']).toBe('30m0s');
  });

  it.each([
    { name: 'an array of location labels', body: { 'location-labels': ['zone'] } },
    { name: 'a JSON boolean for enable-placement-rules', body: { 'enable-placement-rules': true } },
    { name: 'a string max-replicas', body: { 'max-replicas': '3' } },
  ])('rejects a replication update with $name (400)', async ({ body }) => {
    // Prepare
    const { call, actions } = await startCluster();
    // Act
    const res = call('POST', '/pd/api/v1/config/replicate', body);
    // Assess
    expect(res.status).toBe(400);
    expect(actions[0]?.verb).toBe('pd.updateReplicationConfig');
    expect(actions[0]?.error).toEqual(expect.any(String));
  });

  it.each([
    { name: 'PD before v8.5.2 does not have it', version: 'v8.5.1', waitMs: 10_000, status: 404 },
    { name: 'PD v8.5.2 is not ready before its regions are loaded', version: 'v8.5.2', waitMs: 0, status: 500 },
    { name: 'PD v8.5.2 is ready once its regions are loaded', version: 'v8.5.2', waitMs: 10_000, status: 200 },
    { name: 'nightly counts as newest', version: 'nightly', waitMs: 10_000, status: 200 },
  ])('/pd/api/v2/ready: $name', async ({ version, waitMs, status }) => {
    // Prepare
    const { call, clock, pd, members } = await startCluster({ version, members: 1 });
    const m = members[0];
    if (!m) throw new Error('no member');
    pd.members.setServing(m, false);
    pd.members.setServing(m, true);
    // Act
    await clock.advance(waitMs);
    // Assess
    expect(call('GET', '/pd/api/v2/ready').status).toBe(status);
  });
});

describe('PD stores API', () => {
  it('answers 500 "TiKV cluster not bootstrapped" before the first store', async () => {
    // Prepare
    const { call } = await startCluster();
    // Act
    const res = call('GET', '/pd/api/v1/stores');
    // Assess
    expect(res.status).toBe(500);
    expect(res.body.endsWith('TiKV cluster not bootstrapped, please start TiKV first"\n')).toBe(true);
  });

  it('lists stores with the fields TiDB Operator reads', async () => {
    // Prepare
    const { call, stores } = await startCluster({ stores: 3 });
    // Act
    const res = call('GET', '/pd/api/v1/stores');
    // Assess
    expect(res.status).toBe(200);
    expect(Number(res.json.count)).toBe(3);
    const first = res.json.stores[0];
    expect(String(first.store.id)).toBe(stores[0]?.id);
    expect(first.store.address).toBe('basic-tikv-0.basic-tikv-peer.demo.svc:20160');
    expect(first.store.state_name).toBe('Up');
    expect(first.store.state).toBeUndefined();
    expect(Number(first.status.region_count)).toBe(90);
    expect(Number(first.status.leader_count)).toBeGreaterThan(0);
    expect(typeof first.status.last_heartbeat_ts).toBe('string');
    expect(typeof first.status.capacity).toBe('string');
  });

  it('spreads regions evenly and every region has exactly one leader', async () => {
    // Prepare
    const { pd, stores } = await startCluster({ stores: 3 });
    // Act
    const leaders = stores.map((s) => pd.book.leaderCount(s.id));
    // Assess
    expect(stores.map((s) => pd.book.regionCount(s.id))).toEqual([90, 90, 90]);
    expect(leaders.reduce((a, b) => a + b, 0)).toBe(90);
    expect(Math.max(...leaders) - Math.min(...leaders)).toBeLessThanOrEqual(1);
  });

  it.each([
    { name: 'an unknown store is 404', stores: 4, id: '999', status: 404 },
    { name: 'a store whose removal leaves fewer Up stores than max-replicas is 400', stores: 3, id: 'first', status: 400 },
    { name: 'a removable store goes Offline (200)', stores: 4, id: 'first', status: 200 },
    { name: 'an id that does not parse is 400', stores: 3, id: 'x1', status: 400 },
  ])('DELETE /store/{id}: $name', async ({ stores: n, id, status }) => {
    // Prepare
    const { call, stores } = await startCluster({ stores: n });
    const target = id === 'first' ? (stores[0]?.id ?? '') : id;
    // Act
    const res = call('DELETE', `/pd/api/v1/store/${target}`);
    // Assess
    expect(res.status).toBe(status);
  });

  it('lists tombstones only with ?state=2 and answers 410 to deleting one again', async () => {
    // Prepare
    const { call, stores, clock, knobs } = await startCluster({ stores: 4 });
    const id = stores[3]?.id ?? '';
    call('DELETE', `/pd/api/v1/store/${id}`);
    // Act
    await clock.advance(drainMs(knobs, knobs.regionsPerStore) + 2 * knobs.pdTickMs);
    // Assess
    expect(call('GET', '/pd/api/v1/stores').json.stores.map((s: any) => String(s.store.id))).not.toContain(id);
    const tombstones = call('GET', '/pd/api/v1/stores?state=2').json;
    expect(tombstones.stores.map((s: any) => [String(s.store.id), s.store.state_name, Number(s.store.state)])).toEqual([[id, 'Tombstone', 2]]);
    expect(call('DELETE', `/pd/api/v1/store/${id}`).status).toBe(410);
  });

  it('merges store labels and rejects non-string values', async () => {
    // Prepare
    const { call, stores, actions } = await startCluster({ stores: 3 });
    const id = stores[0]?.id ?? '';
    // Act
    const ok = call('POST', `/pd/api/v1/store/${id}/label`, { zone: 'zone-a', host: 'node-0' });
    const bad = call('POST', `/pd/api/v1/store/${id}/label`, { zone: 1 });
    // Assess
    expect(ok.status).toBe(200);
    expect(bad.status).toBe(400);
    expect(call('GET', `/pd/api/v1/store/${id}`).json.store.labels).toEqual([
      { key: 'zone', value: 'zone-a' },
      { key: 'host', value: 'node-0' },
    ]);
    expect(actions.map((a) => [a.verb, a.error === undefined])).toEqual([
      ['pd.setStoreLabels', true],
      ['pd.setStoreLabels', false],
    ]);
  });
});

describe('PD schedulers API', () => {
  it('shows the merged evict-leader scheduler and its store list (PD ≥ v4.0)', async () => {
    // Prepare
    const { call, stores } = await startCluster({ stores: 3 });
    const id = stores[1]?.id ?? '';
    // Act
    const add = call('POST', '/pd/api/v1/schedulers', { name: 'evict-leader-scheduler', store_id: Number(id) });
    const again = call('POST', '/pd/api/v1/schedulers', { name: 'evict-leader-scheduler', store_id: Number(id) });
    // Assess
    expect([add.status, again.status]).toEqual([200, 200]);
    const names = call('GET', '/pd/api/v1/schedulers').json as string[];
    expect(names.filter((n) => n.startsWith('evict-leader-scheduler'))).toEqual(['evict-leader-scheduler']);
    const list = call('GET', '/pd/api/v1/scheduler-config/evict-leader-scheduler/list').json;
    expect(Object.keys(list['store-id-ranges'])).toEqual([id]);
  });

  it('lists one scheduler per store before PD v4.0', async () => {
    // Prepare
    const { call, stores } = await startCluster({ stores: 3, version: 'v3.1.0' });
    // Act
    call('POST', '/pd/api/v1/schedulers', { name: 'evict-leader-scheduler', store_id: Number(stores[0]?.id) });
    call('POST', '/pd/api/v1/schedulers', { name: 'evict-leader-scheduler', store_id: Number(stores[2]?.id) });
    // Assess
    const names = call('GET', '/pd/api/v1/schedulers').json as string[];
    expect(names.filter((n) => n.startsWith('evict-leader-scheduler'))).toEqual([`evict-leader-scheduler-${stores[0]?.id}`, `evict-leader-scheduler-${stores[2]?.id}`]);
  });

  it.each([
    { name: 'removing a present store answers 200', present: true, status: 200 },
    { name: 'removing an absent store answers 404 (which TiDB Operator treats as done)', present: false, status: 404 },
  ])('DELETE /schedulers/evict-leader-scheduler-{id}: $name', async ({ present, status }) => {
    // Prepare
    const { call, stores, actions } = await startCluster({ stores: 3 });
    const id = stores[0]?.id ?? '';
    if (present) call('POST', '/pd/api/v1/schedulers', { name: 'evict-leader-scheduler', store_id: Number(id) });
    // Act
    const res = call('DELETE', `/pd/api/v1/schedulers/evict-leader-scheduler-${id}`);
    // Assess
    expect(res.status).toBe(status);
    expect(actions.at(-1)).toEqual(expect.objectContaining({ verb: 'pd.removeEvictLeaderScheduler', args: { storeId: id } }));
    expect((call('GET', '/pd/api/v1/schedulers').json as string[]).some((n) => n.startsWith('evict-leader'))).toBe(false);
  });

  it('refuses an evict-leader scheduler for an unknown store (500)', async () => {
    // Prepare
    const { call } = await startCluster({ stores: 3 });
    // Act
    const res = call('POST', '/pd/api/v1/schedulers', { name: 'evict-leader-scheduler', store_id: 4242 });
    // Assess
    expect(res.status).toBe(500);
  });
});
