import { describe, expect, it } from '@jest/globals';

import type { IContainer } from 'kubernetes-models/v1/Container';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import { tikvConfigData } from '../../../../../lib/reconcile/components/tikv/config-map.js';
import { tikvCapacity, tikvClaimTemplates, tikvImage, tikvPodTemplate } from '../../../../../lib/reconcile/components/tikv/pod-template.js';
import { tikvPeerService } from '../../../../../lib/reconcile/components/tikv/services.js';
import { changeSpec, ruleInputOf, snapshot, tidbCluster, withCluster, type Change } from '../../../../support/fixtures.js';
import { tikvInputOf } from '../../../../support/tikv-rules.js';

const SELECTOR = {
  'app.kubernetes.io/name': 'tidb-cluster',
  'app.kubernetes.io/managed-by': 'tidb-operator',
  'app.kubernetes.io/instance': 'basic',
  'app.kubernetes.io/component': 'tikv',
};

type TikvSpec = NonNullable<TidbCluster['spec']['tikv']>;
const tikvSpec = (change: Partial<TikvSpec>): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, tikv: { replicas: 3, ...spec.tikv, ...change } }));
const clusterSpec = (change: Partial<TidbCluster['spec']>): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, ...change }));
const containers = (tc: TidbCluster): IContainer[] => tikvPodTemplate(tc, 'basic-tikv').spec?.containers ?? [];
const tikvContainer = (tc: TidbCluster): IContainer | undefined => containers(tc).find((c) => c.name === 'tikv');

