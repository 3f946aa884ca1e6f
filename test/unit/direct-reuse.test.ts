/**
 * A step at rest reaches components at the address their names last resolved to (docs/adr/0024):
 * every resolution is kept; `reusing()` connects to a kept address without asking the API server,
 * and when that address does not answer (its pod gone) the name is resolved afresh, once. Without
 * `reusing()` every call resolves, as before.
 */
import { describe, expect, it } from '@jest/globals';

import type { ClientCertificates } from '../../lib/components/client-certificates.js';
import { DirectHttp, ResolvedNames } from '../../lib/components/direct.js';
import type { ComponentNetwork, DialTarget } from '../../lib/components/network.js';
import { ComponentUnreachableError } from '../../lib/components/reach-errors.js';
import type { Endpoint } from '../../lib/components/transport.js';
import type { HttpAnswer, KubeHttp } from '../../lib/kube/http.js';

const PD: Endpoint = { type: 'service', namespace: 'demo', service: 'basic-pd', port: 2379 };
const TIDB: Endpoint = { type: 'pod', namespace: 'demo', pod: 'basic-tidb-0', subdomain: 'basic-tidb-peer', port: 10080 };

/** An API server answering Endpoints and Pods from `ips`, counting what it was asked. */
function apiServer(ips: { pd: string[]; tidb: string }) {
  const asked: string[] = [];
  const kube = {
    send: async (req: { path: string }): Promise<HttpAnswer> => {
      asked.push(req.path);
      if (req.path.includes('/endpoints/')) return { status: 200, text: JSON.stringify({ subsets: [{ addresses: ips.pd.map((ip) => ({ ip })), ports: [{ port: 2379 }] }] }) };
      return { status: 200, text: JSON.stringify({ status: { podIP: ips.tidb } }) };
    },
  } as unknown as KubeHttp;
  return { kube, asked };
}

/** A network where the `gone` addresses refuse, counting what was dialled. */
function network(gone: Set<string>) {
  const dialled: string[] = [];
  const net: ComponentNetwork = {
    exchange: async (target: DialTarget): Promise<HttpAnswer> => {
      dialled.push(target.ip);
      if (gone.has(target.ip)) throw new ComponentUnreachableError(`dial tcp ${target.ip}: connection refused`, 'refused');
      return { status: 200, text: '{}' };
    },
  };
  return { net, dialled };
}

const GET = { method: 'GET' as const, path: '/status' };
const noCertificates = {} as ClientCertificates;

