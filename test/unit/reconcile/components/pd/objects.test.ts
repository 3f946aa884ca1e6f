import { describe, expect, it } from '@jest/globals';

import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import { configDataDigest, goJsonOfStringMap, isTomlEqual, renderConfig } from '../../../../../lib/reconcile/member/config-data.js';
import { complete, retry } from '../../../../../lib/reconcile/engine/outcome.js';
import { pdConfigData } from '../../../../../lib/reconcile/components/pd/config-map.js';
import { pdClientService, pdPeerService } from '../../../../../lib/reconcile/components/pd/services.js';
import { pdImage } from '../../../../../lib/reconcile/components/pd/pod-template.js';
import { desiredPdStatefulSet, planPdConfigMap, planPdConfigMapObject, planPdServices, planPdStatefulSet } from '../../../../support/pd-rules.js';
import { lastAppliedSpec } from '../../../../../lib/reconcile/member/statefulset.js';
import {
  changeSpec,
  changeStatus,
  pdSetOf,
  ruleInputOf,
  snapshot,
  tidbCluster,
  withCluster,
  withOwned,
  type Change,
} from '../../../../support/fixtures.js';

const SELECTOR = {
  'app.kubernetes.io/name': 'tidb-cluster',
  'app.kubernetes.io/managed-by': 'tidb-operator',
  'app.kubernetes.io/instance': 'basic',
  'app.kubernetes.io/component': 'pd',
};
const OWNER = { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', name: 'basic', uid: 'uid-basic', controller: true, blockOwnerDeletion: true };

const pdSpec = (change: Partial<NonNullable<TidbCluster['spec']['pd']>>): Change<TidbCluster> =>
  changeSpec((spec) => ({ ...spec, pd: { replicas: 3, ...spec.pd, ...change } }));

const inputFor = (tc: TidbCluster, ...owned: Change<ReturnType<typeof snapshot>>[]) => ruleInputOf(snapshot(withCluster(tc), ...owned));

describe('PD services: names, labels, ports as TiDB Operator v1', () => {
  it('builds the client Service <tc>-pd with port client 2379 and used-by end-user', () => {
    // Prepare / Act
    const svc = pdClientService(tidbCluster());
    // Assess
    expect(svc.metadata?.name).toBe('basic-pd');
    expect(svc.metadata?.namespace).toBe('demo');
    expect(svc.metadata?.labels).toEqual({ ...SELECTOR, 'app.kubernetes.io/used-by': 'end-user' });
    expect(svc.metadata?.ownerReferences).toEqual([OWNER]);
    expect(svc.spec).toEqual({
      type: 'ClusterIP',
      ports: [{ name: 'client', port: 2379, targetPort: 2379, protocol: 'TCP' }],
      selector: SELECTOR,
    });
  });

  it('builds the headless peer Service <tc>-pd-peer publishing not-ready addresses', () => {
    const svc = pdPeerService(tidbCluster());
    expect(svc.metadata?.name).toBe('basic-pd-peer');
    expect(svc.metadata?.labels).toEqual({ ...SELECTOR, 'app.kubernetes.io/used-by': 'peer' });
    expect(svc.spec).toEqual({
      clusterIP: 'None',
      ports: [
        { name: 'tcp-peer-2380', port: 2380, targetPort: 2380, protocol: 'TCP' },
        { name: 'tcp-peer-2379', port: 2379, targetPort: 2379, protocol: 'TCP' },
      ],
      selector: SELECTOR,
      publishNotReadyAddresses: true,
    });
  });

  it('honours the user service type, port name, labels and annotations', () => {
    const tc = tidbCluster(pdSpec({ service: { type: 'NodePort', portName: 'http-client', labels: { team: 'db' }, annotations: { a: 'b' } } }));
    const svc = pdClientService(tc);
    expect(svc.spec?.type).toBe('NodePort');
    expect(svc.spec?.ports?.[0]?.name).toBe('http-client');
    expect(svc.metadata?.labels?.team).toBe('db');
    expect(svc.metadata?.annotations?.a).toBe('b');
  });

  it.each<{ name: string; live: (tc: TidbCluster) => IService[]; kinds: string[] }>([
    { name: 'both missing: two creates, client first', live: () => [], kinds: ['create:basic-pd', 'create:basic-pd-peer'] },
    { name: 'both as desired: nothing', live: (tc) => [pdClientService(tc), pdPeerService(tc)], kinds: [] },
    {
      name: 'a client Service whose record differs is updated',
      live: (tc) => [{ ...pdClientService(tc), metadata: { ...pdClientService(tc).metadata, annotations: {} } }, pdPeerService(tc)],
      kinds: ['update:basic-pd'],
    },
  ])('$name', ({ live, kinds }) => {
    // Prepare
    const tc = tidbCluster();
    const input = inputFor(tc, withOwned('Service', ...live(tc)));
    // Act
    const decision = planPdServices(input);
    // Assess
    expect(decision.actions.map((a) => `${a.kind}:${'ref' in a ? a.ref.name : ''}`)).toEqual(kinds);
    expect(decision.outcome.kind).toBe('complete');
  });

  it('keeps the allocated cluster IP and node ports on update, under the observed resourceVersion', () => {
    const tc = tidbCluster(pdSpec({ service: { type: 'NodePort' } }));
    const old = pdClientService(tidbCluster());
    const live: IService = {
      ...old,
      metadata: { ...old.metadata, resourceVersion: '12' },
      spec: { ...old.spec, clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9'], ports: [{ name: 'client', port: 2379, nodePort: 31000 }] },
    };
    const [action] = planPdServices(inputFor(tc, withOwned('Service', live, pdPeerService(tc)))).actions;
    expect(action).toMatchObject({
      kind: 'update',
      resourceVersion: '12',
      object: { spec: { type: 'NodePort', clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9'], ports: [{ name: 'client', nodePort: 31000 }] } },
    });
  });
});

describe('PD ConfigMap: config-file and startup-script, InPlace vs RollingUpdate names', () => {
  const cm = (name: string, data: Record<string, string>): IConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'demo', resourceVersion: '33', labels: SELECTOR },
    data,
  });

  it('renders a map config to TOML and a string config verbatim', () => {
    expect(renderConfig({ replication: { 'max-replicas': 3 }, 'lease': 3 })).toBe('lease = 3\n\n[replication]\nmax-replicas = 3\n');
    expect(renderConfig('# mine\n[replication]\nmax-replicas = 3\n')).toBe('# mine\n[replication]\nmax-replicas = 3\n');
    expect(renderConfig(undefined)).toBe('');
    expect(renderConfig({}, { 'dashboard.internal-proxy': true })).toBe('[dashboard]\ninternal-proxy = true\n');
  });

  it('compares TOML semantically: order and formatting are not a change', () => {
    expect(isTomlEqual('a = 1\n[b]\nc = "x"\n', '[b]\nc="x"\n\n')).toBe(false);
    expect(isTomlEqual('a = 1\n[b]\nc = "x"\n', 'b = { c = "x" }\na = 1\n')).toBe(true);
  });

  it('hashes data as Go json.Marshal does (sorted keys, HTML characters escaped)', () => {
    expect(goJsonOfStringMap({ z: '1', a: '<b>&' })).toBe('{"a":"\\u003cb\\u003e\\u0026","z":"1"}');
    expect(configDataDigest({ z: '1', a: '<b>&' })).toMatch(/^[0-9a-f]{7}$/);
  });

  it.each<{ name: string; tc: TidbCluster; live: IConfigMap[]; expectName: string | RegExp; action: string | undefined }>([
    { name: 'InPlace (default): <tc>-pd is created', tc: tidbCluster(pdSpec({ config: { lease: 3 } })), live: [], expectName: 'basic-pd', action: 'create' },
    {
      name: 'InPlace: a semantically equal live config is left verbatim',
      tc: tidbCluster(pdSpec({ config: { lease: 3, replication: { 'max-replicas': 3 } } })),
      live: [cm('basic-pd', { ...pdConfigData(tidbCluster()), 'config-file': 'lease = 3\n[replication]\n  max-replicas = 3 # kept\n' })],
      expectName: 'basic-pd',
      action: undefined,
    },
    {
      name: 'InPlace: a changed config is updated in place',
      tc: tidbCluster(pdSpec({ config: { lease: 5 } })),
      live: [cm('basic-pd', { ...pdConfigData(tidbCluster()), 'config-file': 'lease = 3\n' })],
      expectName: 'basic-pd',
      action: 'update',
    },
    {
      name: 'RollingUpdate: <tc>-pd-<7 hex of sha256(data)> is created',
      tc: tidbCluster(pdSpec({ configUpdateStrategy: 'RollingUpdate', config: { lease: 3 } })),
      live: [],
      expectName: /^basic-pd-[0-9a-f]{7}$/,
      action: 'create',
    },
  ])('$name', ({ tc, live, expectName, action }) => {
    // Prepare
    const input = inputFor(tc, withOwned('ConfigMap', ...live));
    // Act
    const plan = planPdConfigMapObject(input);
    const decision = planPdConfigMap(input);
    // Assess
    expect(plan.configMap.metadata?.name).toMatch(expectName);
    expect(decision.actions[0]?.kind).toBe(action);
    expect(decision.outcome.kind).toBe('complete');
  });

  it('RollingUpdate: the hash covers the data, so a content change is a new name', () => {
    const a = planPdConfigMapObject(inputFor(tidbCluster(pdSpec({ configUpdateStrategy: 'RollingUpdate', config: { lease: 3 } }))));
    const b = planPdConfigMapObject(inputFor(tidbCluster(pdSpec({ configUpdateStrategy: 'RollingUpdate', config: { lease: 4 } }))));
    const data = a.configMap.data ?? {};
    expect(a.configMap.metadata?.name).toBe(`basic-pd-${configDataDigest(data)}`);
    expect(b.configMap.metadata?.name).not.toBe(a.configMap.metadata?.name);
  });

  it('RollingUpdate: an equal in-use ConfigMap keeps its name (InPlace → RollingUpdate flip)', () => {
    // Prepare: the StatefulSet mounts basic-pd whose data equals the desired data
    const tc = tidbCluster(pdSpec({ configUpdateStrategy: 'RollingUpdate' }));
    const input = inputFor(tc, withOwned('StatefulSet', pdSetOf(tidbCluster())), withOwned('ConfigMap', cm('basic-pd', { ...pdConfigData(tc) })));
    // Act / Assess
    expect(planPdConfigMapObject(input).configMap.metadata?.name).toBe('basic-pd');
    expect(planPdConfigMap(input).actions).toEqual([]);
  });

  it('puts the start script under startup-script (DNS wait, discovery, pd-server with pd.toml)', () => {
    const script = pdConfigData(tidbCluster())['startup-script'] ?? '';
    expect(script).toContain('threshold=30');
    expect(script).toContain('--data-dir=/var/lib/pd');
    expect(script).toContain('--config=/etc/pd/pd.toml');
    expect(script).toContain('discovery_url="${cluster_name}-discovery.${NAMESPACE}.svc:10261"');
    expect(script).toContain('exec /pd-server ${ARGS}');
  });
});

describe('PD StatefulSet: shape as TiDB Operator v1', () => {
  const sts = desiredPdStatefulSet(inputFor(tidbCluster(pdSpec({ requests: { storage: '5Gi', cpu: '1' } }))), { replicas: 3, partition: 3 });

  it('is <tc>-pd with selector labels, owner reference, peer service, Parallel, partition = replicas', () => {
    expect(sts.metadata?.name).toBe('basic-pd');
    expect(sts.metadata?.labels).toEqual(SELECTOR);
    expect(sts.metadata?.ownerReferences).toEqual([OWNER]);
    expect(sts.spec?.selector).toEqual({ matchLabels: SELECTOR });
    expect(sts.spec?.serviceName).toBe('basic-pd-peer');
    expect(sts.spec?.podManagementPolicy).toBe('Parallel');
    expect(sts.spec?.replicas).toBe(3);
    expect(sts.spec?.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 3 } });
  });

  it('records its spec in pingcap.com/last-applied-configuration', () => {
    expect(lastAppliedSpec(sts)).toEqual(JSON.parse(JSON.stringify(sts.spec)));
  });

  it.each([
    { name: 'no readiness probe unless the spec asks for one (as v1)', probe: undefined, want: undefined },
    { name: 'a TCP probe on 2379 when spec.pd.readinessProbe is set', probe: {}, want: { tcpSocket: { port: 2379 }, initialDelaySeconds: 10 } },
    { name: 'the spec probe timing is kept', probe: { initialDelaySeconds: 3, periodSeconds: 7 }, want: { tcpSocket: { port: 2379 }, initialDelaySeconds: 3, periodSeconds: 7 } },
  ])('readiness: $name', ({ probe, want }) => {
    const withProbe = desiredPdStatefulSet(inputFor(tidbCluster(pdSpec({ requests: { storage: '5Gi' }, ...(probe ? { readinessProbe: probe } : {}) }))), { replicas: 3, partition: 3 });
    expect(withProbe.spec?.template.spec?.containers[0]?.readinessProbe).toEqual(want);
  });

  it('runs the pd container: image <baseImage>:<version>, ports, start script, mounts', () => {
    const container = sts.spec?.template.spec?.containers[0];
    expect(container?.name).toBe('pd');
    expect(container?.image).toBe('pingcap/pd:v8.5.0');
    expect(container?.command).toEqual(['/bin/sh', '/usr/local/bin/pd_start_script.sh']);
    expect(container?.ports).toEqual([
      { name: 'server', containerPort: 2380, protocol: 'TCP' },
      { name: 'client', containerPort: 2379, protocol: 'TCP' },
    ]);
    expect(container?.resources).toEqual({ requests: { cpu: '1' } });
    expect(container?.volumeMounts?.map((m) => `${m.name}:${m.mountPath}`)).toEqual([
      'annotations:/etc/podinfo',
      'config:/etc/pd',
      'startup-script:/usr/local/bin',
      'pd:/var/lib/pd',
    ]);
    expect(container?.env?.map((e) => e.name)).toEqual(['NAMESPACE', 'PEER_SERVICE_NAME', 'SERVICE_NAME', 'SET_NAME', 'TZ']);
  });

  it('mounts the ConfigMap and claims pd with the requested storage', () => {
    const volumes = sts.spec?.template.spec?.volumes ?? [];
    expect(volumes.find((v) => v.name === 'config')?.configMap).toEqual({ name: 'basic-pd', items: [{ key: 'config-file', path: 'pd.toml' }] });
    expect(volumes.find((v) => v.name === 'startup-script')?.configMap?.items).toEqual([{ key: 'startup-script', path: 'pd_start_script.sh' }]);
    expect(sts.spec?.volumeClaimTemplates).toEqual([
      { metadata: { name: 'pd' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } } },
    ]);
    expect(sts.spec?.template.metadata?.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': '2379' });
  });

  it.each<{ name: string; tc: TidbCluster; image: string }>([
    { name: 'cluster version', tc: tidbCluster(), image: 'pingcap/pd:v8.5.0' },
    { name: 'component version wins', tc: tidbCluster(pdSpec({ version: 'v8.5.1' })), image: 'pingcap/pd:v8.5.1' },
    { name: 'explicit image wins', tc: tidbCluster(pdSpec({ image: 'my/pd:x' })), image: 'my/pd:x' },
    { name: 'base image defaulted', tc: tidbCluster(pdSpec({ baseImage: undefined })), image: 'pingcap/pd:v8.5.0' },
  ])('image: $name', ({ tc, image }) => {
    expect(pdImage(tc)).toBe(image);
  });

  it.each<{ name: string; additional: Record<string, unknown>[]; containers: string[]; check: (pd: Record<string, any> | undefined) => void }>([
    {
      name: 'one named pd patches PD\'s own container (env added, resources merged, image replaced)',
      additional: [{ name: 'pd', image: 'my/pd:debug', env: [{ name: 'GODEBUG', value: 'madvdontneed=1' }, { name: 'TZ', value: 'Asia/Tokyo' }], resources: { limits: { cpu: '2' } } }],
      containers: ['pd'],
      check: (pd) => {
        expect(pd?.image).toBe('my/pd:debug');
        expect(pd?.command).toEqual(['/bin/sh', '/usr/local/bin/pd_start_script.sh']);
        expect(pd?.env.map((e: { name: string }) => e.name)).toEqual(['NAMESPACE', 'PEER_SERVICE_NAME', 'SERVICE_NAME', 'SET_NAME', 'TZ', 'GODEBUG']);
        expect(pd?.env.find((e: { name: string }) => e.name === 'TZ')).toEqual({ name: 'TZ', value: 'Asia/Tokyo' });
        expect(pd?.resources).toEqual({ requests: { cpu: '1' }, limits: { cpu: '2' } });
      },
    },
    {
      name: 'a volume mount on an existing path merges by mountPath; a new one is added',
      additional: [{ name: 'pd', volumeMounts: [{ name: 'pd-log', mountPath: '/var/lib/pd' }, { name: 'extra', mountPath: '/extra' }] }],
      containers: ['pd'],
      check: (pd) => {
        expect(pd?.volumeMounts.map((m: { name: string; mountPath: string }) => `${m.name}:${m.mountPath}`)).toEqual([
          'annotations:/etc/podinfo',
          'config:/etc/pd',
          'startup-script:/usr/local/bin',
          'pd-log:/var/lib/pd',
          'extra:/extra',
        ]);
      },
    },
    {
      name: 'others are appended in order, PD first',
      additional: [{ name: 'sidecar', image: 'busybox' }, { name: 'pd', args: ['--x'] }, { name: 'logger', image: 'fluent' }],
      containers: ['pd', 'sidecar', 'logger'],
      check: (pd) => expect(pd?.args).toEqual(['--x']),
    },
  ])('additionalContainers: $name', ({ additional, containers, check }) => {
    // Prepare
    const tc = tidbCluster(pdSpec({ requests: { storage: '5Gi', cpu: '1' }, additionalContainers: additional as never }));
    // Act
    const built = desiredPdStatefulSet(inputFor(tc), { replicas: 3, partition: 3 }).spec?.template.spec?.containers ?? [];
    // Assess
    expect(built.map((c) => c.name)).toEqual(containers);
    check(built[0] as Record<string, any> | undefined);
  });

  it('keeps OrderedReady and OnDelete when asked for', () => {
    const tc = tidbCluster(pdSpec({ podManagementPolicy: 'OrderedReady', statefulSetUpdateStrategy: 'OnDelete' }));
    const built = desiredPdStatefulSet(inputFor(tc), { replicas: 3, partition: 3 });
    expect(built.spec?.podManagementPolicy).toBe('OrderedReady');
    expect(built.spec?.updateStrategy).toEqual({ type: 'OnDelete' });
  });
});

