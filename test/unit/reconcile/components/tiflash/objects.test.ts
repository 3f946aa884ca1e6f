import { describe, expect, it } from '@jest/globals';

import { parse as parseToml } from 'smol-toml';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import { storeCapacityArg } from '../../../../../lib/reconcile/member/capacity.js';
import { TIFLASH_CONFIG_KEYS, tiflashConfigData } from '../../../../../lib/reconcile/components/tiflash/config-map.js';
import { TIFLASH_INIT_SCRIPT, tiflashClaimTemplates, tiflashImage, tiflashPodTemplate } from '../../../../../lib/reconcile/components/tiflash/pod-template.js';
import { tiflashPeerService } from '../../../../../lib/reconcile/components/tiflash/services.js';
import { tidbCluster } from '../../../../support/fixtures.js';
import { withTiflash } from '../../../../support/tiflash-rules.js';

const SELECTOR = {
  'app.kubernetes.io/name': 'tidb-cluster',
  'app.kubernetes.io/managed-by': 'tidb-operator',
  'app.kubernetes.io/instance': 'basic',
  'app.kubernetes.io/component': 'tiflash',
};
const twoDisks = withTiflash(2, {
  storageClaims: [{ resources: { requests: { storage: '100Gi' } }, storageClassName: 'gp3' }, { resources: { requests: { storage: '50Gi' } } }],
});
const toml = (text: string | undefined) => parseToml(text ?? '') as Record<string, any>;

