import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

import { clusterKeyOf } from '../../../../lib/exporter/cluster-key.js';
import type { Action, CreateAction, UpdateAction } from '../../../../lib/model/action.js';
import type { KubeObject } from '../../../../lib/model/kube.js';
import { planTidbMonitor } from '../../../../lib/reconcile/monitor/recipe.js';
import { cluster, monitor, observed, snapshot } from './fixtures.js';

const writes = (actions: readonly Action[]) => actions.filter((a): a is CreateAction | UpdateAction => a.kind === 'create' || a.kind === 'update').map((a) => `${a.kind} ${a.ref.kind} ${a.ref.name}`);
const created = (actions: readonly Action[], kind: string, name: string) => (actions.find((a) => a.kind === 'create' && a.ref.kind === kind && a.ref.name === name) as CreateAction | undefined)?.object;

describe('TidbMonitor: what v1 deploys', () => {
  it('a first step creates the Secrets, Services, ConfigMaps, RBAC and StatefulSet in v1 order, adds the finalizer, and waits for it running', () => {
    // Arrange
    const tm = monitor({ grafana: { baseImage: 'grafana/grafana', version: '7.5.11' } }, { finalizers: [] });

    // Act
    const plan = planTidbMonitor(snapshot(tm, [observed(cluster('basic', 'demo'))]));

    // Assert
    expect(plan.actions[0]).toMatchObject({ kind: 'secret.copy', ref: { kind: 'Secret', namespace: 'demo', name: 'tidbmonitor-basic-tls-assets' }, sources: [] });
    expect(writes(plan.actions)).toEqual([
      'create Secret basic-monitor',
      'create Service basic-prometheus',
      'create Service basic-monitor-reloader',
      'create Service basic-grafana',
      'create ConfigMap basic-monitor',
      'create ConfigMap basic-monitor-grafana',
      'create ServiceAccount basic-monitor',
      'create Role basic-monitor',
      'create RoleBinding basic-monitor',
      'create StatefulSet basic-monitor',
      'update TidbMonitor basic',
    ]);
    const update = plan.actions.find((a) => a.kind === 'update') as UpdateAction;
    expect(update.object.metadata.finalizers).toEqual(['tidb.pingcap.com/monitor-protection']);
    expect(update.resourceVersion).toBe('7');
    expect(plan.outcome).toEqual({ kind: 'wait', message: 'TidbMonitor: [demo/basic], waiting for tidbmonitor running' });
  });

  it('the StatefulSet runs the initializer, then prometheus, reloader and grafana, with v1\'s probes and a persistent claim', () => {
    // Arrange
    const tm = monitor({ persistent: true, storage: '5Gi', storageClassName: 'gp3', grafana: { baseImage: 'grafana/grafana', version: '7.5.11' } });

    // Act
    const sts = created(planTidbMonitor(snapshot(tm, [observed(cluster('basic', 'demo'))])).actions, 'StatefulSet', 'basic-monitor') as KubeObject & { spec: Record<string, never> };

    // Assert
    const pod = (sts.spec['template'] as unknown as { spec: { initContainers: { name: string; image: string; env: { name: string; value?: string }[] }[]; containers: { name: string; image: string; readinessProbe?: unknown }[]; volumes: { name: string }[] } }).spec;
    expect(pod.initContainers.map((c) => [c.name, c.image])).toEqual([['monitor-initializer', 'pingcap/tidb-monitor-initializer:v8.5.7']]);
    expect(pod.initContainers[0]?.env).toEqual(expect.arrayContaining([{ name: 'TIDB_VERSION', value: 'tidb:v8.5.7' }, { name: 'TIDB_CLUSTER_NAME', value: 'basic' }, { name: 'TIDB_CLUSTER_NAMESPACE', value: 'demo' }]));
    expect(pod.containers.map((c) => [c.name, c.image])).toEqual([['prometheus', 'prom/prometheus:v2.27.1'], ['reloader', 'pingcap/tidb-monitor-reloader:v1.0.1'], ['grafana', 'grafana/grafana:7.5.11']]);
    expect(pod.containers[0]?.readinessProbe).toEqual({ httpGet: { path: '/-/ready', port: 9090 }, timeoutSeconds: 3, periodSeconds: 5, failureThreshold: 120 });
    expect(pod.volumes.map((v) => v.name)).not.toContain('tidbmonitor');
    expect(sts.spec['volumeClaimTemplates']).toEqual([{ metadata: { name: 'tidbmonitor' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } }, storageClassName: 'gp3' } }]);
    expect(sts.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'TidbMonitor', name: 'basic', uid: 'tm-uid', controller: true });
  });

  it('shards: one StatefulSet and one set of Services per shard, each Prometheus keeping its hashmod share', () => {
    // Act
    const plan = planTidbMonitor(snapshot(monitor({ shards: 2 }), [observed(cluster('basic', 'demo'))]));

    // Assert
    expect(writes(plan.actions).filter((w) => /Service |StatefulSet /.test(w))).toEqual([
      'create Service basic-prometheus',
      'create Service basic-monitor-reloader',
      'create Service basic-prometheus-shard-1',
      'create Service basic-monitor-reloader-shard-1',
      'create StatefulSet basic-monitor',
      'create StatefulSet basic-monitor-shard-1',
    ]);
    const shard1 = created(plan.actions, 'Service', 'basic-prometheus-shard-1') as KubeObject & { spec: { selector: Record<string, string> } };
    expect(shard1.spec.selector).toEqual({ 'app.kubernetes.io/instance': 'basic-shard-1', 'app.kubernetes.io/name': 'tidb-cluster', 'app.kubernetes.io/component': 'monitor' });
    const yml = parse((created(plan.actions, 'ConfigMap', 'basic-monitor') as KubeObject & { data: Record<string, string> }).data['prometheus.yml'] ?? '') as { scrape_configs: { relabel_configs: { action?: string; modulus?: number }[] }[] };
    expect(yml.scrape_configs[0]?.relabel_configs.find((r) => r.action === 'hashmod')?.modulus).toBe(2);
  });

  it('several clusters, across namespaces and with TLS: one scrape job per component per cluster, https with the client certificate for the TLS one', () => {
    // Arrange
    const tm = monitor({ clusterScoped: true, clusters: [{ name: 'ns1', namespace: 'ns1' }, { name: 'ns2', namespace: 'ns2' }] });
    const clusters = [observed(cluster('ns1', 'ns1', true), 'ns1', 'ns1', ['ca.crt', 'tls.crt', 'tls.key']), observed(cluster('ns2', 'ns2'), 'ns2', 'ns2')];

    // Act
    const plan = planTidbMonitor(snapshot(tm, clusters));

    // Assert
    const yml = parse((created(plan.actions, 'ConfigMap', 'basic-monitor') as KubeObject & { data: Record<string, string> }).data['prometheus.yml'] ?? '') as { scrape_configs: { job_name: string; scheme: string; tls_config: Record<string, unknown>; kubernetes_sd_configs: { namespaces: { names: string[] } }[] }[] };
    const pd = yml.scrape_configs.filter((j) => j.job_name.endsWith('-pd'));
    expect(pd.map((j) => [j.job_name, j.scheme, j.kubernetes_sd_configs[0]?.namespaces.names])).toEqual([['ns1-ns1-pd', 'https', ['ns1']], ['ns2-ns2-pd', 'http', ['ns2']]]);
    expect(pd[0]?.tls_config).toEqual({ ca_file: '/var/lib/cluster-assets-tls/secret_ns1_ns1-cluster-client-secret_ca.crt', cert_file: '/var/lib/cluster-assets-tls/secret_ns1_ns1-cluster-client-secret_tls.crt', key_file: '/var/lib/cluster-assets-tls/secret_ns1_ns1-cluster-client-secret_tls.key' });
    expect(writes(plan.actions)).toEqual(expect.arrayContaining(['create ClusterRole demo-basic-monitor', 'create ClusterRoleBinding demo-basic-monitor']));
    expect(writes(plan.actions).some((w) => w.startsWith('create Role '))).toBe(false);
  });

  it('remote write is rendered as v1 renders it, fields newer than the Prometheus version left out', () => {
    // Arrange
    const tm = monitor({ prometheus: { baseImage: 'prom/prometheus', version: 'v2.22.0', remoteWrite: [{ url: 'http://thanos-receiver-0.thanos-receiver.default.svc:19291/api/v1/receive', name: 'thanos', queueConfig: { maxSamplesPerSend: 100, maxShards: 100 }, metadataConfig: { sendInterval: '10s' } }] } });

    // Act
    const plan = planTidbMonitor(snapshot(tm, [observed(cluster('basic', 'demo'))]));

    // Assert
    const yml = parse((created(plan.actions, 'ConfigMap', 'basic-monitor') as KubeObject & { data: Record<string, string> }).data['prometheus.yml'] ?? '') as { remote_write: unknown[] };
    expect(yml.remote_write).toEqual([{ url: 'http://thanos-receiver-0.thanos-receiver.default.svc:19291/api/v1/receive', remote_timeout: '30s', queue_config: { max_shards: 100, max_samples_per_send: 100 } }]);
  });

  it('once everything is applied and the pods are ready, nothing is written but the status, and the step is complete', () => {
    // Arrange: the objects a first step created, as live.
    const tm = monitor();
    const first = planTidbMonitor(snapshot(tm, [observed(cluster('basic', 'demo'))])).actions.filter((a): a is CreateAction => a.kind === 'create');
    const live: Record<string, KubeObject[]> = {};
    for (const a of first) {
      const status = a.ref.kind === 'StatefulSet' ? { status: { replicas: 1, readyReplicas: 1, observedGeneration: 1 } } : {};
      (live[a.ref.kind] ??= []).push({ ...a.object, metadata: { ...a.object.metadata, resourceVersion: '1', generation: 1 }, ...status });
    }

    // Act
    const plan = planTidbMonitor(snapshot(tm, [observed(cluster('basic', 'demo'))], live, ['tidbmonitor-basic-tls-assets']));

    // Assert
    expect(writes(plan.actions)).toEqual(['update TidbMonitor basic']);
    expect((plan.actions.find((a) => a.kind === 'update') as UpdateAction).object['status']).toEqual({ statefulSet: { replicas: 1, readyReplicas: 1, observedGeneration: 1 } });
    expect(plan.outcome.kind).toBe('complete');
  });
});

