import { describe, expect, it } from '@jest/globals';

import type { CreateAction, UpdateAction } from '../../../../lib/model/action.js';
import type { KubeObject, OwnedKind, TidbCluster } from '../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { DEFAULT_DISCOVERY_IMAGE, desiredDiscoveryObjects, planDiscovery } from '../../../../lib/reconcile/cluster/discovery.js';
import { complete, fail } from '../../../../lib/reconcile/engine/outcome.js';
import type { Decision } from '../../../../lib/reconcile/engine/rule.js';
import {
  changeSpec,
  paused,
  ruleInputOf,
  snapshot,
  tidbCluster,
  withCluster,
  withConfig,
  withOwned,
  withSpec,
  type Change,
} from '../../../support/fixtures.js';

type Json = Record<string, unknown>;

const LABELS = {
  'app.kubernetes.io/name': 'tidb-cluster',
  'app.kubernetes.io/managed-by': 'tidb-operator',
  'app.kubernetes.io/instance': 'basic',
  'app.kubernetes.io/component': 'discovery',
};
const OWNER = {
  apiVersion: 'pingcap.com/v1alpha1',
  kind: 'TidbCluster',
  name: 'basic',
  uid: 'uid-basic',
  controller: true,
  blockOwnerDeletion: true,
};

const KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service'];

const plan = (...changes: Change<Snapshot>[]): Decision => planDiscovery(ruleInputOf(snapshot(...changes)));
const objectsOf = (decision: Decision): KubeObject[] =>
  decision.actions.map((a) => (a as CreateAction | UpdateAction).object);

/** Deep merge of plain objects (arrays and scalars from `extra` replace). */
const merge = (base: unknown, extra: unknown): unknown => {
  const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(base) || !isObject(extra)) return extra;
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(extra)) out[k] = merge(base[k], v);
  return out;
};

/** What the API server stores for `object`: identity, a resourceVersion and its defaults. */
function stored(object: KubeObject, resourceVersion = '41'): KubeObject {
  const identity = { metadata: { uid: `uid-${object.kind}`, resourceVersion, creationTimestamp: '2025-12-31T00:00:00Z' } };
  const defaults: Record<string, Json> = {
    Deployment: {
      spec: { revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
      status: { replicas: 1, availableReplicas: 1 },
    },
    Service: { spec: { clusterIP: '10.96.0.12', clusterIPs: ['10.96.0.12'], sessionAffinity: 'None', ipFamilies: ['IPv4'] } },
    ServiceAccount: {},
    Role: {},
    RoleBinding: {},
  };
  let result = merge(merge(object, identity), defaults[object.kind] ?? {}) as KubeObject;
  if (object.kind === 'Deployment') result = withServerPodDefaults(result);
  return result;
}

const NAMESPACE_FIELD_STORED = { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } };

