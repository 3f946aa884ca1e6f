/**
 * Pump's ConfigMap data, pod template and claim template, as TiDB Operator v1's
 * `getNewPumpConfigMap` and `getNewPumpStatefulSet` (§2.6): `pump-config` (pump.toml, always, with
 * the cluster certificate paths under cluster TLS) mounted at `/etc/pump`; the start script inlined
 * in the command, advertising `<pod>.<tc>-pump:8250` and idling (`tail -f /dev/null`) once the
 * server exits cleanly, so an offline Pump keeps its pod; a TCP readiness probe on 8250; the data
 * claim `data` at `/data`.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';

import type { TidbCluster } from '../../../model/kube.js';
import { componentLabels } from '../../../model/labels.js';
import { clusterScheme, clusterTlsSecretName, isTlsCluster } from '../../cluster/tls.js';
import { renderConfig, type ConfigData, type TomlValue } from '../../member/config-data.js';
import { mergeContainers } from '../../member/container-merge.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { defined } from '../pd/pod-template.js';
import { PUMP_PORT, pumpSetName } from './names.js';

type PodSpec = NonNullable<PodTemplate['spec']>;

/** Pump's ConfigMap key. */
export const PUMP_CONFIG_KEY = 'pump-config';

/** Used when `spec.pump.requests.storage` is unset. */
export const DEFAULT_PUMP_STORAGE = '1Gi';

// As TiDB Operator: where Pump's cluster certificate is mounted.
const PUMP_CERT = { volume: 'pump-tls', mountPath: '/var/lib/pump-tls' } as const;

/** The ConfigMap data: `pump-config`, with `security.ssl-*` pointing at the certificate under cluster TLS. */
export function pumpConfigData(tc: TidbCluster): ConfigData {
  const overlay: Record<string, TomlValue> = isTlsCluster(tc)
    ? { 'security.ssl-ca': `${PUMP_CERT.mountPath}/ca.crt`, 'security.ssl-cert': `${PUMP_CERT.mountPath}/tls.crt`, 'security.ssl-key': `${PUMP_CERT.mountPath}/tls.key` }
    : {};
  return { [PUMP_CONFIG_KEY]: renderConfig(tc.spec.pump?.config, overlay) };
}

/** The Pump image: `spec.pump.image`, else `<baseImage>:<version>` (base `pingcap/tidb-binlog`). */
export function pumpImage(tc: TidbCluster): string {
  const pump = tc.spec.pump;
  if (pump?.image !== undefined && pump.image !== '') return pump.image;
  const base = pump?.baseImage ?? 'pingcap/tidb-binlog';
  const version = pump?.version ?? tc.spec.version;
  return version === undefined || version === '' ? base : `${base}:${version}`;
}

/** As TiDB Operator's Pump start script (see the module comment); PD is the cluster's own or the referenced one's. */
export function pumpStartScript(tc: TidbCluster): string {
  const name = tc.metadata.name ?? '';
  const pdName = tc.spec.pd === undefined && tc.spec.cluster?.name ? tc.spec.cluster.name : name;
  const domain = tc.spec.clusterDomain ? `.${tc.metadata.namespace ?? ''}.svc.${tc.spec.clusterDomain}` : '';
  return [
    'set -euo pipefail',
    '',
    '/pump \\',
    `-pd-urls=${clusterScheme(tc)}://${pdName}-pd:2379 \\`,
    '-L=info \\',
    `-advertise-addr=\`echo \${HOSTNAME}\`.${pumpSetName(tc)}${domain}:${PUMP_PORT} \\`,
    '-config=/etc/pump/pump.toml \\',
    '-data-dir=/data \\',
    '-log-file=',
    '',
    'if [ $? == 0 ]; then',
    '    echo $(date -u +"[%Y/%m/%d %H:%M:%S.%3N %:z]") "pump offline, please delete my pod"',
    '    tail -f /dev/null',
    'fi',
    '',
  ].join('\n');
}