describe('TidbMonitor: changes are updates under the observed resourceVersion', () => {
  it('a new Prometheus version updates the StatefulSet, a Role whose rules drifted is put back, nothing else is written', () => {
    // Arrange: what a first step created, live, then the spec moves on.
    const before = monitor();
    const first = planTidbMonitor(snapshot(before, [observed(cluster('basic', 'demo'))])).actions.filter((a): a is CreateAction => a.kind === 'create');
    const live: Record<string, KubeObject[]> = {};
    for (const a of first) {
      const drift = a.ref.kind === 'Role' ? { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } : {};
      (live[a.ref.kind] ??= []).push({ ...a.object, metadata: { ...a.object.metadata, resourceVersion: `rv-${a.ref.kind}` }, ...drift });
    }
    const after = monitor({ prometheus: { baseImage: 'prom/prometheus', version: 'v2.49.1' } });

    // Act
    const plan = planTidbMonitor(snapshot(after, [observed(cluster('basic', 'demo'))], live, ['tidbmonitor-basic-tls-assets']));

    // Assert
    const updates = plan.actions.filter((a): a is UpdateAction => a.kind === 'update' && a.ref.kind !== 'TidbMonitor');
    expect(updates.map((u) => [u.ref.kind, u.ref.name, u.resourceVersion])).toEqual([['Role', 'basic-monitor', 'rv-Role'], ['StatefulSet', 'basic-monitor', 'rv-StatefulSet']]);
    expect(updates[0]?.object['rules']).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]);
    const template = (updates[1]?.object['spec'] as { template: { spec: { containers: { name: string; image: string }[] } } }).template;
    expect(template.spec.containers.find((c) => c.name === 'prometheus')?.image).toBe('prom/prometheus:v2.49.1');
    expect(plan.actions.some((a) => a.kind === 'create')).toBe(false);
  });
});

