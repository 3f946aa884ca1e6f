/**
 * TiDB's pod template and claim templates, as TiDB Operator v1's `getNewTiDBSetForTidbCluster`
 * (§2.0, §2.4): image `<baseImage>:<version>`, the start script and tidb.toml from the ConfigMap,
 * ports `server` 4000 and `status` 10080, a readiness probe (TCP 4000 after 10 s, or `curl /status`
 * for `readinessProbe.type: command`), the slow-log sidecar `slowlog` tailing the slow-query file on
 * an emptyDir (unless `separateSlowLog: false`), the cluster and MySQL-client TLS Secrets when
 * `tlsCluster` / `tidb.tlsClient` are on, scheduling settings, and claim templates only for
 * `spec.tidb.storageVolumes` (TiDB keeps no data of its own).
 */

import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../../model/kube.js';
import { isTlsCluster } from '../../cluster/tls.js';
import { componentImage, componentPodTemplate, containerResources, defined, imagePullPolicyOf, tcpReadinessProbe } from '../../member/pod-spec.js';
import { ANNOTATIONS_MOUNT, ANNOTATIONS_VOLUME, clusterCertWiring, storageVolumeClaims, storageVolumeMounts, type ClaimTemplate } from '../../member/pod-volumes.js';
import { scriptedConfigMounts, scriptedConfigVolumes, startScriptCommand } from '../../member/start-script.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { TIDB_CLUSTER_TLS_PATH, TIDB_SERVER_TLS_PATH, isTidbTlsClient, tidbServerSecretName } from './config-map.js';
import { TIDB_PORTS, tidbPeerServiceName } from './names.js';

/** As TiDB Operator: the readiness probe starts after 10 s. */
export const DEFAULT_TIDB_PROBE_DELAY_SECONDS = 10;
/** As TiDB Operator: the slow-query log file the sidecar tails. */
export const TIDB_SLOW_LOG_FILE = '/var/log/tidb/slowlog';
/** As TiDB Operator: the helper image of the slow-log sidecar unless `spec.helper.image` says otherwise. */
export const DEFAULT_HELPER_IMAGE = 'busybox:1.26.2';

type TidbSpec = NonNullable<TidbCluster['spec']['tidb']>;

/** The TiDB image: `spec.tidb.image` when set, else `<baseImage>:<version>` (`spec.tidb.version` or `spec.version`). */
export const tidbImage = (tc: TidbCluster): string => componentImage(tc, tc.spec.tidb, 'pingcap/tidb');

/** Whether the slow log goes to its own file tailed by the sidecar (TiDB Operator's default: yes). */
export const isSlowLogSeparate = (tidb: TidbSpec | undefined): boolean => tidb?.separateSlowLog !== false;

function readinessProbe(tc: TidbCluster): IContainer['readinessProbe'] {
  const probe = tc.spec.tidb?.readinessProbe;
  if (probe?.type === 'command') {
    const timing = { initialDelaySeconds: probe.initialDelaySeconds ?? DEFAULT_TIDB_PROBE_DELAY_SECONDS, periodSeconds: probe.periodSeconds };
    const scheme = isTlsCluster(tc) ? 'https' : 'http';
    // As TiDB Operator: under cluster TLS curl trusts the cluster CA and presents TiDB's own certificate.
    const at = (file: string): string => `${TIDB_CLUSTER_TLS_PATH}/${file}`;
    const tls = isTlsCluster(tc) ? ['--cacert', at('ca.crt'), '--cert', at('tls.crt'), '--key', at('tls.key')] : [];
    return defined({ exec: { command: ['curl', `${scheme}://127.0.0.1:${TIDB_PORTS.status}/status`, '--fail', '--location', ...tls] }, ...timing });
  }
  return tcpReadinessProbe(TIDB_PORTS.server, probe, DEFAULT_TIDB_PROBE_DELAY_SECONDS);
}

