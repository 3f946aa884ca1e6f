import { describe, expect, it } from '@jest/globals';

import { pdClusterOf } from '../../lib/sim/tidb/pd-address.js';
import type { PodInfo } from '../../lib/sim/tidb/pod-info.js';

const pod = (o: { command?: string[]; script?: string }): PodInfo =>
  ({ namespace: 'demo', name: 'hetero-tikv-0', cluster: 'hetero', component: 'tikv', config: { ok: {} }, container: { name: 'tikv', command: o.command ?? ['/bin/sh', '/usr/local/bin/tikv_start_script.sh'] }, startScript: o.script }) as unknown as PodInfo;
const tiflash = (config: PodInfo['config']): PodInfo =>
  ({ namespace: 'demo', name: 'hetero-tiflash-0', cluster: 'hetero', component: 'tiflash', config, container: { name: 'tiflash', command: ['/bin/sh', '-c', '/tiflash/tiflash server --config-file /data0/config.toml'] } }) as unknown as PodInfo;
const tiproxy = (config: PodInfo['config']): PodInfo =>
  ({ namespace: 'demo', name: 'hetero-tiproxy-0', cluster: 'hetero', component: 'tiproxy', config, container: { name: 'tiproxy', command: ['/bin/sh', '/etc/proxy/start.sh'] } }) as unknown as PodInfo;

describe('which PD a simulated process joins: the one its command line names', () => {
  it.each([
    { name: 'TiKV with ${CLUSTER_NAME}: its own cluster', p: pod({ script: 'ARGS="--pd=http://${CLUSTER_NAME}-pd:2379 \\\n --advertise-addr=…"' }), want: { namespace: 'demo', name: 'hetero' } },
    { name: "TiKV naming another cluster's PD service joins it", p: pod({ script: 'ARGS="--pd=http://basic-pd:2379 \\\n"' }), want: { namespace: 'demo', name: 'basic' } },
    { name: 'a PD in another namespace, by its service DNS name', p: pod({ script: '--pd=https://basic-pd.tidb.svc:2379' }), want: { namespace: 'tidb', name: 'basic' } },
    { name: 'TiDB --path, first of several addresses', p: pod({ command: ['/tidb-server', '--path=basic-pd:2379,other-pd:2379'] }), want: { namespace: 'demo', name: 'basic' } },
    { name: 'Pump -pd-urls', p: pod({ command: ['/pump', '-pd-urls=http://main-pd.ns2:2379'] }), want: { namespace: 'ns2', name: 'main' } },
    { name: 'no address: its own cluster', p: pod({ script: 'exec /tikv-server' }), want: { namespace: 'demo', name: 'hetero' } },
    { name: 'an address that is no PD service: its own cluster', p: pod({ script: '--pd=http://10.0.0.1:2379' }), want: { namespace: 'demo', name: 'hetero' } },
    { name: "TiFlash naming another cluster's PD in [raft] pd_addr joins it", p: tiflash({ ok: { raft: { pd_addr: 'basic-pd.demo.svc:2379' } } }), want: { namespace: 'demo', name: 'basic' } },
    { name: 'TiFlash pd_addr with a cluster domain and another namespace', p: tiflash({ ok: { raft: { pd_addr: 'basic-pd.tidb.svc.cluster.local:2379' } } }), want: { namespace: 'tidb', name: 'basic' } },
    { name: 'TiFlash without pd_addr: its own cluster', p: tiflash({ ok: {} }), want: { namespace: 'demo', name: 'hetero' } },
    { name: "TiProxy naming another cluster's PD in [proxy] pd-addrs joins it", p: tiproxy({ ok: { proxy: { 'pd-addrs': 'basic-pd:2379' } } }), want: { namespace: 'demo', name: 'basic' } },
    { name: 'TiProxy without pd-addrs: its own cluster', p: tiproxy({ ok: {} }), want: { namespace: 'demo', name: 'hetero' } },
  ])('$name', ({ p, want }) => {
    expect(pdClusterOf(p)).toEqual(want);
  });
});
