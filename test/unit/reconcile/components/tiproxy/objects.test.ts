import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import { parse as parseToml } from 'smol-toml';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import { tiproxyConfigData } from '../../../../../lib/reconcile/components/tiproxy/config-map.js';
import { tiproxyImage, tiproxyTlsWiring } from '../../../../../lib/reconcile/components/tiproxy/pod-template.js';
import { tiproxyRules } from '../../../../../lib/reconcile/components/tiproxy/recipe.js';
import { tiproxyStartScript } from '../../../../../lib/reconcile/components/tiproxy/start-script.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { snapshot, tidbCluster, withCluster, withSpec, type Change } from '../../../../support/fixtures.js';

const tiproxy = (extra: Record<string, unknown> = {}): Change<TidbCluster> => withSpec({ tiproxy: { baseImage: 'pingcap/tiproxy', version: 'v1.2.0', replicas: 2, ...extra } });
const clusterTls: Change<TidbCluster> = withSpec({ tlsCluster: { enabled: true } });
const tidbTls: Change<TidbCluster> = (tc) => ({ ...tc, spec: { ...tc.spec, tidb: { ...tc.spec.tidb, replicas: tc.spec.tidb?.replicas ?? 1, tlsClient: { enabled: true } } } });
const annotated =
  (annotations: Record<string, string>): Change<TidbCluster> =>
  (tc) => ({ ...tc, metadata: { ...tc.metadata, annotations } });
const proxyToml = (tc: TidbCluster): Record<string, unknown> => parseToml(tiproxyConfigData(tc)['config-file'] ?? '') as Record<string, unknown>;

describe('TiProxy objects, as TiDB Operator v1.6 builds them', () => {
  it('the first step writes the NodePort and headless Services, the ConfigMap and a partitioned StatefulSet', () => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(tiproxy()))), tiproxyRules);
    // Assess
    const created = plan.actions.flatMap((a) => (a.kind === 'create' ? [a.object] : []));
    expect(created.map((o) => `${o.kind}/${o.metadata.name ?? ''}`)).toEqual(['Service/basic-tiproxy', 'Service/basic-tiproxy-peer', 'ConfigMap/basic-tiproxy', 'StatefulSet/basic-tiproxy']);
    const [client, peer, cm, sts] = created as unknown as [IService, IService, IConfigMap, IStatefulSet];
    expect(client.spec).toMatchObject({ type: 'NodePort', publishNotReadyAddresses: true, ports: [{ name: 'tiproxy-api', port: 3080 }, { name: 'tiproxy-sql', port: 6000 }] });
    expect(client.metadata?.labels?.['app.kubernetes.io/used-by']).toBe('end-user');
    expect(peer.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true, ports: [{ name: 'tiproxy-api', port: 3080 }, { name: 'tiproxy-peer', port: 3081 }] });
    expect(Object.keys(cm.data ?? {})).toEqual(['config-file', 'startup-script']);
    expect(sts.spec).toMatchObject({ replicas: 2, serviceName: 'basic-tiproxy-peer', podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
    expect(sts.spec?.volumeClaimTemplates ?? []).toEqual([]);
    const pod = sts.spec?.template;
    expect(pod?.metadata?.annotations).toMatchObject({ 'prometheus.io/port': '3080', 'prometheus.io/path': '/api/metrics' });
    expect(pod?.spec?.containers[0]).toMatchObject({
      name: 'tiproxy',
      image: 'pingcap/tiproxy:v1.2.0',
      command: ['/bin/sh', '/etc/proxy/start.sh'],
      ports: [{ name: 'tiproxy', containerPort: 6000 }, { name: 'tiproxy-api', containerPort: 3080 }, { name: 'tiproxy-peer', containerPort: 3081 }],
    });
    expect(pod?.spec?.volumes?.[0]).toEqual({ name: 'config', configMap: { name: cm.metadata?.name, items: [{ key: 'config-file', path: 'proxy.toml' }, { key: 'startup-script', path: 'start.sh' }] } });
  });

  it.each([
    { name: 'the component version tags the base image', tc: tidbCluster(tiproxy()), want: 'pingcap/tiproxy:v1.2.0' },
    { name: 'without its own version, the cluster version', tc: tidbCluster(tiproxy({ version: undefined })), want: 'pingcap/tiproxy:v8.5.0' },
    { name: 'a base image wins over image, as v1', tc: tidbCluster(tiproxy({ image: 'mine/proxy:x' })), want: 'pingcap/tiproxy:v1.2.0' },
    { name: 'an empty base image: image', tc: tidbCluster(tiproxy({ baseImage: '', image: 'mine/proxy:x' })), want: 'mine/proxy:x' },
  ])('image: $name', ({ tc, want }) => {
    expect(tiproxyImage(tc)).toBe(want);
  });
});