function tidbContainer(tc: TidbCluster): IContainer {
  const tidb = tc.spec.tidb;
  const slowLog = isSlowLogSeparate(tidb);
  const env = [
    { name: 'CLUSTER_NAME', value: tc.metadata.name ?? '' },
    { name: 'TZ', value: tc.spec.timezone ?? 'UTC' },
    { name: 'BINLOG_ENABLED', value: String(tidb?.binlogEnabled ?? tc.spec.pump !== undefined) },
    ...(slowLog ? [{ name: 'SLOW_LOG_FILE', value: TIDB_SLOW_LOG_FILE }] : []),
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'HEADLESS_SERVICE_NAME', value: tidbPeerServiceName(tc) },
    ...(tidb?.env ?? []),
  ];
  return defined({
    name: 'tidb',
    image: tidbImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, tidb),
    command: startScriptCommand('tidb'),
    ports: [
      { name: 'server', containerPort: TIDB_PORTS.server, protocol: 'TCP' },
      { name: 'status', containerPort: TIDB_PORTS.status, protocol: 'TCP' },
    ],
    volumeMounts: [
      ANNOTATIONS_MOUNT,
      ...scriptedConfigMounts('tidb'),
      ...clusterCertWiring(tc, 'tidb', false).mounts,
      ...(isTidbTlsClient(tc) ? [{ name: 'tidb-server-tls', readOnly: true, mountPath: TIDB_SERVER_TLS_PATH }] : []),
      ...(slowLog ? [{ name: 'slowlog', mountPath: '/var/log/tidb' }] : []),
      ...storageVolumeMounts('tidb', tidb),
      ...(tidb?.additionalVolumeMounts ?? []),
    ],
    resources: containerResources(tidb),
    env,
    envFrom: tidb?.envFrom,
    readinessProbe: readinessProbe(tc),
  });
}

/** As TiDB Operator: the `slowlog` sidecar tails the slow-query file (it shows in `kubectl logs -c slowlog`). */
function slowLogContainer(tc: TidbCluster): IContainer {
  const tailer = tc.spec.tidb?.slowLogTailer;
  return defined({
    name: 'slowlog',
    image: tailer?.image ?? tc.spec.helper?.image ?? DEFAULT_HELPER_IMAGE,
    imagePullPolicy: tailer?.imagePullPolicy ?? tc.spec.helper?.imagePullPolicy ?? tc.spec.imagePullPolicy ?? 'IfNotPresent',
    command: ['sh', '-c', `touch ${TIDB_SLOW_LOG_FILE}; tail -n0 -F ${TIDB_SLOW_LOG_FILE};`],
    volumeMounts: [{ name: 'slowlog', mountPath: '/var/log/tidb' }],
    resources: defined({ requests: tailer?.requests, limits: tailer?.limits }),
  });
}

function tidbVolumes(tc: TidbCluster, configMap: string): IVolume[] {
  const tidb = tc.spec.tidb;
  return [
    ANNOTATIONS_VOLUME,
    ...scriptedConfigVolumes('tidb', configMap),
    // As TiDB Operator: TiDB's certificate at /var/lib/tidb-tls (TIDB_CLUSTER_TLS_PATH), no client certificate.
    ...clusterCertWiring(tc, 'tidb', false).volumes,
    // As TiDB Operator: the pod does not start until the server Secret exists (the kubelet cannot mount it).
    ...(isTidbTlsClient(tc) ? [{ name: 'tidb-server-tls', secret: { secretName: tidbServerSecretName(tc) } }] : []),
    // As TiDB Operator: the slow log lives on an emptyDir unless a named volume is given for it.
    ...(isSlowLogSeparate(tidb) && (tidb?.slowLogVolumeName ?? '') === '' ? [{ name: 'slowlog', emptyDir: {} }] : []),
    ...(tidb?.additionalVolumes ?? []),
  ];
}

/** The desired pod template: labels, Prometheus annotations, scheduling settings, `tidb` and `slowlog`. */
export function tidbPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  const own = isSlowLogSeparate(tc.spec.tidb) ? [tidbContainer(tc), slowLogContainer(tc)] : [tidbContainer(tc)];
  // As TiDB Operator: an additional container named `tidb` or `slowlog` patches that container.
  return componentPodTemplate(tc, 'tidb', tc.spec.tidb, { containers: own, volumes: tidbVolumes(tc, configMap), metricsPort: TIDB_PORTS.status });
}

/** TiDB's volume claim templates: one per `spec.tidb.storageVolumes` entry (`tidb-<name>`), none otherwise. */
export function tidbClaimTemplates(tc: TidbCluster): ClaimTemplate[] {
  return storageVolumeClaims('tidb', tc.spec.tidb);
}
