import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ComponentCaller } from '../../lib/components/caller.js';
import { RealClock } from '../../lib/platform/clock.js';
import { NO_RETRY } from '../../lib/platform/retry.js';
import { NotFoundError, TerminalError, TransientError } from '../../lib/platform/errors.js';
import { PdClient } from '../../lib/pd/client.js';
import type { ProxyRequest, ProxyResponse } from '../../lib/sim/proxy.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

type Seen = { method: string; path: string; query: string; body: string };
type Route = ProxyResponse | ((req: ProxyRequest) => ProxyResponse | Promise<ProxyResponse>);
/** A fake process behind the proxy: records requests, answers from `routes` (404 otherwise). */
type Fake = { seen: Seen[]; routes: Map<string, Route> };

const PD_LABELS = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': 'pd' };
const READY = { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] };

/** A pod made Running+Ready through the status subresource, with a fake process on `port`. */
function startPod(s: BareServer, name: string, labels: Record<string, string>, port: number): Fake {
  const pod = s.store.create('Pod', { metadata: { name, namespace: 'demo', labels }, spec: { containers: [{ name: 'main', image: 'pingcap/pd:v8.5.0' }] } });
  s.store.update('Pod', { ...pod, status: READY }, { subresource: 'status' });
  const fake: Fake = { seen: [], routes: new Map() };
  s.proxy.register('demo', name, port, async (req) => {
    fake.seen.push({ method: req.method, path: req.path, query: req.query.toString(), body: req.body });
    const route = fake.routes.get(`${req.method} ${req.path}`);
    if (route === undefined) return { status: 404, body: `no route ${req.method} ${req.path}`, contentType: 'text/plain' };
    return typeof route === 'function' ? route(req) : route;
  });
  return fake;
}

const ok = (text = ''): ProxyResponse => ({ status: 200, body: text });

// Raw JSON text: 11120000000000000001 > 2^64/2 and 9007199254740993 = 2^53 + 1 would not survive JSON.parse.
const MEMBER_0 = '{"name":"basic-pd-0","member_id":11120000000000000001,"peer_urls":["http://basic-pd-0.basic-pd-peer.demo.svc:2380"],"client_urls":["http://basic-pd-0.basic-pd-peer.demo.svc:2379"]}';
const MEMBER_1 = '{"name":"basic-pd-1","member_id":9007199254740993,"peer_urls":["http://basic-pd-1.basic-pd-peer.demo.svc:2380"],"client_urls":["http://basic-pd-1.basic-pd-peer.demo.svc:2379"]}';
const MEMBERS = `{"header":{"cluster_id":7000000000000000123},"members":[${MEMBER_0},${MEMBER_1}],"leader":${MEMBER_0},"etcd_leader":${MEMBER_0}}`;
const STORES = `{"count":1,"stores":[{"store":{"id":4,"address":"basic-tikv-0.basic-tikv-peer.demo.svc:20160","labels":[{"key":"zone","value":"z1"}],"version":"8.5.0","state_name":"Up"},
  "status":{"capacity":"100GiB","available":"80GiB","leader_count":12,"region_count":30,"last_heartbeat_ts":"2026-01-01T00:00:00Z"}}]}`;

let s: BareServer;
let pd: Fake;
let client: PdClient;
beforeEach(async () => {
  s = await startBareServer({ token: 'client-token' });
  pd = startPod(s, 'basic-pd-0', PD_LABELS, 2379);
  s.store.create('Service', { metadata: { name: 'basic-pd', namespace: 'demo' }, spec: { selector: PD_LABELS, ports: [{ name: 'client', port: 2379 }] } });
  client = new PdClient(ComponentCaller.viaApiProxy(s.kubeConfig), { namespace: 'demo', tcName: 'basic' });
});
afterEach(async () => {
  await s.close();
});

