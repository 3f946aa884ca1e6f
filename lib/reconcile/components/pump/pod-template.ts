/**
 * Pump's ConfigMap data, pod template and claim template, as TiDB Operator v1's
 * `getNewPumpConfigMap` and `getNewPumpStatefulSet` (§2.6): `pump-config` (pump.toml, always, with
 * the cluster certificate paths under cluster TLS) mounted at `/etc/pump`; the start script inlined
 * in the command, advertising `<pod>.<tc>-pump:8250` and idling (`tail -f /dev/null`) once the
 * server exits cleanly, so an offline Pump keeps its pod; a TCP readiness probe on 8250; the data
 * claim `data` at `/data`.
 */

import type { IContainer } from 'kubernetes-models/v1/Container';

import type { TidbCluster } from '../../../model/kube.js';
import { clusterScheme, isTlsCluster } from '../../cluster/tls.js';
import { renderConfig, type ConfigData, type TomlValue } from '../../member/config-data.js';
import { componentImage, componentPodTemplate, containerResources, defined, imagePullPolicyOf, isHostNetwork } from '../../member/pod-spec.js';
import { ANNOTATIONS_MOUNT, ANNOTATIONS_VOLUME, claimTemplate, clusterCertWiring, configMapFileVolume, type ClaimTemplate } from '../../member/pod-volumes.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { PUMP_PORT, pumpSetName } from './names.js';

/** Pump's ConfigMap key. */
export const PUMP_CONFIG_KEY = 'pump-config';

/** Used when `spec.pump.requests.storage` is unset. */
export const DEFAULT_PUMP_STORAGE = '1Gi';

// As TiDB Operator: where Pump's cluster certificate is mounted (member/pod-volumes.ts mounts it).
const PUMP_CERT_PATH = '/var/lib/pump-tls';

/** The ConfigMap data: `pump-config`, with `security.ssl-*` pointing at the certificate under cluster TLS. */
export function pumpConfigData(tc: TidbCluster): ConfigData {
  const overlay: Record<string, TomlValue> = isTlsCluster(tc)
    ? { 'security.ssl-ca': `${PUMP_CERT_PATH}/ca.crt`, 'security.ssl-cert': `${PUMP_CERT_PATH}/tls.crt`, 'security.ssl-key': `${PUMP_CERT_PATH}/tls.key` }
    : {};
  return { [PUMP_CONFIG_KEY]: renderConfig(tc.spec.pump?.config, overlay) };
}

/** The Pump image: `spec.pump.image`, else `<baseImage>:<version>` (base `pingcap/tidb-binlog`). */
export const pumpImage = (tc: TidbCluster): string => componentImage(tc, tc.spec.pump, 'pingcap/tidb-binlog');

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
  return defined({
    name: 'pump',
    image: pumpImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, pump),
    command: ['/bin/sh', '-c', pumpStartScript(tc)],
    ports: [{ name: 'pump', containerPort: PUMP_PORT }],
    resources: containerResources(pump),
    env: [
      ...(pump?.setTimeZone === true ? [{ name: 'TZ', value: tc.spec.timezone ?? 'UTC' }] : []),
      ...(isHostNetwork(tc, pump) ? [{ name: 'HOSTNAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] : []),
      ...(pump?.env ?? []),
    ],
    envFrom: pump?.envFrom,
    volumeMounts: [
      { name: 'data', mountPath: '/data' },
      { name: 'config', mountPath: '/etc/pump' },
      ...clusterCertWiring(tc, 'pump', false).mounts,
      ANNOTATIONS_MOUNT,
      ...(pump?.additionalVolumeMounts ?? []),
    ],
    readinessProbe: { tcpSocket: { port: PUMP_PORT } },
  });
}

/** The desired pod template: labels, Prometheus annotations, scheduling settings, the `pump` container. */
export function pumpPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  const volumes = [
    configMapFileVolume('config', configMap, PUMP_CONFIG_KEY, 'pump.toml'),
    ...clusterCertWiring(tc, 'pump', false).volumes,
    ANNOTATIONS_VOLUME,
    ...(tc.spec.pump?.additionalVolumes ?? []),
  ];
  return componentPodTemplate(tc, 'pump', tc.spec.pump, { containers: [pumpContainer(tc)], volumes, metricsPort: PUMP_PORT });
}

/** Pump's claim template: the data claim `data` (PVCs `data-<tc>-pump-<ordinal>`). */
export function pumpClaimTemplates(tc: TidbCluster): ClaimTemplate[] {
  const pump = tc.spec.pump;
  return [claimTemplate('data', pump?.requests?.storage ?? DEFAULT_PUMP_STORAGE, pump?.storageClassName, pump?.volumeAttributesClassName)];
}
