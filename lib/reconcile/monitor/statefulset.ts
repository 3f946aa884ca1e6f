/**
 * One shard's StatefulSet, as v1's `getMonitorStatefulSet` builds it (release-1.6
 * `pkg/monitor/monitor/util.go:1229-1360`): `<tm>-monitor` (shard n > 0: `<tm>-monitor-shard-<n>`),
 * `spec.replicas` pods (default 1), RollingUpdate; init container `monitor-initializer` (copies the
 * dashboards and rules of `TIDB_VERSION` for the first cluster); containers `prometheus` (readiness
 * `GET /-/ready` on 9090), `reloader` (9089), `prometheus-config-reloader` when `prometheusReloader` is
 * set (9088), and `grafana` when set (readiness and liveness `GET /api/health` on 3000, admin
 * credentials from Secret `<tm>-monitor` unless `usernameSecret` / `passwordSecret` name others);
 * volumes for the configs, rules, dashboards and TLS assets; the data volume `tidbmonitor` an emptyDir,
 * or with `persistent` a claim template of `storage` in `storageClassName`.
 */

import type { KubeObject } from '../../model/kube.js';
import type { TidbCluster } from '../../model/kube.js';
import { CLUSTER_ASSETS_TLS_PATH } from './prometheus-config.js';
import { grafanaConfigMapName, monitorLabels, monitorObjectName, monitorOwnerReference, shardInstanceName, shardStatefulSetName, tlsAssetsSecretName } from './names.js';
import type { MonitorContainer, TidbMonitor } from './types.js';
import { timezoneOf } from './types.js';

/** The data volume's (and claim template's) name: `v1alpha1.TidbMonitorMemberType`. */
export const DATA_VOLUME = 'tidbmonitor';

type Json = Record<string, unknown>;

const image = (c: MonitorContainer | undefined) => `${c?.baseImage ?? ''}:${c?.version ?? ''}`;
const pullPolicy = (c: MonitorContainer | undefined, tm: TidbMonitor) => {
  const policy = c?.imagePullPolicy ?? tm.spec?.imagePullPolicy;
  return policy ? { imagePullPolicy: policy } : {};
};
const resources = (c: MonitorContainer | undefined) => {
  const out: Json = {};
  if (c?.requests !== undefined) out['requests'] = c.requests;
  if (c?.limits !== undefined) out['limits'] = c.limits;
  return Object.keys(out).length === 0 ? {} : { resources: out };
};
const mount = (name: string, mountPath: string, readOnly?: boolean) => ({ name, mountPath, ...(readOnly === undefined ? {} : { readOnly }) });
const fieldEnv = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });

/** `getAlertManagerRulesVersion`: `tidb:<alertManagerRulesVersion or initializer.version>`. */
export function rulesVersion(tm: TidbMonitor): string {
  return `tidb:${tm.spec?.alertManagerRulesVersion ?? tm.spec?.initializer?.version ?? ''}`;
}

/** The StatefulSet of `shard`; `tc` is the first monitored cluster that runs its own PD (its name, namespace and timezone go to the initializer). */
export function monitorStatefulSet(tm: TidbMonitor, tc: TidbCluster | undefined, shard: number): KubeObject {
  const spec = tm.spec ?? {};
  const name = shardStatefulSetName(tm, shard);
  const labels = monitorLabels(shardInstanceName(tm, shard));
  const containers = [prometheusContainer(tm, shard), reloaderContainer(tm)];
  if (spec.prometheusReloader !== undefined) containers.push(configReloaderContainer(tm, shard));
  if (spec.grafana !== undefined) containers.push(grafanaContainer(tm));
  const podSpec: Json = {
    serviceAccountName: monitorObjectName(tm),
    initContainers: [initializerContainer(tm, tc)],
    containers,
    volumes: volumes(tm),
    ...(spec.podSecurityContext !== undefined ? { securityContext: spec.podSecurityContext } : {}),
    ...(spec.tolerations !== undefined ? { tolerations: spec.tolerations } : {}),
    ...(spec.nodeSelector !== undefined ? { nodeSelector: spec.nodeSelector } : {}),
    ...(spec.imagePullSecrets !== undefined ? { imagePullSecrets: spec.imagePullSecrets } : {}),
  };
  const claims = spec.persistent === true && (spec.storage ?? '') !== '' ? [claimTemplate(tm)] : undefined;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: tm.metadata.namespace ?? '', labels, ...(spec.annotations ? { annotations: { ...spec.annotations } } : {}), ownerReferences: [monitorOwnerReference(tm)] },
    spec: {
      serviceName: name,
      replicas: spec.replicas ?? 1,
      updateStrategy: { type: 'RollingUpdate' },
      selector: { matchLabels: labels },
      template: { metadata: { labels: { ...labels, ...(spec.labels ?? {}) }, ...(spec.annotations ? { annotations: { ...spec.annotations } } : {}) }, spec: podSpec },
      ...(claims === undefined ? {} : { volumeClaimTemplates: claims }),
    },
  };
}