describe('TidbMonitor: what stops it', () => {
  it.each([
    { name: 'a missing TidbCluster (retried, in v1\'s words)', clusters: [observed(undefined)], error: 'get tm[demo/basic]\'s target tc[demo/basic] failed, err: tidbcluster.pingcap.com "basic" not found', terminal: false },
    { name: 'a TLS cluster without its client Secret', clusters: [observed(cluster('basic', 'demo', true))], error: 'get secret [demo/basic-cluster-client-secret] failed, err: secrets "basic-cluster-client-secret" not found', terminal: false },
  ])('$name fails the step and writes no child', ({ clusters, error, terminal }) => {
    // Act
    const plan = planTidbMonitor(snapshot(monitor(), clusters));

    // Assert
    expect(plan.outcome).toEqual({ kind: 'fail', error, terminal });
    expect(writes(plan.actions)).toEqual([]);
  });

  it.each([
    { name: 'a retention that is not a Prometheus duration', spec: { prometheus: { baseImage: 'prom/prometheus', version: 'v2.27.1', retentionTime: '12 days' } }, field: 'spec.prometheus.retentionTime' },
    { name: 'persistent without storage', spec: { persistent: true }, field: 'spec.storage' },
    { name: 'persistent with a storage that is not a quantity', spec: { persistent: true, storage: 'lots' }, field: 'spec.storage' },
    { name: 'a source range that is not a CIDR', spec: { prometheus: { baseImage: 'prom/prometheus', version: 'v2.27.1', service: { type: 'LoadBalancer', loadBalancerSourceRanges: ['10.0.0.0/33'] } } }, field: 'spec.prometheus.service.loadBalancerSourceRanges' },
    { name: 'an initializer without a version', spec: { initializer: { baseImage: 'pingcap/tidb-monitor-initializer' } }, field: 'spec.initializer.version' },
    { name: 'remote write without a URL', spec: { prometheus: { baseImage: 'prom/prometheus', version: 'v2.27.1', remoteWrite: [{}] } }, field: 'spec.prometheus.remoteWrite[0].url' },
    { name: 'Thanos, which this reconciler does not deploy', spec: { thanos: { baseImage: 'thanosio/thanos', version: 'v0.17.2' } }, field: 'spec.thanos' },
  ])('$name is refused with a FailedValidation Warning naming $field, not retried', ({ spec, field }) => {
    // Act
    const plan = planTidbMonitor(snapshot(monitor(spec), [observed(cluster('basic', 'demo'))]));

    // Assert
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
    const warning = plan.actions.find((a) => a.kind === 'event');
    expect(warning).toMatchObject({ type: 'Warning', reason: 'FailedValidation', object: { kind: 'TidbMonitor', name: 'basic' } });
    expect((warning as { message: string }).message.startsWith(`${field}: `)).toBe(true);
    expect(writes(plan.actions)).toEqual([]);
  });

  it('an object of the same name controlled by someone else is not taken over', () => {
    // Arrange
    const foreign = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'basic-prometheus', namespace: 'demo', resourceVersion: '3', ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', name: 'x', uid: 'other', controller: true }] } };

    // Act
    const plan = planTidbMonitor(snapshot(monitor(), [observed(cluster('basic', 'demo'))], { Service: [foreign] }));

    // Assert
    expect(plan.outcome).toEqual({ kind: 'fail', error: 'Service demo/basic-prometheus exists but is controlled by another owner (uid other)', terminal: true });
    expect(writes(plan.actions).filter((w) => w.includes('Service basic-prometheus'))).toEqual([]);
  });

  it('a monitor without clusters does nothing but keep its finalizer', () => {
    // Act
    const plan = planTidbMonitor(snapshot(monitor({ clusters: [] }), []));

    // Assert
    expect(plan.actions).toEqual([]);
    expect(plan.outcome).toEqual({ kind: 'complete', message: 'tm[demo/basic] does not configure the target tidbcluster' });
  });

  it('a deleted cluster-scoped monitor has its ClusterRole and ClusterRoleBinding deleted and its finalizer removed', () => {
    // Arrange
    const tm = monitor({ clusterScoped: true }, { deletionTimestamp: '2026-11-28T00:00:00Z' });
    const labels = { 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': 'basic' };
    const live = { ClusterRole: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'demo-basic-monitor', uid: 'cr', labels } }], ClusterRoleBinding: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'demo-basic-monitor', uid: 'crb', labels } }] };

    // Act
    const plan = planTidbMonitor(snapshot(tm, [], live));

    // Assert
    expect(plan.actions.map((a) => `${a.kind} ${'ref' in a ? `${a.ref.kind} ${a.ref.name}` : ''}`)).toEqual(['delete ClusterRole demo-basic-monitor', 'delete ClusterRoleBinding demo-basic-monitor', 'update TidbMonitor basic']);
    expect((plan.actions[2] as UpdateAction).object.metadata.finalizers).toEqual([]);
  });
});

describe('TidbMonitor events map to its key', () => {
  const sts = (kind: string) => ({ metadata: { namespace: 'demo', name: 'basic-monitor', labels: { 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/component': 'monitor', 'app.kubernetes.io/instance': 'basic' }, ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind, name: 'basic', uid: 'u', controller: true }] } });
  it.each([
    { name: 'a TidbMonitor is its own key on every change', kind: 'TidbMonitor' as const, obj: { metadata: { namespace: 'demo', name: 'basic' }, status: {} }, key: 'TidbMonitor:eks/demo/basic' },
    { name: 'a StatefulSet the monitor controls wakes the monitor, never the TidbCluster of the same name', kind: 'StatefulSet' as const, obj: sts('TidbMonitor'), key: 'TidbMonitor:eks/demo/basic' },
    { name: 'a monitor-labelled StatefulSet of another owner maps to nothing', kind: 'StatefulSet' as const, obj: sts('Deployment'), key: undefined },
  ])('$name', ({ kind, obj, key }) => {
    expect(clusterKeyOf(kind, obj as never, 'eks')).toBe(key);
  });
});