describe('proxy.toml: the keys v1 sets over the user config', () => {
  it.each([
    {
      name: 'plain: workdir, pd-addrs and require-backend-tls; the user keys kept; no security',
      tc: tidbCluster(tiproxy({ config: { proxy: { 'max-connections': 10 } } })),
      want: { workdir: '/var/lib/tiproxy/work', proxy: { 'max-connections': 10, 'pd-addrs': 'basic-pd:2379', 'require-backend-tls': false } },
    },
    {
      name: 'a user require-backend-tls is kept',
      tc: tidbCluster(tiproxy({ config: 'proxy.require-backend-tls = true\n' })),
      want: { proxy: { 'require-backend-tls': true } },
    },
    {
      name: 'a cluster on another one\'s PD names that PD',
      tc: tidbCluster(tiproxy(), withSpec({ pd: undefined, cluster: { name: 'main' } })),
      want: { proxy: { 'pd-addrs': 'main-pd:2379' } },
    },
    {
      name: 'legacy layout, cluster TLS: cluster-tls from the client secret, the HTTP API on its own certificate',
      tc: tidbCluster(tiproxy(), clusterTls),
      want: {
        security: {
          'cluster-tls': { ca: '/var/lib/cluster-client-tls/ca.crt', cert: '/var/lib/cluster-client-tls/tls.crt', key: '/var/lib/cluster-client-tls/tls.key' },
          'server-http-tls': { ca: '/var/lib/tiproxy-http-server-tls/ca.crt', cert: '/var/lib/tiproxy-http-server-tls/tls.crt', key: '/var/lib/tiproxy-http-server-tls/tls.key', 'skip-ca': true },
        },
      },
    },
    {
      name: 'legacy layout, TiDB client TLS: server and SQL TLS, the HTTP API on the TiDB server certificate',
      tc: tidbCluster(tiproxy(), tidbTls),
      want: {
        security: {
          'server-tls': { ca: '/var/lib/tiproxy-server-tls/ca.crt', cert: '/var/lib/tiproxy-server-tls/tls.crt', key: '/var/lib/tiproxy-server-tls/tls.key', 'skip-ca': true },
          'sql-tls': { ca: '/var/lib/tiproxy-sql-tls/ca.crt', cert: '/var/lib/tiproxy-sql-tls/tls.crt', key: '/var/lib/tiproxy-sql-tls/tls.key' },
          'server-http-tls': { ca: '/var/lib/tiproxy-server-tls/ca.crt', 'skip-ca': true },
        },
      },
    },
    {
      name: 'legacy layout, TiDB client TLS with the skip annotation: no SQL TLS towards TiDB',
      tc: tidbCluster(tiproxy(), tidbTls, annotated({ 'tidb.tidb.pingcap.com/skip-tls-when-connect-tidb': '' })),
      want: { security: { 'server-tls': { 'skip-ca': true } } },
      absent: 'sql-tls',
    },
    {
      name: 'layout v1, cluster TLS: the cluster certificate for both cluster-tls and the HTTP API',
      tc: tidbCluster(tiproxy({ certLayout: 'v1' }), clusterTls),
      want: {
        security: {
          'cluster-tls': { ca: '/var/lib/tiproxy-tls/ca.crt', cert: '/var/lib/tiproxy-tls/tls.crt', key: '/var/lib/tiproxy-tls/tls.key' },
          'server-http-tls': { ca: '/var/lib/tiproxy-tls/ca.crt', cert: '/var/lib/tiproxy-tls/tls.crt', key: '/var/lib/tiproxy-tls/tls.key', 'skip-ca': true },
        },
      },
    },
  ])('$name', ({ tc, want, absent }) => {
    // Act
    const doc = proxyToml(tc);
    // Assess
    expect(doc).toMatchObject(want);
    if (absent !== undefined) expect(Object.keys((doc.security ?? {}) as object)).not.toContain(absent);
    if (!JSON.stringify(want).includes('security')) expect(doc.security).toBeUndefined();
  });
});

