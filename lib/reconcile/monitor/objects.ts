/**
 * The objects around a TidbMonitor's StatefulSets, as v1 builds them (release-1.6
 * `pkg/monitor/monitor/util.go`): per shard the Services `<tm>-prometheus` (9090), `<tm>-monitor-reloader`
 * (9089) and, with Grafana, `<tm>-grafana` (3000); the ConfigMaps `<tm>-monitor` (prometheus.yml) and,
 * with Grafana, `<tm>-monitor-grafana` (dashboards provisioning); the Secrets `<tm>-monitor` (Grafana's
 * admin user and password from the spec); the ServiceAccount, and the
 * Role and RoleBinding (`clusterScoped`: ClusterRole and ClusterRoleBinding `<ns>-<tm>-monitor`) that let
 * Prometheus discover pods. Every namespaced object carries the monitor as its controller owner.
 */

import type { KubeObject } from '../../model/kube.js';
import { monitorLabels, monitorObjectName, monitorOwnerReference, MONITOR_LABEL, crossNamespaceName, grafanaConfigMapName, shardSelector, shardServiceName } from './names.js';
import type { MonitorServiceSpec, TidbMonitor } from './types.js';
import { shardsOf } from './types.js';

/** v1's dashboards provisioning file for Grafana (`dashBoardConfig`, template.go). */
export const DASHBOARDS_PROVISIONING = `{
    "apiVersion": 1,
    "providers": [
        {
            "folder": "",
            "name": "0",
            "options": {
                "path": "/grafana-dashboard-definitions/tidb"
            },
\t\t\t"allowUiUpdates":true,
            "orgId": 1,
            "type": "file"
        }
    ]
}`;

/** The rules of the monitor's Role: Prometheus's pod discovery (v1's OpenShift `anyuid` rule does not apply on EKS). */
export const MONITOR_POLICY_RULES = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }];

function meta(tm: TidbMonitor, name: string, labels: Record<string, string>, annotations?: Record<string, string>): KubeObject['metadata'] {
  return {
    name,
    namespace: tm.metadata.namespace ?? '',
    labels,
    ...(annotations !== undefined && Object.keys(annotations).length > 0 ? { annotations } : {}),
    ownerReferences: [monitorOwnerReference(tm)],
  };
}

/** `getMonitorService`: every shard's Services, in v1's order (prometheus, reloader, grafana). */
export function monitorServices(tm: TidbMonitor): KubeObject[] {
  const spec = tm.spec ?? {};
  const name = tm.metadata.name ?? '';
  const out: KubeObject[] = [];
  for (let shard = 0; shard < shardsOf(tm); shard += 1) {
    const selector = shardSelector(tm, shard);
    const service = (what: 'prometheus' | 'grafana' | 'monitor-reloader', svc: MonitorServiceSpec | undefined, labels: Record<string, string>, portName: string, port: number) =>
      serviceObject(tm, shardServiceName(tm, what, shard), svc, { ...labels, ...(svc?.labels ?? {}), ...(spec.labels ?? {}) }, selector, svc?.portName ?? portName, port);
    const base = monitorLabels(name);
    out.push(service('prometheus', spec.prometheus?.service, { ...base, [MONITOR_LABEL.usedBy]: 'prometheus' }, 'http-prometheus', 9090));
    out.push(service('monitor-reloader', spec.reloader?.service, base, 'tcp-reloader', 9089));
    if (spec.grafana !== undefined) out.push(service('grafana', spec.grafana.service, { ...base, [MONITOR_LABEL.usedBy]: 'grafana' }, 'http-grafana', 3000));
  }
  return out;
}

function serviceObject(tm: TidbMonitor, name: string, svc: MonitorServiceSpec | undefined, labels: Record<string, string>, selector: Record<string, string>, portName: string, port: number): KubeObject {
  const type = svc?.type || 'ClusterIP';
  const lb = type === 'LoadBalancer' ? { ...(svc?.loadBalancerIP ? { loadBalancerIP: svc.loadBalancerIP } : {}), ...(svc?.loadBalancerSourceRanges ? { loadBalancerSourceRanges: svc.loadBalancerSourceRanges } : {}) } : {};
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(tm, name, labels, { ...(svc?.annotations ?? {}), ...(tm.spec?.annotations ?? {}) }),
    spec: { ports: [{ name: portName, port, protocol: 'TCP', targetPort: port }], type, selector, ...lb },
  };
}

/** `getPromConfigMap`: ConfigMap `<tm>-monitor` holding `prometheus.yml`. */
export function prometheusConfigMap(tm: TidbMonitor, prometheusYml: string): KubeObject {
  const labels = { ...monitorLabels(tm.metadata.name ?? ''), [MONITOR_LABEL.app]: 'prometheus' };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(tm, monitorObjectName(tm), labels), data: { 'prometheus.yml': prometheusYml } };
}

/** `getGrafanaConfigMap`: ConfigMap `<tm>-monitor-grafana` holding `dashboards.yaml`. */
export function grafanaConfigMap(tm: TidbMonitor): KubeObject {
  const labels = { ...monitorLabels(tm.metadata.name ?? ''), [MONITOR_LABEL.app]: 'grafana' };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(tm, grafanaConfigMapName(tm), labels), data: { 'dashboards.yaml': DASHBOARDS_PROVISIONING } };
}

/** `getMonitorSecret`: Secret `<tm>-monitor` with Grafana's admin `username` and `password` as the spec gives them. */
export function grafanaSecret(tm: TidbMonitor): KubeObject {
  const b64 = (v: string | undefined) => Buffer.from(v ?? '', 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(tm, monitorObjectName(tm), monitorLabels(tm.metadata.name ?? '')),
    type: 'Opaque',
    data: { username: b64(tm.spec?.grafana?.username), password: b64(tm.spec?.grafana?.password) },
  };
}

/** `getMonitorServiceAccount`. */
export function monitorServiceAccount(tm: TidbMonitor): KubeObject {
  const automount = tm.spec?.automountServiceAccountToken;
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(tm, monitorObjectName(tm), monitorLabels(tm.metadata.name ?? '')), ...(automount === undefined ? {} : { automountServiceAccountToken: automount }) };
}

/**
 * `syncTidbMonitorRbac`'s Role and RoleBinding, or for a `clusterScoped` monitor the ClusterRole and
 * ClusterRoleBinding `<ns>-<tm>-monitor` (cluster-scoped: no owner reference, deleted by the
 * finalizer's clean-up instead).
 */
export function monitorRbac(tm: TidbMonitor): KubeObject[] {
  const labels = monitorLabels(tm.metadata.name ?? '');
  const subject = { kind: 'ServiceAccount', name: monitorObjectName(tm), namespace: tm.metadata.namespace ?? '' };
  if (tm.spec?.clusterScoped === true) {
    const name = crossNamespaceName(tm);
    return [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules: MONITOR_POLICY_RULES },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name, labels }, subjects: [subject], roleRef: { kind: 'ClusterRole', name, apiGroup: 'rbac.authorization.k8s.io' } },
    ];
  }
  const name = monitorObjectName(tm);
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(tm, name, labels), rules: MONITOR_POLICY_RULES },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta(tm, name, labels), subjects: [subject], roleRef: { kind: 'Role', name, apiGroup: 'rbac.authorization.k8s.io' } },
  ];
}