function initializerContainer(tm: TidbMonitor, tc: TidbCluster | undefined): Json {
  const spec = tm.spec ?? {};
  const grafana = spec.grafana !== undefined;
  const dirs = grafana ? '/data/prometheus /data/grafana' : '/data/prometheus';
  const env: Json[] = [
    { name: 'PROM_CONFIG_PATH', value: '/prometheus-rules' },
    { name: 'PROM_PERSISTENT_DIR', value: '/data' },
    { name: 'GF_TIDB_PROMETHEUS_URL', value: 'http://127.0.0.1:9090' },
    { name: 'TIDB_VERSION', value: rulesVersion(tm) },
  ];
  if (tc !== undefined) {
    env.push({ name: 'TZ', value: tc.spec?.timezone || 'UTC' });
    env.push({ name: 'TIDB_ENABLE_BINLOG', value: String(tc.spec?.pump !== undefined) });
    env.push({ name: 'TIDB_CLUSTER_NAME', value: tc.metadata.name ?? '' });
    env.push({ name: 'TIDB_CLUSTER_NAMESPACE', value: tc.metadata.namespace ?? '' });
  } else {
    env.push({ name: 'TZ', value: timezoneOf(tm) });
  }
  if (spec.kubePrometheusURL) env.push({ name: 'GF_K8S_PROMETHEUS_URL', value: spec.kubePrometheusURL });
  const mounts: Json[] = [mount('prometheus-rules', '/prometheus-rules', false), mount(DATA_VOLUME, '/data')];
  if (grafana) {
    mounts.push(mount('datasource', '/etc/grafana/provisioning/datasources', false), mount('grafana-dashboard', '/grafana-dashboard-definitions/tidb', false));
    env.push({ name: 'GF_PROVISIONING_PATH', value: '/grafana-dashboard-definitions/tidb' }, { name: 'GF_DATASOURCE_PATH', value: '/etc/grafana/provisioning/datasources' });
  }
  return {
    name: 'monitor-initializer',
    image: image(spec.initializer),
    env: overwriteEnv(env, spec.initializer?.envs),
    command: ['/bin/sh', '-c', `mkdir -p ${dirs}\nchmod 777 ${dirs}\n/usr/bin/init.sh`],
    volumeMounts: mounts,
    ...resources(spec.initializer),
    ...(spec.initializer?.securityContext !== undefined ? { securityContext: spec.initializer.securityContext } : {}),
    ...pullPolicy(spec.initializer, tm),
  };
}

