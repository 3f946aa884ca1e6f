/**
 * The `prometheus.yml` of ConfigMap `<tm>-monitor`, as v1 renders it (`RenderPrometheusConfig`,
 * `newPrometheusConfig`, `scrapeJob`, `generateRemoteWrite`; release-1.6 `pkg/monitor/monitor/
 * template.go` and `util.go`): `global` (15 s intervals, the `prometheus_replica` external label), one
 * scrape job per component per cluster — `<ns>-<tc>-<component>`, Kubernetes pod discovery in the
 * cluster's namespace, kept on the cluster's `instance` label, namespace, `prometheus.io/scrape` and
 * component, the address rewritten to the pod's peer DNS name, https with the cluster client
 * certificate under /var/lib/cluster-assets-tls for a TLS cluster — the `hashmod` sharding rules
 * (`$(SHARD)` is substituted by the prometheus container's start command), `remote_write` when set,
 * and `alerting` / `rule_files` as asked. DM jobs are absent: DM clusters are refused (validate.ts).
 */

import { stringify } from 'yaml';
import type { RemoteWriteSpec, TidbMonitor } from './types.js';

/** One monitored cluster as the render needs it: its name, namespace and whether it runs TLS. */
export type MonitoredCluster = { readonly name: string; readonly namespace: string; readonly tls: boolean };

const INSTANCE = '__meta_kubernetes_pod_label_app_kubernetes_io_instance';
const COMPONENT = '__meta_kubernetes_pod_label_app_kubernetes_io_component';
const NAMESPACE = '__meta_kubernetes_namespace';
const POD_NAME = '__meta_kubernetes_pod_name';
const PORT = '__meta_kubernetes_pod_annotation_prometheus_io_port';
const ADDRESS = '(.+);(.+);(.+);(.+)';
/** Where v1 mounts the TLS assets Secret (`util.ClusterAssetsTLSPath`). */
export const CLUSTER_ASSETS_TLS_PATH = '/var/lib/cluster-assets-tls';

type Job = { job: string; component: string; sources: string[]; replacement: string };

// v1's job order; DM jobs and lightning's cluster-less job follow the same pattern.
const JOBS: readonly Job[] = [
  peerJob('pd', 'pd'),
  peerJob('tso', 'tso'),
  peerJob('scheduling', 'scheduling'),
  peerJob('tidb', 'tidb'),
  peerJob('tikv', 'tikv'),
  peerJob('tiproxy', 'tiproxy'),
  peerJob('tiflash', 'tiflash'),
  { job: 'tiflash-proxy', component: 'tiflash', sources: [POD_NAME, INSTANCE, NAMESPACE, '__meta_kubernetes_pod_annotation_tiflash_proxy_prometheus_io_port'], replacement: '$1.$2-tiflash-peer.$3:$4' },
  { job: 'pump', component: 'pump', sources: [POD_NAME, INSTANCE, NAMESPACE, PORT], replacement: '$1.$2-pump.$3:$4' },
  { job: 'drainer', component: 'drainer', sources: [POD_NAME, '__meta_kubernetes_pod_label_app_kubernetes_io_name', NAMESPACE, PORT], replacement: '$1.$2.$3:$4' },
  peerJob('ticdc', 'ticdc'),
  { job: 'lightning', component: 'tidb-lightning', sources: [POD_NAME, '__meta_kubernetes_pod_label_app_kubernetes_io_name', NAMESPACE, PORT], replacement: '$2.$3:$4' },
];

function peerJob(job: string, component: string): Job {
  return { job, component, sources: [POD_NAME, INSTANCE, NAMESPACE, PORT], replacement: `$1.$2-${job}-peer.$3:$4` };
}

/** The rendered prometheus.yml for `clusters`, sharded `shards` ways. */
export function renderPrometheusConfig(tm: TidbMonitor, clusters: readonly MonitoredCluster[], shards: number): string {
  const spec = tm.spec ?? {};
  const config: Record<string, unknown> = {
    global: { evaluation_interval: '15s', scrape_interval: '15s', external_labels: externalLabels(tm) },
    scrape_configs: JOBS.flatMap((job) => clusters.map((c) => scrapeConfig(job, c, shards))),
  };
  const remote = spec.prometheus?.remoteWrite ?? [];
  if (remote.length > 0) config['remote_write'] = remote.map((r) => remoteWrite(r, spec.prometheus?.version ?? ''));
  if (spec.alertmanagerURL) config['alerting'] = { alertmanagers: [{ static_configs: [{ targets: [spec.alertmanagerURL] }] }] };
  let rules: string[] | undefined;
  if (spec.alertmanagerURL || spec.enableAlertRules) rules = ['/prometheus-rules/rules/*.rules.yml'];
  if (spec.prometheus?.config?.ruleConfigRef !== undefined) rules = ['/prometheus-external-rules/*.rules.yml'];
  if (rules !== undefined) config['rule_files'] = rules;
  return stringify(config, { lineWidth: 0 });
}

/** `buildExternalLabels`: `prometheus_replica` (or `replicaExternalLabelName`; none when empty), then `externalLabels`. */
function externalLabels(tm: TidbMonitor): Record<string, string> {
  const name = tm.spec?.replicaExternalLabelName ?? 'prometheus_replica';
  return { ...(name === '' ? {} : { [name]: '$(NAMESPACE)_$(POD_NAME)' }), ...(tm.spec?.externalLabels ?? {}) };
}

