/**
 * PD microservices as the simulated PD keeps and answers them, checked against tikv/pd release-8.5
 * (`server/apiv2/handlers/micro_service.go`, `pkg/mcs/discovery`, `pkg/mcs/utils/expected_primary.go`):
 * the ms routes answer only PD running as the API service, list registered servers (Go's `null`
 * when none), name the primary's address; a transfer refuses a lone server or an unknown name and
 * hands the primary to the named server only; PD as the API service serves timestamps only while
 * the tso service has a primary.
 */
import { describe, expect, it } from '@jest/globals';

import { PdMicroservices } from '../../lib/sim/tidb/pd-microservices.js';
import { startCluster } from './tidb-pd-harness.js';

const entry = (name: string) => ({ name, serviceAddr: `http://${name}.basic-tso-peer.demo.svc:2379`, version: 'v8.5.0', startTimestamp: 1 });

describe("PD's ms routes", () => {
  it.each([
    { name: 'plain PD: members 404 "not support micro service"', api: false, servers: ['basic-tso-0'], path: '/pd/api/v2/ms/members/tso', status: 404, json: 'not support micro service' },
    { name: 'plain PD: primary 404 too', api: false, servers: ['basic-tso-0'], path: '/pd/api/v2/ms/primary/tso', status: 404, json: 'not support micro service' },
    { name: 'API service without servers: members is null', api: true, servers: [], path: '/pd/api/v2/ms/members/tso', status: 200, json: null },
    { name: 'API service: the registered servers', api: true, servers: ['basic-tso-0'], path: '/pd/api/v2/ms/members/tso', status: 200, json: [{ name: 'basic-tso-0', 'service-addr': entry('basic-tso-0').serviceAddr, version: 'v8.5.0', 'git-hash': '', 'deploy-path': '/', 'start-timestamp': 1 }] },
    { name: 'API service: the primary address', api: true, servers: ['basic-tso-0'], path: '/pd/api/v2/ms/primary/tso', status: 200, json: entry('basic-tso-0').serviceAddr },
    { name: 'API service without a primary: an empty string', api: true, servers: [], path: '/pd/api/v2/ms/primary/tso', status: 200, json: '' },
    { name: 'an unknown service: 500', api: true, servers: [], path: '/pd/api/v2/ms/members/router', status: 500, json: 'unknown service name router' },
  ])('$name', async ({ api, servers, path, status, json }) => {
    // Prepare
    const { pd, members, call } = await startCluster({ version: 'v8.5.0' });
    for (const m of members) m.apiService = api;
    for (const s of servers) {
      pd.microservices.register('tso', entry(s));
      pd.microservices.campaign('tso', s);
    }
    // Act
    const reply = call('GET', path);
    // Assess
    expect(reply.status).toBe(status);
    expect(JSON.parse(reply.body)).toEqual(json);
  });

  it('PD as the API service serves timestamps only while tso has a primary', async () => {
    const { pd, members } = await startCluster({ version: 'v8.5.0' });
    expect(pd.isTsoServed()).toBe(true);
    for (const m of members) m.apiService = true;
    expect(pd.isTsoServed()).toBe(false);
    pd.microservices.register('tso', entry('basic-tso-0'));
    pd.microservices.campaign('tso', 'basic-tso-0');
    expect(pd.isTsoServed()).toBe(true);
    pd.microservices.leave('tso', 'basic-tso-0');
    expect(pd.isTsoServed()).toBe(false);
  });
});

describe('primary election and transfer', () => {
  const registry = (...names: string[]) => {
    const ms = new PdMicroservices(() => undefined);
    for (const n of names) ms.register('tso', entry(n));
    ms.campaign('tso', names[0] ?? '');
    return ms;
  };
  it.each([
    { name: 'a lone server cannot hand the primary on', servers: ['basic-tso-0'], to: 'basic-tso-1', refused: 'no valid secondary to transfer primary, the only member is basic-tso-0' },
    { name: 'an unknown name is refused', servers: ['basic-tso-0', 'basic-tso-1'], to: 'basic-tso-9', refused: 'no valid secondary to transfer primary, from basic-tso-0 to basic-tso-9' },
    { name: 'the named server is expected: only it takes the primary', servers: ['basic-tso-0', 'basic-tso-1', 'basic-tso-2'], to: 'basic-tso-2', refused: undefined },
  ])('$name', ({ servers, to, refused }) => {
    // Prepare
    const ms = registry(...servers);
    // Act
    const result = ms.transfer('tso', to);
    // Assess
    if (refused !== undefined) {
      expect(result).toEqual({ refused: { status: 500, message: refused } });
      expect(ms.primary('tso')?.name).toBe('basic-tso-0');
      return;
    }
    expect(result).toEqual({ ok: true });
    expect(ms.primary('tso')).toBeUndefined();
    expect(ms.campaign('tso', 'basic-tso-1')).toBe(false);
    expect(ms.campaign('tso', to)).toBe(true);
    expect(ms.primary('tso')?.name).toBe(to);
  });
});