function prometheusContainer(tm: TidbMonitor, shard: number): Json {
  const prom = tm.spec?.prometheus ?? {};
  const retention = prom.retentionTime ?? `${prom.reserveDays ?? 0}d`;
  const args = [
    `sed -e '5s/[()]//g' -e 's/SHARD//g'  -e 's/$NAMESPACE/'"$NAMESPACE"'/g;s/$POD_NAME/'"$POD_NAME"'/g;s/$()/'$(SHARD)'/g' /etc/prometheus/config/prometheus.yml > /etc/prometheus/config_out/prometheus.yml && /bin/prometheus --web.enable-admin-api --web.enable-lifecycle --config.file=/etc/prometheus/config_out/prometheus.yml --storage.tsdb.path=/data/prometheus --storage.tsdb.retention.time=${retention}`,
  ];
  if (prom.logLevel) args.push(`--log.level=${prom.logLevel}`);
  args.push(...(prom.config?.commandOptions ?? []));
  if (prom.disableCompaction === true) args.push('--storage.tsdb.max-block-duration=2h', '--storage.tsdb.min-block-duration=2h');
  const mounts: unknown[] = [
    mount('prometheus-config-out', '/etc/prometheus/config_out', false),
    mount('prometheus-config', '/etc/prometheus/config', true),
    mount(DATA_VOLUME, '/data'),
    mount('prometheus-rules', '/prometheus-rules', false),
    mount('tls-assets', CLUSTER_ASSETS_TLS_PATH, true),
    ...(prom.additionalVolumeMounts ?? []),
  ];
  if (prom.config?.ruleConfigRef !== undefined) mounts.push(mount('external-rules', '/prometheus-external-rules', true));
  return {
    name: 'prometheus',
    image: image(prom),
    command: ['/bin/sh', '-c', args.join(' ')],
    ports: [{ name: 'prometheus', containerPort: 9090, protocol: 'TCP' }],
    env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('NAMESPACE', 'metadata.namespace'), { name: 'SHARD', value: String(shard) }, { name: 'TZ', value: timezoneOf(tm) }],
    volumeMounts: mounts,
    // v1: no liveness probe (it would break the WAL replay); up to 10 minutes to become ready.
    readinessProbe: { httpGet: { path: '/-/ready', port: 9090 }, timeoutSeconds: 3, periodSeconds: 5, failureThreshold: 120 },
    ...resources(prom),
    ...(prom.securityContext !== undefined ? { securityContext: prom.securityContext } : {}),
    ...pullPolicy(prom, tm),
  };
}

function reloaderContainer(tm: TidbMonitor): Json {
  const reloader = tm.spec?.reloader ?? {};
  return {
    name: 'reloader',
    image: image(reloader),
    command: ['/bin/reload', '--root-store-path=/data', `--sub-store-path=${rulesVersion(tm)}`, '--watch-path=/prometheus-rules/rules', '--prometheus-url=http://127.0.0.1:9090'],
    ports: [{ name: 'reloader', containerPort: 9089, protocol: 'TCP' }],
    volumeMounts: [mount('prometheus-rules', '/prometheus-rules', false), mount(DATA_VOLUME, '/data')],
    env: [{ name: 'TZ', value: timezoneOf(tm) }],
    ...resources(reloader),
    ...(reloader.securityContext !== undefined ? { securityContext: reloader.securityContext } : {}),
    ...pullPolicy(reloader, tm),
  };
}

function configReloaderContainer(tm: TidbMonitor, shard: number): Json {
  const c = tm.spec?.prometheusReloader ?? {};
  const external = tm.spec?.prometheus?.config?.ruleConfigRef !== undefined;
  return {
    name: 'prometheus-config-reloader',
    image: image(c),
    command: [
      '/bin/prometheus-config-reloader',
      '--listen-address=:9088',
      '--reload-url=http://localhost:9090/-/reload',
      '--config-file=/etc/prometheus/config/prometheus.yml',
      '--config-envsubst-file=/etc/prometheus/config_out/prometheus.yml',
      ...(external ? ['--watched-dir=/prometheus-external-rules'] : []),
    ],
    ports: [{ name: 'reloader', containerPort: 9088, protocol: 'TCP' }],
    env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('NAMESPACE', 'metadata.namespace'), { name: 'SHARD', value: String(shard) }],
    volumeMounts: [
      mount('prometheus-config-out', '/etc/prometheus/config_out', false),
      mount('prometheus-config', '/etc/prometheus/config', true),
      ...(external ? [mount('external-rules', '/prometheus-external-rules', true)] : []),
    ],
    ...resources(c),
    ...(c.securityContext !== undefined ? { securityContext: c.securityContext } : {}),
    ...pullPolicy(c, tm),
  };
}