function scrapeConfig(job: Job, cluster: MonitoredCluster, shards: number): Record<string, unknown> {
  const tlsAsset = (key: string) => `${CLUSTER_ASSETS_TLS_PATH}/secret_${cluster.namespace}_${cluster.name}-cluster-client-secret_${key}`;
  // tiproxy and lightning speak https without client certificates (v1: no suitable CA for peer addresses).
  const mutual = cluster.tls && job.job !== 'tiproxy' && job.job !== 'lightning';
  const tls = mutual ? { ca_file: tlsAsset('ca.crt'), cert_file: tlsAsset('tls.crt'), key_file: tlsAsset('tls.key') } : { insecure_skip_verify: true };
  return {
    job_name: `${cluster.namespace}-${cluster.name}-${job.job}`,
    honor_labels: true,
    scrape_interval: '15s',
    scheme: cluster.tls ? 'https' : 'http',
    kubernetes_sd_configs: [{ api_server: null, role: 'pod', namespaces: { names: [cluster.namespace] } }],
    tls_config: tls,
    relabel_configs: [
      { source_labels: [INSTANCE], action: 'keep', regex: cluster.name },
      { source_labels: [NAMESPACE], action: 'keep', regex: cluster.namespace },
      { source_labels: ['__meta_kubernetes_pod_annotation_prometheus_io_scrape'], action: 'keep', regex: 'true' },
      { source_labels: [COMPONENT], action: 'keep', regex: job.component },
      { action: 'replace', regex: ADDRESS, replacement: job.replacement, target_label: '__address__', source_labels: job.sources },
      { source_labels: [NAMESPACE], action: 'replace', target_label: 'kubernetes_namespace' },
      { source_labels: [INSTANCE], action: 'replace', target_label: 'cluster' },
      { source_labels: [POD_NAME], action: 'replace', target_label: 'instance' },
      { source_labels: [COMPONENT], action: 'replace', target_label: 'component' },
      { source_labels: [NAMESPACE, INSTANCE], separator: '-', target_label: 'tidb_cluster' },
      { source_labels: ['__meta_kubernetes_pod_annotation_prometheus_io_path'], action: 'replace', target_label: '__metrics_path__', regex: '(.+)' },
      { source_labels: ['__address__'], action: 'hashmod', target_label: '__tmp_hash', modulus: shards },
      { source_labels: ['__tmp_hash'], regex: '$(SHARD)', action: 'keep' },
    ],
  };
}

/** `generateRemoteWrite` for one entry; fields newer than the Prometheus version are left out, as v1 does. */
function remoteWrite(spec: RemoteWriteSpec, version: string): Record<string, unknown> {
  const atLeast = (min: string) => compareVersions(version, min) >= 0;
  const out: Record<string, unknown> = { url: spec.url, remote_timeout: spec.remoteTimeout || '30s' };
  if (spec.headers !== undefined && Object.keys(spec.headers).length > 0 && atLeast('2.25.0')) out['headers'] = sortedRecord(spec.headers);
  if (spec.name && atLeast('2.25.0')) out['name'] = spec.name;
  if (spec.writeRelabelConfigs !== undefined) out['write_relabel_configs'] = spec.writeRelabelConfigs.map(relabeling);
  if (spec.bearerToken) out['bearer_token'] = spec.bearerToken;
  if (spec.bearerTokenFile) out['bearer_token_file'] = spec.bearerTokenFile;
  if (spec.proxyUrl) out['proxy_url'] = spec.proxyUrl;
  if (spec.queueConfig !== undefined) out['queue_config'] = queueConfig(spec.queueConfig, atLeast('2.6.0'));
  if (spec.metadataConfig !== undefined && atLeast('2.23.0')) {
    out['metadata_config'] = { send: spec.metadataConfig.send ?? false, ...(spec.metadataConfig.sendInterval ? { send_interval: spec.metadataConfig.sendInterval } : {}) };
  }
  return out;
}

const QUEUE_FIELDS: readonly [string, string][] = [
  ['capacity', 'capacity'],
  ['minShards', 'min_shards'],
  ['maxShards', 'max_shards'],
  ['maxSamplesPerSend', 'max_samples_per_send'],
  ['batchSendDeadline', 'batch_send_deadline'],
  ['maxRetries', 'max_retries'],
  ['minBackoff', 'min_backoff'],
  ['maxBackoff', 'max_backoff'],
];

function queueConfig(q: Readonly<Record<string, unknown>>, minShardsKnown: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [from, to] of QUEUE_FIELDS) {
    const value = q[from];
    if (value === undefined || value === null || value === 0) continue;
    if (from === 'minShards' && !minShardsKnown) continue;
    out[to] = value;
  }
  return out;
}

const RELABEL_FIELDS: readonly [string, string][] = [
  ['sourceLabels', 'source_labels'],
  ['separator', 'separator'],
  ['targetLabel', 'target_label'],
  ['regex', 'regex'],
  ['modulus', 'modulus'],
  ['replacement', 'replacement'],
  ['action', 'action'],
];

function relabeling(c: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [from, to] of RELABEL_FIELDS) {
    const value = c[from];
    if (value === undefined || value === null || value === '' || value === 0 || (Array.isArray(value) && value.length === 0)) continue;
    out[to] = value;
  }
  return out;
}

function sortedRecord(m: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(m).sort().map((k) => [k, m[k] ?? '']));
}

/** Compares `v2.27.1`-style versions by major, minor, patch (a missing part is 0). */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.replace(/^v/, '').split(/[-+]/)[0]?.split('.').map((p) => Number(p) || 0) ?? [];
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i += 1) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