describe('the PdStatefulSet rule: create when missing, update only when the record differs', () => {
  it('E: a missing StatefulSet is created with replicas = partition = 3 and the sequence stops', () => {
    // Prepare
    const input = inputFor(tidbCluster());
    // Act
    const decision = planPdStatefulSet(input);
    // Assess
    expect(decision.actions).toHaveLength(1);
    expect(decision.actions[0]).toMatchObject({
      kind: 'create',
      ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd' },
      object: { spec: { replicas: 3, updateStrategy: { rollingUpdate: { partition: 3 } } } },
    });
    expect(decision.status?.pd?.statefulSet).toEqual({ replicas: 0 });
    expect(decision.outcome).toEqual(retry(5_000, 'waiting for PD cluster running'));
    expect(decision.stop).toBe(true);
  });

  it('an applied StatefulSet is left alone', () => {
    const tc = tidbCluster(changeStatus((s) => ({ ...s, pd: { phase: 'Normal', synced: true } })));
    const decision = planPdStatefulSet(inputFor(tc, withOwned('StatefulSet', pdSetOf(tc))));
    expect(decision).toEqual({ actions: [], outcome: complete() });
  });

  it('after an upgrade (phase Normal again) the partition goes back to the replicas', () => {
    const tc = tidbCluster(changeStatus((s) => ({ ...s, pd: { phase: 'Normal', synced: true } })));
    const decision = planPdStatefulSet(inputFor(tc, withOwned('StatefulSet', pdSetOf(tc, { partition: 0, resourceVersion: '61' }))));
    expect(decision.actions).toEqual([
      expect.objectContaining({ kind: 'update', resourceVersion: '61', object: expect.objectContaining({ spec: expect.objectContaining({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 3 } } }) }) }),
    ]);
  });

  it('during an upgrade the live partition is kept', () => {
    const tc = tidbCluster(changeStatus((s) => ({ ...s, pd: { phase: 'Upgrade', synced: true } })));
    const decision = planPdStatefulSet(inputFor(tc, withOwned('StatefulSet', pdSetOf(tc, { partition: 1 }))));
    expect(decision.actions).toEqual([]);
  });

  it('nothing at all without spec.pd, or on a paused cluster', () => {
    const noPd = tidbCluster(changeSpec((spec) => ({ ...spec, pd: undefined })));
    const pausedTc = tidbCluster(changeSpec((spec) => ({ ...spec, paused: true })));
    expect(planPdStatefulSet(inputFor(noPd)).actions).toEqual([]);
    expect(planPdStatefulSet(inputFor(pausedTc)).actions).toEqual([]);
  });
});