describe('TiKV objects: names, labels, ports as TiDB Operator v1 (§2.2)', () => {
  it('builds the headless peer Service <tc>-tikv-peer, port peer 20160, publishing not-ready addresses', () => {
    // Act
    const svc = tikvPeerService(tidbCluster());

    // Assess
    expect(svc.metadata?.name).toBe('basic-tikv-peer');
    expect(svc.metadata?.labels).toEqual({ ...SELECTOR, 'app.kubernetes.io/used-by': 'peer' });
    expect(svc.spec).toEqual({
      clusterIP: 'None',
      ports: [{ name: 'peer', port: 20160, targetPort: 20160, protocol: 'TCP' }],
      selector: SELECTOR,
      publishNotReadyAddresses: true,
    });
  });

  it.each([
    { name: 'InPlace (the default) names the ConfigMap <tc>-tikv', tc: tidbCluster(), configMap: 'basic-tikv' },
    { name: 'RollingUpdate names it by content, <tc>-tikv-<7 hex>', tc: tidbCluster(clusterSpec({ configUpdateStrategy: 'RollingUpdate' })), configMap: /^basic-tikv-[0-9a-f]{7}$/ },
  ])('$name', ({ tc, configMap }) => {
    // Act
    const plan = tikvInputOf(ruleInputOf(snapshot(withCluster(tc)))).scope.configMap();

    // Assess
    expect(plan.configMap.metadata?.name).toEqual(typeof configMap === 'string' ? configMap : expect.stringMatching(configMap));
    expect(Object.keys(plan.configMap.data ?? {})).toEqual(['config-file', 'startup-script']);
  });

  it.each([
    { name: 'the user config is rendered as tikv.toml', tc: tidbCluster(tikvSpec({ config: { storage: { 'reserve-space': '0MB' } } })), has: ['[storage]', 'reserve-space = "0MB"'], lacks: ['[security]'] },
    { name: 'cluster TLS points [security] at /var/lib/tikv-tls', tc: tidbCluster(clusterSpec({ tlsCluster: { enabled: true } })), has: ['ca-path = "/var/lib/tikv-tls/ca.crt"', 'cert-path = "/var/lib/tikv-tls/tls.crt"', 'key-path = "/var/lib/tikv-tls/tls.key"'], lacks: [] },
  ])('config-file: $name', ({ tc, has, lacks }) => {
    // Act
    const toml = tikvConfigData(tc)['config-file'] ?? '';

    // Assess
    for (const text of has) expect(toml).toContain(text);
    for (const text of lacks) expect(toml).not.toContain(text);
  });

  it.each([
    { name: 'PD through the cluster own client Service', tc: tidbCluster(), has: ['--pd=http://${CLUSTER_NAME}-pd:2379', '--advertise-addr=${POD_NAME}.${HEADLESS_SERVICE_NAME}.${NAMESPACE}.svc:20160', '--addr=0.0.0.0:20160', '--status-addr=0.0.0.0:20180', '--data-dir=/var/lib/tikv \\', '--capacity=${CAPACITY}', '--config=/etc/tikv/tikv.toml'] },
    { name: 'https with cluster TLS', tc: tidbCluster(clusterSpec({ tlsCluster: { enabled: true } })), has: ['--pd=https://${CLUSTER_NAME}-pd:2379'] },
    { name: 'the cluster domain in the advertised address', tc: tidbCluster(clusterSpec({ clusterDomain: 'cluster.local' })), has: ['.svc.cluster.local:20160'] },
    { name: 'a data sub-directory', tc: tidbCluster(tikvSpec({ dataSubDir: 'data' })), has: ['--data-dir=/var/lib/tikv/data'] },
    { name: 'the reference cluster PD when the cluster has none', tc: tidbCluster(clusterSpec({ pd: undefined, cluster: { name: 'main' } })), has: ['--pd=http://main-pd:2379'] },
  ])('startup-script: $name', ({ tc, has }) => {
    // Act
    const script = tikvConfigData(tc)['startup-script'] ?? '';

    // Assess
    for (const text of has) expect(script).toContain(text);
  });

  it.each([
    { name: 'unset → 0 (no limit)', storage: undefined, capacity: '0' },
    { name: 'whole GiB → GB', storage: '100Gi', capacity: '100GB' },
    { name: 'otherwise whole MiB → MB', storage: '1536Mi', capacity: '1536MB' },
    { name: 'decimal units count in bytes', storage: '1G', capacity: '953MB' },
  ])('CAPACITY from spec.tikv.limits.storage, as v1 TiKVCapacity: $name', ({ storage, capacity }) => {
    // Prepare
    const tc = tidbCluster(tikvSpec(storage === undefined ? {} : { limits: { storage } }));

    // Act / Assess
    expect(tikvCapacity(tc)).toBe(capacity);
  });

  it('the tikv container: start script, env, port server 20160, data at /var/lib/tikv, config and script from the ConfigMap', () => {
    // Prepare
    const tc = tidbCluster(tikvSpec({ limits: { storage: '10Gi' } }), clusterSpec({ timezone: 'Asia/Shanghai' }));

    // Act
    const template = tikvPodTemplate(tc, 'basic-tikv-abc1234');
    const container = template.spec?.containers.find((c) => c.name === 'tikv');

    // Assess
    expect(container?.image).toBe('pingcap/tikv:v8.5.0');
    expect(container?.command).toEqual(['/bin/sh', '/usr/local/bin/tikv_start_script.sh']);
    expect(container?.ports).toEqual([{ name: 'server', containerPort: 20160, protocol: 'TCP' }]);
    expect(container?.env).toEqual([
      { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'CLUSTER_NAME', value: 'basic' },
      { name: 'HEADLESS_SERVICE_NAME', value: 'basic-tikv-peer' },
      { name: 'CAPACITY', value: '10GB' },
      { name: 'TZ', value: 'Asia/Shanghai' },
    ]);
    expect(container?.volumeMounts).toEqual([
      { name: 'annotations', readOnly: true, mountPath: '/etc/podinfo' },
      { name: 'tikv', mountPath: '/var/lib/tikv' },
      { name: 'config', readOnly: true, mountPath: '/etc/tikv' },
      { name: 'startup-script', readOnly: true, mountPath: '/usr/local/bin' },
    ]);
    expect(template.spec?.volumes?.map((v) => [v.name, v.configMap?.items?.[0]?.path])).toEqual([
      ['annotations', undefined],
      ['config', 'tikv.toml'],
      ['startup-script', 'tikv_start_script.sh'],
    ]);
    expect(template.spec?.volumes?.[1]?.configMap?.name).toBe('basic-tikv-abc1234');
    expect(template.metadata?.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': '20180' });
    expect(template.metadata?.labels).toEqual(SELECTOR);
  });

  it.each([
    { name: 'no sidecar unless asked', tc: tidbCluster(), names: ['tikv'] },
    { name: 'separateRocksDBLog adds rocksdblog tailing the data volume', tc: tidbCluster(tikvSpec({ separateRocksDBLog: true })), names: ['rocksdblog', 'tikv'] },
    { name: 'both log tailers', tc: tidbCluster(tikvSpec({ separateRocksDBLog: true, separateRaftLog: true })), names: ['rocksdblog', 'raftlog', 'tikv'] },
  ])('sidecars: $name', ({ tc, names }) => {
    // Act / Assess
    expect(containers(tc).map((c) => c.name)).toEqual(names);
  });

  it('a log tailer reads its file on the data volume with the helper image', () => {
    // Act
    const tailer = containers(tidbCluster(tikvSpec({ separateRaftLog: true }))).find((c) => c.name === 'raftlog');

    // Assess
    expect(tailer).toEqual({
      name: 'raftlog',
      image: 'busybox:1.34.1',
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      volumeMounts: [{ name: 'tikv', mountPath: '/var/lib/tikv' }],
      command: ['sh', '-c', 'touch /var/lib/tikv/raftdb.info; tail -n0 -F /var/lib/tikv/raftdb.info;'],
    });
  });

  it.each([
    { name: 'the named status port', tc: tidbCluster(tikvSpec({ enableNamedStatusPort: true })), ports: ['server', 'status'] },
    { name: 'host network adds POD_NAME', tc: tidbCluster(tikvSpec({ hostNetwork: true })), ports: ['server'] },
  ])('container options: $name', ({ tc, ports }) => {
    // Act
    const container = tikvContainer(tc);

    // Assess
    expect(container?.ports?.map((p) => p.name)).toEqual(ports);
    const podName = container?.env?.some((e) => e.name === 'POD_NAME');
    expect(podName).toBe(tc.spec.tikv?.hostNetwork === true);
  });

  it('the claim template tikv takes spec.tikv.requests.storage and the storage class; image from baseImage and version', () => {
    // Prepare
    const tc = tidbCluster(tikvSpec({ requests: { storage: '20Gi', cpu: '1' }, storageClassName: 'gp3', version: 'v8.1.0' }));

    // Act
    const claims = tikvClaimTemplates(tc);

    // Assess
    expect(claims).toEqual([{ metadata: { name: 'tikv' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } }, storageClassName: 'gp3' } }]);
    expect(tikvImage(tc)).toBe('pingcap/tikv:v8.1.0');
    expect(tikvContainer(tc)?.resources).toEqual({ requests: { cpu: '1' } });
  });
});