describe('direct access reuses the last resolution at rest', () => {
  it('a reusing call asks the API server nothing for a name resolved before; a plain call always resolves', async () => {
    // Prepare
    const api = apiServer({ pd: ['10.0.0.1', '10.0.0.2'], tidb: '10.0.1.1' });
    const { net } = network(new Set());
    const http = new DirectHttp(api.kube, net, noCertificates, { random: () => 0 }, new ResolvedNames());
    await http.send(PD, GET, 1_000, 'read PD');
    await http.send(TIDB, GET, 1_000, 'read TiDB');
    const afterFull = api.asked.length;
    // Act
    await http.reusing().send(PD, GET, 1_000, 'read PD');
    await http.reusing().send(TIDB, GET, 1_000, 'read TiDB');
    const afterRest = api.asked.length;
    await http.send(PD, GET, 1_000, 'read PD');
    // Assess
    expect(afterFull).toBe(2);
    expect(afterRest).toBe(2);
    expect(api.asked.length).toBe(3);
  });

  it('a reusing call to a name never resolved resolves it', async () => {
    const api = apiServer({ pd: ['10.0.0.1'], tidb: '10.0.1.1' });
    const { net } = network(new Set());
    await new DirectHttp(api.kube, net, noCertificates).reusing().send(TIDB, GET, 1_000, 'read TiDB');
    expect(api.asked).toEqual(['/api/v1/namespaces/demo/pods/basic-tidb-0']);
  });

  it('a kept address that refuses is dropped and the name resolved afresh, once', async () => {
    // Prepare
    const ips = { pd: ['10.0.0.1'], tidb: '10.0.1.1' };
    const api = apiServer(ips);
    const gone = new Set<string>();
    const { net, dialled } = network(gone);
    const http = new DirectHttp(api.kube, net, noCertificates);
    await http.send(TIDB, GET, 1_000, 'read TiDB');
    // The pod was recreated with another IP.
    gone.add('10.0.1.1');
    ips.tidb = '10.0.1.9';
    // Act
    const answer = await http.reusing().send(TIDB, GET, 1_000, 'read TiDB');
    await http.reusing().send(TIDB, GET, 1_000, 'read TiDB');
    // Assess
    expect(answer.status).toBe(200);
    expect(dialled).toEqual(['10.0.1.1', '10.0.1.1', '10.0.1.9', '10.0.1.9']);
    expect(api.asked).toHaveLength(2);
  });

  it("another process's kept resolutions of one cluster, adopted, ask the API server nothing (docs/adr/0024)", async () => {
    // Prepare: one process resolves; only its cluster's names are handed on
    const api = apiServer({ pd: ['10.0.0.1'], tidb: '10.0.1.1' });
    const { net } = network(new Set());
    const first = new DirectHttp(api.kube, net, noCertificates, {}, new ResolvedNames());
    await first.send(PD, GET, 1_000, 'read PD');
    await first.send(TIDB, GET, 1_000, 'read TiDB');
    first.resolvedNames().set('other-pd.demo.svc:2379', ['10.9.9.9']);
    first.resolvedNames().set('basic-pd.elsewhere.svc:2379', ['10.9.9.8']);
    const handedOn = first.resolvedNames().ofCluster('demo', 'basic');
    const asked = api.asked.length;
    // Act: a fresh process adopts them and reads at rest
    const second = new DirectHttp(api.kube, net, noCertificates, {}, new ResolvedNames());
    second.resolvedNames().adopt(handedOn);
    await second.reusing().send(PD, GET, 1_000, 'read PD');
    await second.reusing().send(TIDB, GET, 1_000, 'read TiDB');
    // Assess
    expect(handedOn.map(([name]) => name).sort()).toEqual(['basic-pd.demo.svc:2379', 'basic-tidb-0.basic-tidb-peer.demo.svc:10080']);
    expect(api.asked.length).toBe(asked);
  });

  it('adopting never replaces what this process resolved itself', () => {
    const names = new ResolvedNames();
    names.set('basic-pd.demo.svc:2379', ['10.0.0.2']);
    names.adopt([['basic-pd.demo.svc:2379', ['10.0.0.1']], ['basic-tidb-0.basic-tidb-peer.demo.svc:10080', ['10.0.1.1']]]);
    expect([names.get('basic-pd.demo.svc:2379'), names.get('basic-tidb-0.basic-tidb-peer.demo.svc:10080')]).toEqual([['10.0.0.2'], ['10.0.1.1']]);
  });

  it('keeps at most its bound of names, the least recently used going first', () => {
    const names = new ResolvedNames(2);
    names.set('a', ['1']);
    names.set('b', ['2']);
    names.get('a');
    names.set('c', ['3']);
    expect([names.get('a'), names.get('b'), names.get('c')]).toEqual([['1'], undefined, ['3']]);
  });
});

describe("one invocation's calls resolve each name once (DirectHttp.scoped)", () => {
  it('six concurrent calls to PD in one scope read its Endpoints once; the next scope reads them afresh', async () => {
    // Prepare
    const api = apiServer({ pd: ['10.0.0.1', '10.0.0.2'], tidb: '10.0.1.1' });
    const { net } = network(new Set());
    const http = new DirectHttp(api.kube, net, noCertificates, { random: () => 0 }, new ResolvedNames());
    const step = http.scoped();
    // Act
    await Promise.all(Array.from({ length: 6 }, () => step.send(PD, GET, 1_000, 'read PD')));
    await step.send(TIDB, GET, 1_000, 'read TiDB');
    await step.send(TIDB, GET, 1_000, 'read TiDB');
    const inStep = [...api.asked];
    await http.scoped().send(PD, GET, 1_000, 'read PD');
    // Assess
    expect(inStep).toEqual(['/api/v1/namespaces/demo/endpoints/basic-pd', '/api/v1/namespaces/demo/pods/basic-tidb-0']);
    expect(api.asked.length).toBe(3);
  });

  it.each([
    { name: 'the first call failed', failFirst: true, want: 2 },
    { name: 'every call answered', failFirst: false, want: 1 },
  ])('after a call whose address refused, the scope resolves afresh ($name: $want Endpoints reads)', async ({ failFirst, want }) => {
    // Prepare: PD's only address refuses the first dial when failFirst.
    const api = apiServer({ pd: ['10.0.0.1'], tidb: '10.0.1.1' });
    const gone = new Set<string>(failFirst ? ['10.0.0.1'] : []);
    const { net } = network(gone);
    const step = new DirectHttp(api.kube, net, noCertificates, { random: () => 0 }).scoped();
    // Act
    const first = await step.send(PD, GET, 1_000, 'read PD').then(() => 'ok', (err: Error) => err.constructor.name);
    gone.clear();
    await step.send(PD, GET, 1_000, 'read PD');
    // Assess
    expect(first).toBe(failFirst ? 'ComponentUnreachableError' : 'ok');
    expect(api.asked.filter((p) => p.includes('/endpoints/')).length).toBe(want);
  });
});