function pumpContainer(tc: TidbCluster): IContainer {
  const pump = tc.spec.pump;
  const { storage: _storage, ...requests } = pump?.requests ?? {};
  const hostNetwork = pump?.hostNetwork ?? tc.spec.hostNetwork;
  return defined({
    name: 'pump',
    image: pumpImage(tc),
    imagePullPolicy: pump?.imagePullPolicy ?? tc.spec.imagePullPolicy ?? 'IfNotPresent',
    command: ['/bin/sh', '-c', pumpStartScript(tc)],
    ports: [{ name: 'pump', containerPort: PUMP_PORT }],
    resources: defined({ requests: Object.keys(requests).length > 0 ? requests : undefined, limits: pump?.limits }),
    env: [
      ...(pump?.setTimeZone === true ? [{ name: 'TZ', value: tc.spec.timezone ?? 'UTC' }] : []),
      ...(hostNetwork === true ? [{ name: 'HOSTNAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] : []),
      ...(pump?.env ?? []),
    ],
    envFrom: pump?.envFrom,
    volumeMounts: [
      { name: 'data', mountPath: '/data' },
      { name: 'config', mountPath: '/etc/pump' },
      ...(isTlsCluster(tc) ? [{ name: PUMP_CERT.volume, readOnly: true, mountPath: PUMP_CERT.mountPath }] : []),
      { name: 'annotations', readOnly: true, mountPath: '/etc/podinfo' },
      ...(pump?.additionalVolumeMounts ?? []),
    ],
    readinessProbe: { tcpSocket: { port: PUMP_PORT } },
  });
}

/** The desired pod template: labels, Prometheus annotations, scheduling settings, the `pump` container. */
export function pumpPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  const pump = tc.spec.pump;
  const hostNetwork = pump?.hostNetwork ?? tc.spec.hostNetwork;
  const nodeSelector = { ...tc.spec.nodeSelector, ...pump?.nodeSelector };
  const annotations = { ...tc.spec.annotations, ...pump?.annotations, 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': String(PUMP_PORT) };
  const spec: PodSpec = defined({
    schedulerName: pump?.schedulerName ?? tc.spec.schedulerName,
    affinity: pump?.affinity ?? tc.spec.affinity,
    nodeSelector: Object.keys(nodeSelector).length > 0 ? nodeSelector : undefined,
    tolerations: pump?.tolerations ?? tc.spec.tolerations,
    priorityClassName: pump?.priorityClassName ?? tc.spec.priorityClassName,
    imagePullSecrets: pump?.imagePullSecrets ?? tc.spec.imagePullSecrets,
    securityContext: pump?.podSecurityContext ?? tc.spec.podSecurityContext,
    serviceAccountName: pump?.serviceAccount ?? tc.spec.serviceAccount,
    hostNetwork: hostNetwork === true ? true : undefined,
    dnsPolicy: pump?.dnsPolicy ?? tc.spec.dnsPolicy ?? (hostNetwork === true ? 'ClusterFirstWithHostNet' : undefined),
    dnsConfig: pump?.dnsConfig ?? tc.spec.dnsConfig,
    terminationGracePeriodSeconds: pump?.terminationGracePeriodSeconds,
    initContainers: pump?.initContainers,
    containers: mergeContainers([pumpContainer(tc)], pump?.additionalContainers ?? []),
    volumes: [
      { name: 'config', configMap: { name: configMap, items: [{ key: PUMP_CONFIG_KEY, path: 'pump.toml' }] } },
      ...(isTlsCluster(tc) ? [{ name: PUMP_CERT.volume, secret: { secretName: clusterTlsSecretName(tc.metadata.name ?? '', 'pump') } }] : []),
      { name: 'annotations', downwardAPI: { items: [{ path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } }] } },
      ...(pump?.additionalVolumes ?? []),
    ],
  });
  const labels = { ...tc.spec.labels, ...pump?.labels, ...componentLabels(tc, 'pump') };
  return { metadata: { labels, annotations }, spec };
}

/** Pump's claim template: the data claim `data` (PVCs `data-<tc>-pump-<ordinal>`). */
export function pumpClaimTemplates(tc: TidbCluster): NonNullable<NonNullable<IStatefulSet['spec']>['volumeClaimTemplates']> {
  const pump = tc.spec.pump;
  return [
    {
      metadata: { name: 'data' },
      spec: defined({
        accessModes: ['ReadWriteOnce' as const],
        resources: { requests: { storage: pump?.requests?.storage ?? DEFAULT_PUMP_STORAGE } },
        storageClassName: pump?.storageClassName,
        volumeAttributesClassName: pump?.volumeAttributesClassName,
      }),
    },
  ];
}