describe('PD reads through the service proxy, parsed losslessly', () => {
  it('members keep their uint64 ids exactly, as strings', async () => {
    pd.routes.set('GET /pd/api/v1/members', ok(MEMBERS));
    const members = await client.getMembers();
    expect(members.members.map((m) => [m.name, m.memberId])).toEqual([
      ['basic-pd-0', '11120000000000000001'],
      ['basic-pd-1', '9007199254740993'],
    ]);
    expect(members.leader?.memberId).toBe('11120000000000000001');
    expect(members.members[0]?.clientUrls).toEqual(['http://basic-pd-0.basic-pd-peer.demo.svc:2379']);
    expect(pd.seen).toEqual([{ method: 'GET', path: '/pd/api/v1/members', query: '', body: '' }]);
  });

  it('an id survives list → delete-by-id exactly', async () => {
    pd.routes.set('GET /pd/api/v1/members', ok(MEMBERS));
    pd.routes.set('DELETE /pd/api/v1/members/id/11120000000000000001', ok());
    pd.routes.set('DELETE /pd/api/v1/members/id/9007199254740993', ok());
    for (const member of (await client.getMembers()).members) await client.deleteMemberById(member.memberId);
    expect(pd.seen.slice(1).map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /pd/api/v1/members/id/11120000000000000001',
      'DELETE /pd/api/v1/members/id/9007199254740993',
    ]);
  });

  it('health, cluster and leader are parsed with string ids', async () => {
    pd.routes.set('GET /pd/api/v1/health', ok('[{"name":"basic-pd-0","member_id":11120000000000000001,"client_urls":["http://a:2379"],"health":true},{"name":"basic-pd-1","member_id":9007199254740993,"client_urls":[],"health":false}]'));
    pd.routes.set('GET /pd/api/v1/cluster', ok('{"id":7000000000000000123,"max_peer_count":3}'));
    pd.routes.set('GET /pd/api/v1/leader', ok(MEMBER_0));
    expect(await client.getHealth()).toEqual([
      { name: 'basic-pd-0', memberId: '11120000000000000001', clientUrls: ['http://a:2379'], health: true },
      { name: 'basic-pd-1', memberId: '9007199254740993', clientUrls: [], health: false },
    ]);
    expect(await client.getCluster()).toEqual({ id: '7000000000000000123', maxPeerCount: 3 });
    expect((await client.getLeader()).name).toBe('basic-pd-0');
  });

  it('stores carry labels and status; tombstones are asked with state=2', async () => {
    pd.routes.set('GET /pd/api/v1/stores', ok(STORES));
    const { stores, bootstrapped } = await client.getStores();
    expect(bootstrapped).toBe(true);
    expect(stores).toEqual([
      { id: '4', address: 'basic-tikv-0.basic-tikv-peer.demo.svc:20160', stateName: 'Up', labels: [{ key: 'zone', value: 'z1' }], version: '8.5.0', leaderCount: 12, regionCount: 30, capacity: '100GiB', available: '80GiB', lastHeartbeatTs: '2026-01-01T00:00:00Z' },
    ]);
    await client.getTombstoneStores();
    expect(pd.seen[1]).toMatchObject({ method: 'GET', path: '/pd/api/v1/stores', query: 'state=2' });
  });

  it('a cluster no TiKV has joined yet reads as not bootstrapped, not as an error', async () => {
    pd.routes.set('GET /pd/api/v1/stores', { status: 500, body: '"TiKV cluster not bootstrapped, please start TiKV first"\n' });
    expect(await client.getStores()).toEqual({ stores: [], bootstrapped: false });
  });

  it('a cluster no TiKV has joined yet has no evict-leader scheduler, not an error', async () => {
    pd.routes.set('GET /pd/api/v1/schedulers', { status: 500, body: '"[PD:cluster:ErrNotBootstrapped]TiKV cluster not bootstrapped, please start TiKV first"\n' });
    expect(await client.getEvictLeaderSchedulers()).toEqual([]);
  });

  it.each([
    { name: 'config with PD string encodings', body: '{"replication":{"max-replicas":3,"location-labels":"zone,host","enable-placement-rules":"true"}}' },
    { name: 'config with JSON lists and booleans', body: '{"replication":{"max-replicas":3,"location-labels":["zone","host"],"enable-placement-rules":true}}' },
  ])('$name reads the same replication settings', async ({ body }) => {
    pd.routes.set('GET /pd/api/v1/config', ok(body));
    expect(await client.getConfig()).toEqual({ replication: { maxReplicas: 3, locationLabels: ['zone', 'host'], enablePlacementRules: true } });
  });

  it.each([
    { name: 'separate schedulers are listed by name', list: '["balance-leader-scheduler","evict-leader-scheduler-1","evict-leader-scheduler-4"]', config: undefined, expected: ['evict-leader-scheduler-1', 'evict-leader-scheduler-4'] },
    { name: 'a merged scheduler is expanded through its config', list: '["evict-leader-scheduler"]', config: '{"store-id-ranges":{"1":[{"start-key":"","end-key":""}],"7":[]}}', expected: ['evict-leader-scheduler-1', 'evict-leader-scheduler-7'] },
  ])('evict-leader schedulers: $name', async ({ list, config, expected }) => {
    pd.routes.set('GET /pd/api/v1/schedulers', ok(list));
    if (config) pd.routes.set('GET /pd/api/v1/scheduler-config/evict-leader-scheduler/list', ok(config));
    expect(await client.getEvictLeaderSchedulers()).toEqual(expected);
  });
});

