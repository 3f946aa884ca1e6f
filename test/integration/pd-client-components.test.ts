import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ComponentCaller } from '../../lib/components/caller.js';
import { TicdcClient } from '../../lib/components/ticdc.js';
import { TidbStatusClient } from '../../lib/components/tidb.js';
import { TikvStatusClient } from '../../lib/components/tikv.js';
import { NotFoundError, TransientError } from '../../lib/platform/errors.js';
import type { ProxyResponse } from '../../lib/sim/proxy.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

type Seen = { method: string; path: string; body: string };
/** A fake process behind the pod proxy: records requests, answers from `routes` (404 otherwise). */
type Fake = { seen: Seen[]; routes: Map<string, ProxyResponse | (() => Promise<ProxyResponse>)> };

/** A Running+Ready pod (status through the status subresource) with a fake process on `port`. */
function startPod(s: BareServer, name: string, port: number): Fake {
  const pod = s.store.create('Pod', { metadata: { name, namespace: 'demo' }, spec: { containers: [{ name: 'main', image: 'pingcap/x:v8.5.0' }] } });
  s.store.update('Pod', { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
  const fake: Fake = { seen: [], routes: new Map() };
  s.proxy.register('demo', name, port, async (req) => {
    fake.seen.push({ method: req.method, path: req.path, body: req.body });
    const route = fake.routes.get(`${req.method} ${req.path}`);
    if (route === undefined) return { status: 404, body: 'no route', contentType: 'text/plain' };
    return typeof route === 'function' ? route() : route;
  });
  return fake;
}

const ok = (text = ''): ProxyResponse => ({ status: 200, body: text });
const TARGET = { namespace: 'demo', tcName: 'basic' };

let s: BareServer;
let caller: ComponentCaller;
beforeEach(async () => {
  s = await startBareServer({ token: 'client-token' });
  caller = ComponentCaller.viaApiProxy(s.kubeConfig, { timeoutMs: 300 });
});
afterEach(async () => {
  await s.close();
});

describe('TiDB status port 10080', () => {
  it('getStatus reads /status of the named pod', async () => {
    const tidb = startPod(s, 'basic-tidb-0', 10080);
    tidb.routes.set('GET /status', ok('{"connections":3,"version":"8.0.11-TiDB-v8.5.0","git_hash":"abc"}'));
    const status = await new TidbStatusClient(caller, TARGET).getStatus('basic-tidb-0');
    expect(status).toEqual({ connections: 3, version: '8.0.11-TiDB-v8.5.0', gitHash: 'abc' });
    expect(tidb.seen).toEqual([{ method: 'GET', path: '/status', body: '' }]);
  });

  it.each([
    { name: 'an answer below 400 is healthy', route: ok('{}') as ProxyResponse | 'hang' | undefined, healthy: true },
    { name: 'a 500 is unhealthy', route: { status: 500, body: 'boom' }, healthy: false },
    { name: 'no process on the port (proxy 503) is unhealthy', route: undefined, healthy: false },
    { name: 'no answer within the timeout is unhealthy', route: 'hang' as const, healthy: false },
  ])('probe: $name', async ({ route, healthy }) => {
    if (route === undefined) {
      const pod = s.store.create('Pod', { metadata: { name: 'basic-tidb-0', namespace: 'demo' }, spec: { containers: [{ name: 'main', image: 'x' }] } });
      s.store.update('Pod', { ...pod, status: { phase: 'Running' } }, { subresource: 'status' });
    } else {
      const tidb = startPod(s, 'basic-tidb-0', 10080);
      tidb.routes.set('GET /status', route === 'hang' ? () => new Promise<ProxyResponse>(() => undefined) : route);
    }
    const verdict = await new TidbStatusClient(caller, TARGET).probe('basic-tidb-0');
    expect(verdict.healthy).toBe(healthy);
  });

  it('probe throws instead of blaming TiDB when the API server itself is unreachable', async () => {
    const unreachable = new KubeConfig();
    unreachable.loadFromOptions({
      clusters: [{ name: 'gone', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'gone', cluster: 'gone', user: 'u' }],
      currentContext: 'gone',
    });
    const probe = new TidbStatusClient(ComponentCaller.viaApiProxy(unreachable, { timeoutMs: 2000 }), TARGET).probe('basic-tidb-0');
    await expect(probe).rejects.toBeInstanceOf(TransientError);
  });
});

describe('TiKV status port 20180', () => {
  const METRICS = ['# HELP tikv_raftstore_region_count Number of regions', 'tikv_raftstore_region_count{type="region"} 30', 'tikv_raftstore_region_count{type="leader"} 12', ''].join('\n');

  it('the leader count is the leader sample of /metrics', async () => {
    const tikv = startPod(s, 'basic-tikv-0', 20180);
    tikv.routes.set('GET /metrics', { status: 200, body: METRICS, contentType: 'text/plain' });
    expect(await new TikvStatusClient(caller, TARGET).getLeaderCount('basic-tikv-0')).toBe(12);
  });

  it('a TiKV without the sample yet is a TransientError', async () => {
    const tikv = startPod(s, 'basic-tikv-0', 20180);
    tikv.routes.set('GET /metrics', { status: 200, body: '# starting\n', contentType: 'text/plain' });
    await expect(new TikvStatusClient(caller, TARGET).getLeaderCount('basic-tikv-0')).rejects.toBeInstanceOf(TransientError);
  });
});

describe('TiCDC port 8301', () => {
  it('status, captures, drain and resign use the paths and bodies TiDB Operator uses', async () => {
    const cdc = startPod(s, 'basic-ticdc-0', 8301);
    cdc.routes.set('GET /status', ok('{"version":"v8.5.0","git_hash":"h","id":"cap-0","pid":1,"is_owner":true}'));
    cdc.routes.set('GET /api/v1/captures', ok('[{"id":"cap-0","is_owner":true,"address":"basic-ticdc-0:8301"},{"id":"cap-1","is_owner":false,"address":"basic-ticdc-1:8301"}]'));
    cdc.routes.set('PUT /api/v1/captures/drain', { status: 202, body: '{"current_table_count":3}' });
    cdc.routes.set('POST /api/v1/owner/resign', { status: 202, body: '' });
    const ticdc = new TicdcClient(caller, TARGET);
    expect(await ticdc.getStatus('basic-ticdc-0')).toEqual({ id: 'cap-0', isOwner: true, address: '', version: 'v8.5.0' });
    expect((await ticdc.getCaptures('basic-ticdc-0')).map((c) => [c.id, c.isOwner])).toEqual([['cap-0', true], ['cap-1', false]]);
    expect(await ticdc.drainCapture('basic-ticdc-0', 'cap-1')).toBe(3);
    await ticdc.resignOwner('basic-ticdc-0');
    expect(cdc.seen.slice(2)).toEqual([
      { method: 'PUT', path: '/api/v1/captures/drain', body: '{"capture_id":"cap-1"}' },
      { method: 'POST', path: '/api/v1/owner/resign', body: '' },
    ]);
  });

  it.each([
    { name: 'a 200 from the owner is healthy', status: 200, healthy: true },
    { name: 'a 500 from the owner is unhealthy', status: 500, healthy: false },
  ])('health: $name', async ({ status, healthy }) => {
    const cdc = startPod(s, 'basic-ticdc-0', 8301);
    cdc.routes.set('GET /api/v1/health', { status, body: '' });
    expect(await new TicdcClient(caller, TARGET).isHealthy('basic-ticdc-0')).toBe(healthy);
  });

  it('a pod that does not exist is NotFoundError (the API server 404)', async () => {
    await expect(new TicdcClient(caller, TARGET).getStatus('basic-ticdc-9')).rejects.toBeInstanceOf(NotFoundError);
  });
});
