import { describe, expect, it } from '@jest/globals';

import { VirtualClock } from '../../lib/platform/clock.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { readPodInfo } from '../../lib/sim/tidb/pod-info.js';

const TEMPLATE = 'tmp_path = "/data0/tmp"\n[raft]\npd_addr = "basic-pd.demo.svc:2379"\n';

type Mount = { name: string; mountPath: string };

/** A TiFlash pod as TiDB Operator builds it: the init container mounts the ConfigMap and data0, TiFlash only data0. */
function tiflashPod(o: { initMounts: Mount[]; mainMounts: Mount[] }): KubeObject {
  return {
    metadata: { name: 'hetero-tiflash-0', namespace: 'demo', labels: { 'app.kubernetes.io/instance': 'hetero' } },
    spec: {
      initContainers: [{ name: 'init', image: 'alpine:3.16.0', command: ['sh', '-c', 'sed s/POD_NUM/0/g /etc/tiflash/config_templ.toml > /data0/config.toml'], volumeMounts: o.initMounts }],
      containers: [{ name: 'tiflash', image: 'pingcap/tiflash:v8.5.0', command: ['/bin/sh', '-c', '/tiflash/tiflash server --config-file /data0/config.toml'], volumeMounts: o.mainMounts }],
      volumes: [
        { name: 'data0', emptyDir: {} },
        { name: 'scratch', emptyDir: {} },
        { name: 'config', configMap: { name: 'hetero-tiflash' } },
      ],
    },
  };
}

const DATA0 = { name: 'data0', mountPath: '/data0' };
const CONFIG = { name: 'config', mountPath: '/etc/tiflash' };

describe('a simulated process reads the config file that reaches its container', () => {
  it.each([
    { name: 'rendered by the init container into a volume both mount (TiFlash)', initMounts: [DATA0, CONFIG], mainMounts: [DATA0], config: { ok: { tmp_path: '/data0/tmp', raft: { pd_addr: 'basic-pd.demo.svc:2379' } } } },
    { name: 'mounted in the container itself', initMounts: [], mainMounts: [DATA0, CONFIG], config: { ok: { tmp_path: '/data0/tmp', raft: { pd_addr: 'basic-pd.demo.svc:2379' } } } },
    { name: 'not when the init container shares no volume with it', initMounts: [{ name: 'scratch', mountPath: '/scratch' }, CONFIG], mainMounts: [DATA0], config: { ok: {} } },
  ])('$name', ({ initMounts, mainMounts, config }) => {
    // Prepare
    const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
    store.create('Namespace', { metadata: { name: 'demo' } });
    store.create('ConfigMap', { metadata: { name: 'hetero-tiflash', namespace: 'demo' }, data: { 'config_templ.toml': TEMPLATE, 'proxy_templ.toml': '' } });
    const pod = store.create('Pod', tiflashPod({ initMounts, mainMounts }));
    // Act
    const info = readPodInfo(store, pod, 'tiflash');
    // Assess
    expect(info?.component).toBe('tiflash');
    expect(info?.config).toEqual(config);
  });
});