describe('PD writes send the method, path and body TiDB Operator sends', () => {
  it.each([
    { name: 'transfer leader', act: (c: PdClient) => c.transferLeader('basic-pd-1'), method: 'POST', path: '/pd/api/v1/leader/transfer/basic-pd-1', body: '' },
    { name: 'delete member by name', act: (c: PdClient) => c.deleteMemberByName('basic-pd-2'), method: 'DELETE', path: '/pd/api/v1/members/name/basic-pd-2', body: '' },
    { name: 'delete store', act: (c: PdClient) => c.deleteStore('5'), method: 'DELETE', path: '/pd/api/v1/store/5', body: '' },
    { name: 'set an Offline store Up again', act: (c: PdClient) => c.setStoreState('5', 'Up'), method: 'POST', path: '/pd/api/v1/store/5/state', query: 'state=Up', body: '' },
    { name: 'set store labels', act: (c: PdClient) => c.setStoreLabels('5', { zone: 'z1', host: 'n1' }), method: 'POST', path: '/pd/api/v1/store/5/label', body: '{"zone":"z1","host":"n1"}' },
    {
      name: 'update replication config',
      act: (c: PdClient) => c.setReplicationConfig({ maxReplicas: 3, locationLabels: ['zone', 'host'], enablePlacementRules: true }),
      method: 'POST',
      path: '/pd/api/v1/config/replicate',
      body: '{"max-replicas":3,"location-labels":"zone,host","enable-placement-rules":"true"}',
    },
    { name: 'begin evict leader (uint64 store id as a JSON number)', act: (c: PdClient) => c.beginEvictLeader('18446744073709551615'), method: 'POST', path: '/pd/api/v1/schedulers', body: '{"name":"evict-leader-scheduler","store_id":18446744073709551615}' },
    { name: 'end evict leader', act: (c: PdClient) => c.endEvictLeader('4'), method: 'DELETE', path: '/pd/api/v1/schedulers/evict-leader-scheduler-4', body: '' },
  ])('$name', async ({ act, method, path, body, ...rest }) => {
    pd.routes.set(`${method} ${path}`, ok());
    await act(client);
    expect(pd.seen).toEqual([{ method, path, query: 'query' in rest ? rest.query : '', body }]);
  });

  it('an id that is not a decimal number is refused before any request', async () => {
    await expect(client.deleteMemberById('1/../../x')).rejects.toBeInstanceOf(TerminalError);
    await expect(client.deleteStore('abc')).rejects.toBeInstanceOf(TerminalError);
    expect(pd.seen).toEqual([]);
  });
});