function grafanaContainer(tm: TidbMonitor): Json {
  const g = tm.spec?.grafana ?? {};
  const secretRef = (ref: { name?: string; key?: string } | undefined, key: string) => ({ secretKeyRef: ref ?? { name: monitorObjectName(tm), key } });
  const env: Json[] = [
    { name: 'GF_PATHS_DATA', value: '/data/grafana' },
    { name: 'GF_SECURITY_ADMIN_USER', valueFrom: secretRef(g.usernameSecret, 'username') },
    { name: 'GF_SECURITY_ADMIN_PASSWORD', valueFrom: secretRef(g.passwordSecret, 'password') },
    { name: 'TZ', value: timezoneOf(tm) },
  ];
  const health = { httpGet: { path: '/api/health', port: 3000 } };
  return {
    name: 'grafana',
    image: image(g),
    ports: [{ name: 'grafana', containerPort: 3000, protocol: 'TCP' }],
    // v1 sorts Grafana's env by name after the overrides.
    env: overwriteEnv(env, g.envs).sort((a, b) => String(a['name']).localeCompare(String(b['name']))),
    volumeMounts: [
      mount(DATA_VOLUME, '/data'),
      mount('datasource', '/etc/grafana/provisioning/datasources', false),
      mount('dashboards-provisioning', '/etc/grafana/provisioning/dashboards', false),
      mount('grafana-dashboard', '/grafana-dashboard-definitions/tidb', false),
      ...(g.additionalVolumeMounts ?? []),
    ],
    readinessProbe: { ...health, timeoutSeconds: 5, periodSeconds: 10, successThreshold: 1 },
    livenessProbe: { ...health, timeoutSeconds: 5, failureThreshold: 10, periodSeconds: 10, successThreshold: 1, initialDelaySeconds: 30 },
    ...resources(g),
    ...(g.securityContext !== undefined ? { securityContext: g.securityContext } : {}),
    ...pullPolicy(g, tm),
  };
}

/** `getMonitorVolumes`, in v1's order. */
function volumes(tm: TidbMonitor): unknown[] {
  const spec = tm.spec ?? {};
  const empty = (name: string) => ({ name, emptyDir: {} });
  const out: unknown[] = [];
  if (spec.persistent !== true) out.push(empty(DATA_VOLUME));
  out.push({ name: 'prometheus-config', configMap: { name: monitorObjectName(tm) } });
  if (spec.grafana !== undefined) out.push(empty('datasource'), { name: 'dashboards-provisioning', configMap: { name: grafanaConfigMapName(tm) } }, empty('grafana-dashboard'));
  out.push(empty('prometheus-rules'), empty('prometheus-config-out'), ...(spec.additionalVolumes ?? []));
  out.push({ name: 'tls-assets', secret: { secretName: tlsAssetsSecretName(tm), defaultMode: 420 } });
  const rules = spec.prometheus?.config?.ruleConfigRef?.name;
  if (rules) out.push({ name: 'external-rules', configMap: { name: rules } });
  return out;
}

/** `getMonitorVolumeClaims`: the `tidbmonitor` claim template (ReadWriteOnce). */
function claimTemplate(tm: TidbMonitor): Json {
  const spec = tm.spec ?? {};
  return {
    metadata: { name: DATA_VOLUME },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: spec.storage } },
      ...(spec.storageClassName ? { storageClassName: spec.storageClassName } : {}),
    },
  };
}

/** `AppendOverwriteEnv`: an override replaces the variable of the same name, a new one is appended (overrides in name order). */
function overwriteEnv(env: Json[], overrides: Readonly<Record<string, string>> | undefined): Json[] {
  const out = [...env];
  for (const name of Object.keys(overrides ?? {}).sort()) {
    const value = overrides?.[name] ?? '';
    const i = out.findIndex((e) => e['name'] === name);
    if (i >= 0) out[i] = { name, value };
    else out.push({ name, value });
  }
  return out;
}