/** The pod-template defaults the API server fills in (restart policy, DNS, env fieldRef apiVersion, …). */
function withServerPodDefaults(deployment: KubeObject): KubeObject {
  const spec = deployment.spec as Json;
  const template = spec.template as Json;
  const pod = template.spec as { containers: Json[] } & Json;
  const containers = pod.containers.map((c) => ({
    ...c,
    terminationMessagePath: '/dev/termination-log',
    env: (c.env as Json[]).map((e) => (e.valueFrom ? { ...e, valueFrom: NAMESPACE_FIELD_STORED } : e)),
  }));
  const podSpec = { ...pod, containers, restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' };
  return { ...deployment, spec: { ...spec, template: { ...template, spec: podSpec } } };
}

/** The five objects as the API server holds them after the first step created them. */
const existing = (tc: TidbCluster = tidbCluster()): Change<Snapshot> => {
  const objects = desiredDiscoveryObjects(tc, snapshot().config).map((o) => stored(o));
  return (s) => objects.reduce((acc, o) => withOwned(o.kind as OwnedKind, o as never)(acc), s);
};

/** Replaces the stored object of `kind` with `change(it)`. */
const editStored =
  (kind: OwnedKind, change: (object: KubeObject) => unknown): Change<Snapshot> =>
  (s) => ({ ...s, owned: { ...s.owned, [kind]: s.owned[kind].map((o) => change(o as KubeObject)) } });

/** Changes fields of the stored Deployment's container (as `kubectl edit` or the API server would). */
const editContainer = (fields: Json): Change<Snapshot> =>
  editStored('Deployment', (d) => merge(d, { spec: { template: { spec: { containers: [{ ...containerOf(d), ...fields }] } } } }));

const withTls = changeSpec((s) => ({ ...s, tlsCluster: { enabled: true } }));

describe('discovery: the first step creates the five objects (TiDB Operator §2.7)', () => {
  const decision = plan();
  const objects = objectsOf(decision);
  const byKind = (kind: string): Json => (objects.find((o) => o.kind === kind) ?? {}) as Json;

  it('creates ServiceAccount, Role, RoleBinding, Deployment, Service, all named basic-discovery', () => {
    const ref = (kind: string) => ({ kind, namespace: 'demo', name: 'basic-discovery' });
    expect(decision.actions.map((a) => [a.kind, (a as CreateAction).ref])).toEqual(KINDS.map((kind) => ['create', ref(kind)]));
    expect(decision.outcome).toEqual(complete(`discovery: ${KINDS.map((kind) => `create ${kind}`).join(', ')}`));
  });

  it.each(KINDS)('%s carries the discovery labels and the controller owner reference', (kind) => {
    expect(byKind(kind).metadata).toMatchObject({ name: 'basic-discovery', namespace: 'demo', labels: LABELS, ownerReferences: [OWNER] });
  });

  it('the Service: ClusterIP, ports discovery 10261 and proxy 10262, selecting the discovery pods', () => {
    expect(byKind('Service').spec).toEqual({
      type: 'ClusterIP',
      ports: [
        { name: 'discovery', port: 10261, targetPort: 10261, protocol: 'TCP' },
        { name: 'proxy', port: 10262, targetPort: 10262, protocol: 'TCP' },
      ],
      selector: LABELS,
    });
  });

  it('the Deployment: one replica, Recreate, tidb-discovery from the operator image as the discovery ServiceAccount', () => {
    expect(byKind('Deployment').spec).toEqual({
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: {
          serviceAccountName: 'basic-discovery',
          containers: [
            {
              name: 'discovery',
              image: DEFAULT_DISCOVERY_IMAGE,
              imagePullPolicy: 'IfNotPresent',
              command: ['/usr/local/bin/tidb-discovery'],
              env: [
                { name: 'MY_POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'TZ', value: 'UTC' },
                { name: 'TC_NAME', value: 'basic' },
              ],
            },
          ],
        },
      },
    });
    expect(DEFAULT_DISCOVERY_IMAGE).toMatch(/^pingcap\/tidb-operator:v1\.6\.\d+$/);
  });

  it('the Role: get this TidbCluster, get/list/watch secrets; the RoleBinding binds it to the ServiceAccount', () => {
    expect(byKind('Role').rules).toEqual([
      { apiGroups: ['pingcap.com'], resources: ['tidbclusters'], resourceNames: ['basic'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(byKind('RoleBinding')).toMatchObject({
      subjects: [{ kind: 'ServiceAccount', name: 'basic-discovery', namespace: 'demo' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'basic-discovery' },
    });
  });
});

describe('discovery: later steps update only what differs, never delete', () => {
  it.each<{ name: string; changes: Change<Snapshot>[] }>([
    { name: 'everything as created, with the API server’s defaults added', changes: [existing()] },
    {
      name: 'a paused cluster with its objects in place (discovery runs while paused, as v1)',
      changes: [withCluster(tidbCluster(paused())), existing(tidbCluster(paused()))],
    },
    {
      name: 'a resource quantity the API server respelled (0.5 → 500m)',
      changes: [
        withCluster(tidbCluster(withSpec({ discovery: { requests: { cpu: '0.5' } } }))),
        existing(tidbCluster(withSpec({ discovery: { requests: { cpu: '0.5' } } }))),
        editContainer({ resources: { requests: { cpu: '500m' } } }),
      ],
    },
    {
      name: 'labels and annotations others added',
      changes: [existing(), editStored('Service', (o) => merge(o, { metadata: { labels: { team: 'db' }, annotations: { note: 'x' } } }))],
    },
  ])('up to date: $name → no action, complete', ({ changes }) => {
    expect(plan(...changes)).toEqual({ actions: [], outcome: complete() });
  });

  it.each<{ name: string; changes: Change<Snapshot>[]; kind: string; check: (object: Json) => void }>([
    {
      name: 'a new discovery image (config) updates the Deployment',
      changes: [existing(), withConfig({ discoveryImage: 'registry.local/tidb-operator:v1.6.9' })],
      kind: 'Deployment',
      check: (o) => expect(containerOf(o as KubeObject).image).toBe('registry.local/tidb-operator:v1.6.9'),
    },
    {
      name: 'spec.discovery.image wins over the configured image',
      changes: [
        withCluster(tidbCluster(withSpec({ discovery: { image: 'mine/discovery:1' } }))),
        existing(),
        withConfig({ discoveryImage: 'other:2' }),
      ],
      kind: 'Deployment',
      check: (o) => expect(containerOf(o as KubeObject).image).toBe('mine/discovery:1'),
    },
    {
      name: 'someone edited the image by hand',
      changes: [existing(), editContainer({ image: 'hacked:1' })],
      kind: 'Deployment',
      check: (o) => expect(containerOf(o as KubeObject).image).toBe(DEFAULT_DISCOVERY_IMAGE),
    },
    {
      name: 'resources removed from spec.discovery are removed (last-applied differs)',
      changes: [existing(tidbCluster(withSpec({ discovery: { limits: { cpu: '1' } } })))],
      kind: 'Deployment',
      check: (o) => expect(containerOf(o as KubeObject).resources).toBeUndefined(),
    },
    {
      name: 'a lost label on the Service',
      changes: [existing(), editStored('Service', (o) => merge(o, { metadata: { labels: { 'app.kubernetes.io/component': 'other' } } }))],
      kind: 'Service',
      check: (o) => expect((o.spec as Json).clusterIP).toBe('10.96.0.12'),
    },
    {
      name: 'an object without an owner is adopted',
      changes: [existing(), editStored('ServiceAccount', (o) => ({ ...o, metadata: { ...o.metadata, ownerReferences: [] } }))],
      kind: 'ServiceAccount',
      check: (o) => expect((o.metadata as Json).ownerReferences).toEqual([OWNER]),
    },
    {
      name: 'a Role rule changed by hand',
      changes: [existing(), editStored('Role', (o) => ({ ...o, rules: [] }))],
      kind: 'Role',
      check: (o) => expect(o.rules).toHaveLength(2),
    },
  ])('$name', ({ changes, kind, check }) => {
    // Act
    const decision = plan(...changes);
    // Assess: one update of that object, guarded by the observed resourceVersion, server fields kept
    expect(decision.actions).toHaveLength(1);
    const action = decision.actions[0] as UpdateAction;
    expect(action).toMatchObject({ kind: 'update', ref: { kind, namespace: 'demo', name: 'basic-discovery' }, resourceVersion: '41' });
    expect(action.object.metadata).toMatchObject({ uid: `uid-${kind}`, resourceVersion: '41', labels: LABELS });
    expect(action.object.status).toBeUndefined();
    check(action.object as Json);
    expect(decision.outcome).toEqual(complete(`discovery: update ${kind}`));
  });

  it('a missing object among present ones is created, the others left alone', () => {
    const decision = plan(existing(), (s) => ({ ...s, owned: { ...s.owned, Service: [] } }));
    expect(decision.actions.map((a) => `${a.kind} ${(a as CreateAction).ref.kind}`)).toEqual(['create Service']);
  });

  it('an object of that name controlled by another owner is left alone and the rule fails (retryable)', () => {
    const foreign = { ...OWNER, uid: 'uid-other' };
    const decision = plan(existing(), editStored('Deployment', (o) => ({ ...o, metadata: { ...o.metadata, ownerReferences: [foreign] } })));
    expect(decision.actions).toEqual([]);
    expect(decision.outcome).toEqual(fail('Deployment demo/basic-discovery exists but is controlled by another owner (uid uid-other)'));
  });
});

describe('discovery: when there is none', () => {
  it.each<{ name: string; cluster: TidbCluster; count: number }>([
    { name: 'no PD in the spec: nothing at all', cluster: tidbCluster(withSpec({ pd: undefined })), count: 0 },
    {
      name: 'no PD but spanning Kubernetes clusters: discovery still runs (as v1)',
      cluster: tidbCluster(withSpec({ pd: undefined, acrossK8s: true })),
      count: 5,
    },
    { name: 'TLS between components: still five objects', cluster: tidbCluster(withTls), count: 5 },
  ])('$name', ({ cluster, count }) => {
    const decision = plan(withCluster(cluster));
    expect(decision.actions).toHaveLength(count);
    expect(decision.actions.every((a) => a.kind === 'create')).toBe(true);
    expect(decision.outcome).toMatchObject({ kind: 'complete' });
  });

  it('with cluster TLS the discovery pod mounts the PD cluster certificate', () => {
    const tc = tidbCluster(withTls);
    const deployment = desiredDiscoveryObjects(tc, snapshot().config).find((o) => o.kind === 'Deployment');
    const pod = ((deployment?.spec as Json).template as Json).spec as Json;
    expect(pod.volumes).toEqual([{ name: 'pd-tls', secret: { secretName: 'basic-pd-cluster-secret' } }]);
    expect(containerOf(deployment as KubeObject).env).toContainEqual({ name: 'TC_TLS_ENABLED', value: 'true' });
  });
});

function containerOf(deployment: KubeObject): Json {
  const template = (deployment.spec as Json).template as Json;
  return ((template.spec as Json).containers as Json[])[0] ?? {};
}

describe('discovery: at rest', () => {
  it('a step at rest (its objects not read) writes nothing, though they look missing: they were verified for this spec', () => {
    // Act
    const decision = plan((s) => ({ ...s, reads: 'rest' }));
    // Assess
    expect(decision).toEqual({ actions: [], outcome: complete() });
  });
});