describe('PD readiness is asked of one member through the pod proxy', () => {
  it.each([
    { name: '200 is ready', answer: ok('') as ProxyResponse | undefined, ready: true },
    { name: '404 is ready (PD before 8.5.2 has no /v2/ready)', answer: undefined, ready: true },
  ])('$name', async ({ answer, ready }) => {
    const member = startPod(s, 'basic-pd-1', { other: 'x' }, 2379);
    if (answer) member.routes.set('GET /pd/api/v2/ready', answer);
    expect(await client.isMemberReady('basic-pd-1')).toBe(ready);
    expect(member.seen.map((r) => r.path)).toEqual(['/pd/api/v2/ready']);
    expect(pd.seen).toEqual([]);
  });

  it('a 500 from the member is a TransientError', async () => {
    pd.routes.set('GET /pd/api/v2/ready', { status: 500, body: 'not ready' });
    await expect(client.isMemberReady('basic-pd-0')).rejects.toBeInstanceOf(TransientError);
  });
});

describe('errors: HTTP ≥ 400 is an error, as GetBodyOK', () => {
  it.each([
    { name: '404 is NotFoundError', status: 404, type: NotFoundError },
    { name: '500 is TransientError', status: 500, type: TransientError },
    { name: '503 is TransientError', status: 503, type: TransientError },
    { name: '429 is TransientError', status: 429, type: TransientError },
    { name: '400 is TerminalError', status: 400, type: TerminalError },
  ])('$name, with the body text in the message', async ({ status, type }) => {
    pd.routes.set('DELETE /pd/api/v1/store/4', { status, body: `pd says ${status}` });
    const err = await client.deleteStore('4').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect((err as Error).message).toContain(`pd says ${status}`);
  });

  it('no ready endpoint behind the service is the proxy 503, a TransientError', async () => {
    const pod = s.store.mustGet('Pod', 'demo', 'basic-pd-0');
    s.store.update('Pod', { ...pod, status: { ...READY, conditions: [{ type: 'Ready', status: 'False' }] } }, { subresource: 'status' });
    const err = await client.getMembers().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect((err as Error).message).toContain('no endpoints available for service');
  });

  it('a malformed answer is a TransientError, not a crash', async () => {
    pd.routes.set('GET /pd/api/v1/members', ok('<html>oops</html>'));
    await expect(client.getMembers()).rejects.toBeInstanceOf(TransientError);
  });
});

describe('every PD call has a deadline', () => {
  it.each([
    { name: 'a PD that never answers gives a TransientError at the timeout', timeoutMs: 250, deadlineInMs: undefined, expectMs: 250 },
    { name: 'the invocation deadline shortens the 5 s default', timeoutMs: undefined, deadlineInMs: 150, expectMs: 150 },
  ])('$name', async ({ timeoutMs, deadlineInMs, expectMs }) => {
    pd.routes.set('GET /pd/api/v1/health', () => new Promise<ProxyResponse>(() => undefined));
    const clock = new RealClock();
    // One attempt: this is about a single call's timeout (repeats are tested in retry.test.ts).
    const caller = ComponentCaller.viaApiProxy(s.kubeConfig, { clock, retry: NO_RETRY, ...(timeoutMs ? { timeoutMs } : {}) });
    const base = new PdClient(caller, { namespace: 'demo', tcName: 'basic' });
    const bounded = deadlineInMs === undefined ? base : base.withDeadline(clock.nowMs() + deadlineInMs);
    const started = performance.now();
    const err = await bounded.getHealth().catch((e: unknown) => e);
    const elapsedMs = performance.now() - started;
    expect(err).toBeInstanceOf(TransientError);
    expect(elapsedMs).toBeGreaterThanOrEqual(expectMs - 20);
    expect(elapsedMs).toBeLessThan(expectMs + 250);
  });

  it('a call past the deadline is not attempted', async () => {
    const clock = new RealClock();
    const late = new PdClient(ComponentCaller.viaApiProxy(s.kubeConfig, { clock }), { namespace: 'demo', tcName: 'basic' }).withDeadline(clock.nowMs() - 1);
    await expect(late.getMembers()).rejects.toBeInstanceOf(TransientError);
    expect(pd.seen).toEqual([]);
  });
});