describe('TiFlash objects as TiDB Operator v1 builds them', () => {
  it('the headless peer Service <tc>-tiflash-peer has ports tiflash, proxy, metrics and proxy-metrics', () => {
    // Act
    const svc = tiflashPeerService(tidbCluster(withTiflash(1)));
    // Assess
    expect(svc.metadata?.name).toBe('basic-tiflash-peer');
    expect(svc.metadata?.labels).toEqual({ ...SELECTOR, 'app.kubernetes.io/used-by': 'peer' });
    expect(svc.spec).toEqual({
      clusterIP: 'None',
      ports: [
        { name: 'tiflash', port: 3930, targetPort: 3930, protocol: 'TCP' },
        { name: 'proxy', port: 20170, targetPort: 20170, protocol: 'TCP' },
        { name: 'metrics', port: 8234, targetPort: 8234, protocol: 'TCP' },
        { name: 'proxy-metrics', port: 20292, targetPort: 20292, protocol: 'TCP' },
      ],
      selector: SELECTOR,
      publishNotReadyAddresses: true,
    });
  });

  it('one claim template data<i> per storage claim, each mounted at /data<i>', () => {
    // Prepare
    const tc = tidbCluster(twoDisks);
    // Act
    const claims = tiflashClaimTemplates(tc);
    const container = tiflashPodTemplate(tc, 'basic-tiflash').spec?.containers[0];
    // Assess
    expect(claims).toEqual([
      { metadata: { name: 'data0' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '100Gi' } }, storageClassName: 'gp3' } },
      { metadata: { name: 'data1' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50Gi' } } } },
    ]);
    expect(container?.volumeMounts).toEqual([
      { name: 'annotations', readOnly: true, mountPath: '/etc/podinfo' },
      { name: 'data0', mountPath: '/data0' },
      { name: 'data1', mountPath: '/data1' },
    ]);
  });

  it('the init container renders both templates into /data0; the tiflash container starts from there with v1 ports', () => {
    // Act
    const spec = tiflashPodTemplate(tidbCluster(withTiflash(1)), 'basic-tiflash').spec;
    // Assess
    expect(spec?.initContainers).toEqual([
      {
        name: 'init',
        image: 'busybox:1.26.2',
        command: ['sh', '-c', TIFLASH_INIT_SCRIPT],
        env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        volumeMounts: [
          { name: 'data0', mountPath: '/data0' },
          { name: 'config', readOnly: true, mountPath: '/etc/tiflash' },
        ],
      },
    ]);
    expect(TIFLASH_INIT_SCRIPT).toContain('/etc/tiflash/config_templ.toml > /data0/config.toml');
    expect(TIFLASH_INIT_SCRIPT).toContain('/etc/tiflash/proxy_templ.toml > /data0/proxy.toml');
    const container = spec?.containers[0];
    expect(container?.name).toBe('tiflash');
    expect(container?.image).toBe('pingcap/tiflash:v8.5.0');
    expect(container?.command).toEqual(['/bin/sh', '-c', '/tiflash/tiflash server --config-file /data0/config.toml']);
    expect(container?.ports?.map((p) => [p.name, p.containerPort])).toEqual([
      ['tiflash', 3930],
      ['proxy', 20170],
      ['tcp', 9000],
      ['http', 8123],
      ['internal', 9009],
      ['metrics', 8234],
    ]);
    expect(container?.env?.map((e) => e.name)).toEqual(['NAMESPACE', 'CLUSTER_NAME', 'HEADLESS_SERVICE_NAME', 'CAPACITY', 'TZ']);
    expect(spec?.volumes?.find((v) => v.name === 'config')).toEqual({ name: 'config', configMap: { name: 'basic-tiflash' } });
  });

  it('the ConfigMap holds config_templ.toml and proxy_templ.toml with v1 defaults under the user settings', () => {
    // Prepare
    const tc = tidbCluster(twoDisks, (t: TidbCluster) => ({
      ...t,
      spec: { ...t.spec, tiflash: { ...t.spec.tiflash, replicas: 2, storageClaims: t.spec.tiflash?.storageClaims ?? [], config: { config: { logger: { level: 'debug', log: '/tmp/x.log' } }, proxy: 'log-level = "warn"\n' } } },
    }));
    // Act
    const data = tiflashConfigData(tc);
    // Assess
    expect(Object.keys(data)).toEqual([TIFLASH_CONFIG_KEYS.config, TIFLASH_CONFIG_KEYS.proxy]);
    const config = toml(data[TIFLASH_CONFIG_KEYS.config]);
    expect(config.storage).toEqual({ main: { dir: ['/data0/db', '/data1/db'] }, raft: { dir: ['/data0/kvstore'] } });
    expect(config.logger).toEqual({ level: 'debug', log: '/tmp/x.log', errorlog: '/data0/logs/error.log' });
    expect(config.raft).toEqual({ pd_addr: 'basic-pd.demo.svc:2379' });
    expect(config.flash.proxy).toEqual({
      addr: '0.0.0.0:20170',
      'advertise-addr': 'basic-tiflash-POD_NUM.basic-tiflash-peer.demo.svc:20170',
      'data-dir': '/data0/proxy',
      config: '/data0/proxy.toml',
    });
    expect(config.tcp_port).toBeUndefined();
    const proxy = toml(data[TIFLASH_CONFIG_KEYS.proxy]);
    expect(proxy).toEqual({
      'log-level': 'warn',
      server: {
        'engine-addr': 'basic-tiflash-POD_NUM.basic-tiflash-peer.demo.svc:3930',
        'advertise-status-addr': 'basic-tiflash-POD_NUM.basic-tiflash-peer.demo.svc:20292',
        'status-addr': '0.0.0.0:20292',
      },
    });
  });

  it.each([
    { name: 'its own PD and TiDB', change: (spec: TidbCluster['spec']) => spec, pd: 'basic-pd.demo.svc:2379', tidb: 'basic-tidb.demo.svc:10080' },
    {
      name: "no PD of its own, spec.cluster names another: that one's PD, in the cluster's namespace",
      change: (spec: TidbCluster['spec']) => ({ ...spec, pd: undefined, cluster: { name: 'main' } }),
      pd: 'main-pd.demo.svc:2379',
      tidb: 'basic-tidb.demo.svc:10080',
    },
    {
      name: "no PD and no TiDB of its own: the other one's PD and TiDB, in its namespace and cluster domain",
      change: (spec: TidbCluster['spec']) => ({ ...spec, pd: undefined, tidb: undefined, cluster: { name: 'main', namespace: 'tidb', clusterDomain: 'cluster.local' } }),
      pd: 'main-pd.tidb.svc.cluster.local:2379',
      tidb: 'main-tidb.tidb.svc.cluster.local:10080',
    },
    { name: 'its own PD wins over spec.cluster', change: (spec: TidbCluster['spec']) => ({ ...spec, cluster: { name: 'main' } }), pd: 'basic-pd.demo.svc:2379', tidb: 'basic-tidb.demo.svc:10080' },
  ])('as TiDB Operator, raft.pd_addr and flash.tidb_status_addr: $name', ({ change, pd, tidb }) => {
    // Prepare
    const tc = tidbCluster(withTiflash(1), (t: TidbCluster) => ({ ...t, spec: change(t.spec) }));
    // Act
    const config = toml(tiflashConfigData(tc)[TIFLASH_CONFIG_KEYS.config]);
    // Assess
    expect([config.raft.pd_addr, config.flash.tidb_status_addr]).toEqual([pd, tidb]);
  });

  it.each([
    { name: 'before v7.1.0 the file keeps tcp_port and http_port', version: 'v6.5.0', ports: { tcp: 9000, http: 8123 } },
    { name: 'from v7.1.0 it does not', version: 'v7.1.0', ports: { tcp: undefined, http: undefined } },
  ])('$name', ({ version, ports }) => {
    const config = toml(tiflashConfigData(tidbCluster(withTiflash(1, { version })))[TIFLASH_CONFIG_KEYS.config]);
    expect([config.tcp_port, config.http_port]).toEqual([ports.tcp, ports.http]);
  });

  it.each([
    { name: 'the spec image wins', fields: { image: 'my/tiflash:x' }, image: 'my/tiflash:x' },
    { name: 'the component version wins over the cluster version', fields: { version: 'v7.5.0' }, image: 'pingcap/tiflash:v7.5.0' },
    { name: 'the cluster version otherwise', fields: {}, image: 'pingcap/tiflash:v8.5.0' },
  ])('image: $name', ({ fields, image }) => {
    expect(tiflashImage(tidbCluster(withTiflash(1, fields)))).toBe(image);
  });

  it.each([
    { limits: undefined, capacity: '0' },
    { limits: { storage: '100Gi' }, capacity: '100GB' },
    { limits: { storage: '1536Mi' }, capacity: '1536MB' },
    { limits: { cpu: '2' }, capacity: '0' },
  ])('CAPACITY from limits $limits is $capacity', ({ limits, capacity }) => {
    expect(storeCapacityArg(limits)).toBe(capacity);
  });
});