describe('certificates mounted per layout', () => {
  it.each([
    { name: 'no TLS: none', tc: tidbCluster(tiproxy()), want: [] },
    { name: 'legacy, cluster TLS', tc: tidbCluster(tiproxy(), clusterTls), want: ['cluster-client-tls=basic-cluster-client-secret@/var/lib/cluster-client-tls', 'tiproxy-tls=basic-tiproxy-cluster-secret@/var/lib/tiproxy-http-server-tls'] },
    {
      name: 'legacy, TiDB client TLS with its own client secret',
      tc: tidbCluster(tiproxy({ tlsClientSecretName: 'proxy-client' }), tidbTls),
      want: ['tidb-server-tls=basic-tidb-server-secret@/var/lib/tiproxy-server-tls', 'tidb-client-tls=proxy-client@/var/lib/tiproxy-sql-tls'],
    },
    {
      name: 'v1, cluster and TiDB client TLS',
      tc: tidbCluster(tiproxy({ certLayout: 'v1' }), clusterTls, tidbTls),
      want: ['cluster-client-tls=basic-cluster-client-secret@/var/lib/cluster-client-tls', 'tiproxy-tls=basic-tiproxy-cluster-secret@/var/lib/tiproxy-tls', 'tidb-server-tls=basic-tidb-server-secret@/var/lib/tiproxy-server-tls'],
    },
  ])('$name', ({ tc, want }) => {
    const wiring = tiproxyTlsWiring(tc);
    expect(wiring.volumes.map((v, i) => `${v.name}=${v.secret?.secretName ?? ''}@${wiring.mounts[i]?.mountPath ?? ''}`)).toEqual(want);
  });
});

describe('the start script', () => {
  it.each([
    { name: 'advertises the pod under the peer Service', tc: tidbCluster(tiproxy()), want: '--advertise-addr=${TIPROXY_POD_NAME}.basic-tiproxy-peer.demo.svc"' },
    { name: 'with the cluster domain', tc: tidbCluster(tiproxy(), withSpec({ clusterDomain: 'cluster.local' })), want: '--advertise-addr=${TIPROXY_POD_NAME}.basic-tiproxy-peer.demo.svc.cluster.local"' },
  ])('$name', ({ tc, want }) => {
    const script = tiproxyStartScript(tc);
    expect(script).toContain(want);
    expect(script.endsWith('exec /bin/tiproxy ${ARGS}\n')).toBe(true);
  });
});

describe('a cluster across Kubernetes clusters', () => {
  it.each([
    { name: 'across Kubernetes clusters: TiProxy is refused for good, nothing written', acrossK8s: true, want: 'fail' },
    { name: 'one Kubernetes cluster: its objects are written', acrossK8s: false, want: 'complete' },
  ])('$name', ({ acrossK8s, want }) => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(tiproxy(), withSpec({ acrossK8s })))), tiproxyRules);
    // Assess
    const gate = plan.ruleResults.find((r) => r.rule === 'TiproxyAcrossK8s')?.outcome;
    expect(gate?.kind).toBe(want);
    if (gate?.kind === 'fail') {
      expect(gate.terminal).toBe(true);
      expect(gate.error).toContain('spec.acrossK8s');
    }
    expect(plan.actions.some((a) => a.kind === 'create')).toBe(!acrossK8s);
  });
});
