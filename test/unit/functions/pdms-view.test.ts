import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../lib/model/kube.js';
import type { PdView } from '../../../lib/model/pd.js';
import type { PdMsMember, PdPort } from '../../../lib/pd/port.js';
import { pdmsServicesOf, withPdms } from '../../../lib/wiring/pdms-view.js';
import { tidbCluster, withSpec, withStatus } from '../../support/fixtures.js';

const VIEW: PdView = { members: [], leader: undefined, stores: [], bootstrapped: false, schedulers: [], storesRead: false };

/** A PD answering the ms routes from `servers` (a service absent: PD refuses it), recording the calls. */
function fakePd(servers: Record<string, PdMsMember[]>, calls: string[]): PdPort {
  const known = (service: string): PdMsMember[] => {
    const found = servers[service];
    if (found === undefined) throw new Error('HTTP 404: "not support micro service"');
    return found;
  };
  return {
    getMsMembers: async (service: string) => (calls.push(`members ${service}`), known(service)),
    getMsPrimary: async (service: string) => (calls.push(`primary ${service}`), known(service)[0]?.serviceAddr ?? ''),
  } as unknown as PdPort;
}

const ms = (mode: '' | 'ms' | undefined, phase?: string) => {
  const tc = tidbCluster(withSpec({ pd: { baseImage: 'pingcap/pd', replicas: 1, ...(mode === undefined ? {} : { mode }) }, pdms: [{ name: 'tso', replicas: 2 }, { name: 'scheduling', replicas: 1 }] }));
  return phase === undefined ? tc : withStatus({ pdms: { tso: { name: 'tso', phase } } })(tc);
};
const server = (name: string): PdMsMember => ({ name, serviceAddr: `http://${name}.basic-tso-peer.demo.svc:2379` });

describe('reading the PD microservices into the PD view', () => {
  it.each([
    { name: 'PD not in mode ms: nothing read', tc: ms(undefined), servers: { tso: [server('basic-tso-0')] }, calls: [], view: undefined },
    {
      name: "mode ms at rest: each service's servers, no primary",
      tc: ms('ms'),
      servers: { tso: [server('basic-tso-0')], scheduling: [] },
      calls: ['members scheduling', 'members tso'],
      view: { tso: { members: [server('basic-tso-0')] }, scheduling: { members: [] } },
    },
    {
      name: 'a service upgrading: its primary too',
      tc: ms('ms', 'Upgrade'),
      servers: { tso: [server('basic-tso-0')], scheduling: [] },
      calls: ['members scheduling', 'members tso', 'primary tso'],
      view: { tso: { members: [server('basic-tso-0')], primary: server('basic-tso-0').serviceAddr }, scheduling: { members: [] } },
    },
    {
      name: "a refused read is kept as that service's error, the other still read",
      tc: ms('ms'),
      servers: { tso: [server('basic-tso-0')] },
      calls: ['members scheduling', 'members tso'],
      view: { tso: { members: [server('basic-tso-0')] }, scheduling: { error: 'HTTP 404: "not support micro service"' } },
    },
  ] as { name: string; tc: TidbCluster; servers: Record<string, PdMsMember[]>; calls: string[]; view: PdView['microservices'] }[])('$name', async ({ tc, servers, calls, view }) => {
    // Prepare
    const made: string[] = [];
    // Act
    const read = await withPdms(VIEW, fakePd(servers, made), tc);
    // Assess
    expect(made.sort()).toEqual(calls);
    expect(read.microservices).toEqual(view);
  });

  it('the services are the spec order of spec.pdms, and none without mode ms', () => {
    expect(pdmsServicesOf(ms('ms'))).toEqual(['tso', 'scheduling']);
    expect(pdmsServicesOf(ms(''))).toEqual([]);
  });
});
