import { describe, expect, it } from '@jest/globals';

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import { tidbConfigData } from '../../../../../lib/reconcile/components/tidb/config-map.js';
import { tidbPodTemplate } from '../../../../../lib/reconcile/components/tidb/pod-template.js';
import { tidbServices } from '../../../../../lib/reconcile/components/tidb/services.js';
import { SERVICE_APPLY, planApply } from '../../../../../lib/reconcile/member/apply.js';
import { changeSpec, tidbCluster } from '../../../../support/fixtures.js';

type TidbSpec = NonNullable<TidbCluster['spec']['tidb']>;
const withTidb = (tidb: Partial<TidbSpec>): TidbCluster => tidbCluster(changeSpec((spec) => ({ ...spec, tidb: { baseImage: 'pingcap/tidb', replicas: 2, ...tidb } })));
const portsOf = (svc: IService | undefined) => svc?.spec?.ports?.map((p) => [p.name, p.port, p.targetPort, p.nodePort]);

describe('TiDB Services (§2.4)', () => {
  it('without spec.tidb.service only the headless peer Service exists: port status 10080, not-ready addresses published', () => {
    const services = tidbServices(withTidb({}));
    expect(services.map((s) => s.metadata?.name)).toEqual(['basic-tidb-peer']);
    expect(services[0]?.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    expect(portsOf(services[0])).toEqual([['status', 10080, 10080, undefined]]);
    expect(services[0]?.metadata?.labels?.['app.kubernetes.io/used-by']).toBe('peer');
  });

  it.each([
    { name: 'defaults: mysql-client 4000 and status 10080', service: {}, ports: [['mysql-client', 4000, 4000, undefined], ['status', 10080, 10080, undefined]] },
    { name: 'exposeStatus false: no status port', service: { exposeStatus: false }, ports: [['mysql-client', 4000, 4000, undefined]] },
    { name: 'portName and port: the client port renamed and moved, the target stays 4000', service: { portName: 'sql', port: 3306 }, ports: [['sql', 3306, 4000, undefined], ['status', 10080, 10080, undefined]] },
    {
      name: 'NodePort with mysqlNodePort and statusNodePort',
      service: { type: 'NodePort' as const, mysqlNodePort: 30400, statusNodePort: 30080 },
      ports: [['mysql-client', 4000, 4000, 30400], ['status', 10080, 10080, 30080]],
    },
    { name: 'node ports are ignored for ClusterIP', service: { mysqlNodePort: 30400 }, ports: [['mysql-client', 4000, 4000, undefined], ['status', 10080, 10080, undefined]] },
    {
      name: 'additional ports follow',
      service: { exposeStatus: false, additionalPorts: [{ name: 'proxy', port: 6000, targetPort: 6000 }] },
      ports: [['mysql-client', 4000, 4000, undefined], ['proxy', 6000, 6000, undefined]],
    },
  ])('the client Service <tc>-tidb: $name', ({ service, ports }) => {
    const client = tidbServices(withTidb({ service }))[0];
    expect(client?.metadata?.name).toBe('basic-tidb');
    expect(client?.metadata?.labels?.['app.kubernetes.io/used-by']).toBe('end-user');
    expect(portsOf(client)).toEqual(ports);
  });

  it('LoadBalancer fields, traffic policy, labels and annotations are the user\'s', () => {
    const client = tidbServices(
      withTidb({
        service: {
          type: 'LoadBalancer',
          loadBalancerIP: '1.2.3.4',
          loadBalancerSourceRanges: ['10.0.0.0/8'],
          externalTrafficPolicy: 'Local',
          annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' },
          labels: { team: 'db' },
        },
      }),
    )[0];
    expect(client?.spec).toMatchObject({ type: 'LoadBalancer', loadBalancerIP: '1.2.3.4', loadBalancerSourceRanges: ['10.0.0.0/8'], externalTrafficPolicy: 'Local' });
    expect(client?.metadata?.annotations?.['service.beta.kubernetes.io/aws-load-balancer-type']).toBe('nlb');
    expect(client?.metadata?.labels?.team).toBe('db');
  });

  it.each([
    { name: 'an allocated node port is kept when the spec names none', spec: {}, kept: [31000, 31080] },
    { name: 'a node port the spec names wins over the allocated one', spec: { mysqlNodePort: 30400 }, kept: [30400, 31080] },
  ])('updating a NodePort Service: $name', ({ spec, kept }) => {
    // Prepare: the live Service has node ports the API server allocated, and an older record.
    const desired = tidbServices(withTidb({ service: { type: 'NodePort', ...spec } }))[0];
    const live: IService = {
      ...(tidbServices(withTidb({ service: { type: 'NodePort', labels: { old: 'yes' } } }))[0] as IService),
      metadata: { name: 'basic-tidb', namespace: 'demo', resourceVersion: '5', annotations: {} },
    };
    const allocated = { ...live, spec: { ...live.spec, ports: (live.spec?.ports ?? []).map((p, i) => ({ ...p, nodePort: [31000, 31080][i] })) } };
    // Act
    const write = desired ? planApply(SERVICE_APPLY, desired, allocated) : undefined;
    // Assess
    expect(write?.kind).toBe('update');
    const ports = write?.kind === 'update' ? (write.object.spec as IService['spec'])?.ports : [];
    expect(ports?.map((p) => p.nodePort)).toEqual(kept);
  });
});

describe('TiDB pod template and ConfigMap (§2.4)', () => {
  it('runs tidb (server 4000, status 10080, TCP readiness after 10 s) and the slowlog sidecar on an emptyDir', () => {
    const template = tidbPodTemplate(withTidb({}), 'basic-tidb-abc1234');
    const [tidb, slowlog] = template.spec?.containers ?? [];
    expect(tidb?.image).toBe('pingcap/tidb:v8.5.0');
    expect(tidb?.ports?.map((p) => [p.name, p.containerPort])).toEqual([['server', 4000], ['status', 10080]]);
    expect(tidb?.readinessProbe).toEqual({ tcpSocket: { port: 4000 }, initialDelaySeconds: 10 });
    expect(tidb?.env).toEqual(expect.arrayContaining([{ name: 'SLOW_LOG_FILE', value: '/var/log/tidb/slowlog' }, { name: 'HEADLESS_SERVICE_NAME', value: 'basic-tidb-peer' }, { name: 'BINLOG_ENABLED', value: 'false' }]));
    expect(slowlog?.name).toBe('slowlog');
    expect(slowlog?.volumeMounts).toEqual([{ name: 'slowlog', mountPath: '/var/log/tidb' }]);
    expect(template.spec?.volumes?.find((v) => v.name === 'slowlog')).toEqual({ name: 'slowlog', emptyDir: {} });
    expect(template.spec?.volumes?.find((v) => v.name === 'config')?.configMap?.name).toBe('basic-tidb-abc1234');
    expect(template.metadata?.annotations?.['prometheus.io/port']).toBe('10080');
  });

  it.each([
    { name: 'separateSlowLog false: no sidecar, no slow-log file', tidb: { separateSlowLog: false }, containers: ['tidb'], probe: { tcpSocket: { port: 4000 }, initialDelaySeconds: 10 } },
    {
      name: 'readinessProbe type command: curl /status',
      tidb: { readinessProbe: { type: 'command' as const, initialDelaySeconds: 5 } },
      containers: ['tidb', 'slowlog'],
      probe: { exec: { command: ['curl', 'http://127.0.0.1:10080/status', '--fail', '--location'] }, initialDelaySeconds: 5 },
    },
    {
      name: 'readinessProbe type command under cluster TLS: curl https /status with the cluster CA and TiDB’s certificate',
      tidb: { readinessProbe: { type: 'command' as const } },
      tls: true,
      containers: ['tidb', 'slowlog'],
      probe: {
        exec: { command: ['curl', 'https://127.0.0.1:10080/status', '--fail', '--location', '--cacert', '/var/lib/tidb-tls/ca.crt', '--cert', '/var/lib/tidb-tls/tls.crt', '--key', '/var/lib/tidb-tls/tls.key'] },
        initialDelaySeconds: 10,
      },
    },
  ])('$name', ({ tidb, containers, probe, ...rest }) => {
    const tc = withTidb(tidb as Partial<TidbSpec>);
    const template = tidbPodTemplate('tls' in rest ? { ...tc, spec: { ...tc.spec, tlsCluster: { enabled: true } } } : tc, 'cm');
    expect(template.spec?.containers.map((c) => c.name)).toEqual(containers);
    expect(template.spec?.containers[0]?.readinessProbe).toEqual(probe);
  });

  it('binlog is on when the cluster has Pump, unless binlogEnabled says otherwise', () => {
    const env = (tc: TidbCluster) => tidbPodTemplate(tc, 'cm').spec?.containers[0]?.env?.find((e) => e.name === 'BINLOG_ENABLED')?.value;
    const withPump = (tc: TidbCluster): TidbCluster => ({ ...tc, spec: { ...tc.spec, pump: { replicas: 1 } } });
    expect(env(withPump(withTidb({})))).toBe('true');
    expect(env(withPump(withTidb({ binlogEnabled: false })))).toBe('false');
  });

  it('the start script stores on TiKV, advertises the pod under the peer Service and finds PD by its client Service', () => {
    const script = tidbConfigData(withTidb({}))['startup-script'] ?? '';
    expect(script).toContain('--store=tikv');
    expect(script).toContain('--advertise-address=${POD_NAME}.${HEADLESS_SERVICE_NAME}.${NAMESPACE}.svc');
    expect(script).toContain('--path=basic-pd:2379');
    expect(script).toContain('--log-slow-query=${SLOW_LOG_FILE:-}');
  });

  it.each([
    { name: 'its own PD', change: (spec: TidbCluster['spec']) => spec, path: '--path=basic-pd:2379' },
    { name: "a cluster without PD that names another in spec.cluster: that one's PD", change: (spec: TidbCluster['spec']) => ({ ...spec, pd: undefined, cluster: { name: 'main' } }), path: '--path=main-pd:2379' },
    { name: 'a cluster with its own PD keeps it even when it names another', change: (spec: TidbCluster['spec']) => ({ ...spec, cluster: { name: 'main' } }), path: '--path=basic-pd:2379' },
  ])('as TiDB Operator, the start script finds PD: $name', ({ change, path }) => {
    // Prepare
    const tc = tidbCluster(changeSpec((spec) => change({ ...spec, tidb: { baseImage: 'pingcap/tidb', replicas: 1 } })));
    // Act
    const script = tidbConfigData(tc)['startup-script'] ?? '';
    // Assess
    expect(script).toContain(path);
  });

  it('tidb.toml carries the user config', () => {
    const config = tidbConfigData(withTidb({ config: { 'token-limit': 1000 } }))['config-file'];
    expect(config).toContain('token-limit = 1000');
  });
});

describe('TiDB MySQL client TLS (spec.tidb.tlsClient, as v1)', () => {
  const mountsOf = (tc: TidbCluster) => tidbPodTemplate(tc, 'cm').spec?.containers.find((c) => c.name === 'tidb')?.volumeMounts?.filter((m) => m.name.startsWith('tidb-')) ?? [];
  const volumesOf = (tc: TidbCluster) => tidbPodTemplate(tc, 'cm').spec?.volumes?.filter((v) => v.name.startsWith('tidb-')) ?? [];
  const securityOf = (tc: TidbCluster) => tidbConfigData(tc)['config-file']?.split('\n').filter((l) => l.startsWith('ssl-') || l.startsWith('cluster-ssl-'));

  it.each<{ name: string; tc: TidbCluster; mounts: unknown[]; volumes: unknown[]; security: string[] }>([
    { name: 'off: no server Secret mounted, no ssl settings', tc: withTidb({}), mounts: [], volumes: [], security: [] },
    { name: 'enabled: false is off', tc: withTidb({ tlsClient: { enabled: false } }), mounts: [], volumes: [], security: [] },
    {
      name: 'enabled: <tc>-tidb-server-secret mounted read-only at /var/lib/tidb-server-tls, ssl-ca, ssl-cert and ssl-key pointing into it',
      tc: withTidb({ tlsClient: { enabled: true } }),
      mounts: [{ name: 'tidb-server-tls', readOnly: true, mountPath: '/var/lib/tidb-server-tls' }],
      volumes: [{ name: 'tidb-server-tls', secret: { secretName: 'basic-tidb-server-secret' } }],
      security: ['ssl-ca = "/var/lib/tidb-server-tls/ca.crt"', 'ssl-cert = "/var/lib/tidb-server-tls/tls.crt"', 'ssl-key = "/var/lib/tidb-server-tls/tls.key"'],
    },
    {
      name: 'disableClientAuthn: no ssl-ca (clients are not verified)',
      tc: withTidb({ tlsClient: { enabled: true, disableClientAuthn: true } }),
      mounts: [{ name: 'tidb-server-tls', readOnly: true, mountPath: '/var/lib/tidb-server-tls' }],
      volumes: [{ name: 'tidb-server-tls', secret: { secretName: 'basic-tidb-server-secret' } }],
      security: ['ssl-cert = "/var/lib/tidb-server-tls/tls.crt"', 'ssl-key = "/var/lib/tidb-server-tls/tls.key"'],
    },
  ])('$name', ({ tc, mounts, volumes, security }) => {
    // Act / Assess
    expect(mountsOf(tc)).toEqual(mounts);
    expect(volumesOf(tc)).toEqual(volumes);
    expect(securityOf(tc)).toEqual(security);
  });

  it('with cluster TLS too, both Secrets are mounted and both sets of settings written', () => {
    // Prepare
    const base = withTidb({ tlsClient: { enabled: true } });
    const tc = { ...base, spec: { ...base.spec, tlsCluster: { enabled: true } } };

    // Act
    const names = mountsOf(tc).map((m) => [m.name, m.mountPath]);

    // Assess
    expect(names).toEqual([
      ['tidb-tls', '/var/lib/tidb-tls'],
      ['tidb-server-tls', '/var/lib/tidb-server-tls'],
    ]);
    expect(securityOf(tc)).toHaveLength(6);
  });
});
