/**
 * TiCDC's ConfigMap data, pod template and claim templates, as TiDB Operator v1's
 * `getNewTiCDCStatefulSet` and `RenderTiCDCStartScript` (§2.5): the start script is inlined in the
 * container command (`/bin/sh -c`), advertising `<pod>.<tc>-ticdc-peer.<ns>.svc:8301` to PD; the
 * ConfigMap (`config-file` → `/etc/ticdc/ticdc.toml`) exists only when `spec.ticdc.config` is set;
 * claims only for `spec.ticdc.storageVolumes`. The StatefulSet around them is the shared draft.
 */

import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../../model/kube.js';
import type { TlsWiring } from '../../cluster/tls.js';
import { clusterScheme, isTlsCluster } from '../../cluster/tls.js';
import { renderConfig, type ConfigData } from '../../member/config-data.js';
import { componentImage, componentPodTemplate, containerResources, defined, imagePullPolicyOf } from '../../member/pod-spec.js';
import {
  ANNOTATIONS_MOUNT,
  ANNOTATIONS_VOLUME,
  clusterCertWiring,
  configMapFileVolume,
  storageVolumeClaims,
  storageVolumeMounts,
  type ClaimTemplate,
} from '../../member/pod-volumes.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { TICDC_PORT, ticdcPeerServiceName } from './names.js';

/** TiCDC's ConfigMap key. */
export const TICDC_CONFIG_KEY = 'config-file';

// As TiDB Operator: where the cluster certificate of TiCDC is mounted (member/pod-volumes.ts mounts it).
const TICDC_CERT_PATH = '/var/lib/ticdc-tls';

/** The ConfigMap data: `config-file` from `spec.ticdc.config` — none at all when it is unset (no ConfigMap). */
export function ticdcConfigData(tc: TidbCluster): ConfigData {
  const config: unknown = tc.spec.ticdc?.config;
  return config === undefined || config === null ? {} : { [TICDC_CONFIG_KEY]: renderConfig(config) };
}

/** The TiCDC image: `spec.ticdc.image`, else `<baseImage>:<version>`. */
export const ticdcImage = (tc: TidbCluster): string => componentImage(tc, tc.spec.ticdc, 'pingcap/ticdc');

/** As TiDB Operator's start script: `cdc server` on 8301, advertised under the peer Service, PD at `<tc>-pd:2379`. */
export function ticdcStartScript(tc: TidbCluster): string {
  const name = tc.metadata.name ?? '';
  const domain = tc.spec.clusterDomain ? `.${tc.spec.clusterDomain}` : '';
  const advertise = `\${TICDC_POD_NAME}.${ticdcPeerServiceName(tc)}.${tc.metadata.namespace ?? ''}.svc${domain}:${TICDC_PORT}`;
  const pdName = tc.spec.pd === undefined && tc.spec.cluster?.name ? tc.spec.cluster.name : name;
  const extra = [
    ...(isTlsCluster(tc) ? [`--ca=${TICDC_CERT_PATH}/ca.crt`, `--cert=${TICDC_CERT_PATH}/tls.crt`, `--key=${TICDC_CERT_PATH}/tls.key`] : []),
    ...(tc.spec.ticdc?.config !== undefined ? ['--config=/etc/ticdc/ticdc.toml'] : []),
  ];
  return [
    'TICDC_POD_NAME=${POD_NAME}',
    'ARGS="--addr=0.0.0.0:8301 \\',
    `--advertise-addr=${advertise} \\`,
    '--gc-ttl=86400 \\',
    '--log-file=/dev/stderr \\',
    '--log-level=info \\',
    `--pd=${clusterScheme(tc)}://${pdName}-pd:2379"`,
    ...(extra.length > 0 ? [`ARGS="\${ARGS} ${extra.join(' ')}"`] : []),
    'echo "start ticdc-server ..."',
    'echo "/cdc server ${ARGS}"',
    'exec /cdc server ${ARGS}',
    '',
  ].join('\n');
}

// As TiDB Operator: TiCDC mounts its own certificate and the cluster client certificate under cluster TLS.
const tlsWiring = (tc: TidbCluster): TlsWiring => clusterCertWiring(tc, 'ticdc', true);

function ticdcContainer(tc: TidbCluster): IContainer {
  const ticdc = tc.spec.ticdc;
  return defined({
    name: 'ticdc',
    image: ticdcImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, ticdc),
    command: ['/bin/sh', '-c', ticdcStartScript(tc)],
    ports: [{ name: 'ticdc', containerPort: TICDC_PORT, protocol: 'TCP' }],
    volumeMounts: [
      ANNOTATIONS_MOUNT,
      ...tlsWiring(tc).mounts,
      ...storageVolumeMounts('ticdc', ticdc),
      ...(ticdc?.additionalVolumeMounts ?? []),
      ...(ticdc?.config !== undefined ? [{ name: 'config', readOnly: true, mountPath: '/etc/ticdc' }] : []),
      ...(ticdc?.tlsClientSecretNames ?? []).map((s) => ({ name: s, readOnly: true, mountPath: `/var/lib/sink-tls/${s}` })),
    ],
    resources: containerResources(ticdc),
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'HEADLESS_SERVICE_NAME', value: ticdcPeerServiceName(tc) },
      { name: 'TZ', value: tc.spec.timezone ?? 'UTC' },
      ...(ticdc?.env ?? []),
    ],
    envFrom: ticdc?.envFrom,
  });
}

function ticdcVolumes(tc: TidbCluster, configMap: string): IVolume[] {
  const ticdc = tc.spec.ticdc;
  return [
    ANNOTATIONS_VOLUME,
    ...tlsWiring(tc).volumes,
    ...(ticdc?.additionalVolumes ?? []),
    ...(ticdc?.tlsClientSecretNames ?? []).map((s) => ({ name: s, secret: { secretName: s } })),
    ...(ticdc?.config !== undefined ? [configMapFileVolume('config', configMap, TICDC_CONFIG_KEY, 'ticdc.toml')] : []),
  ];
}

/** The desired pod template: labels, Prometheus annotations, scheduling settings, the `ticdc` container. */
export function ticdcPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  return componentPodTemplate(tc, 'ticdc', tc.spec.ticdc, { containers: [ticdcContainer(tc)], volumes: ticdcVolumes(tc, configMap), metricsPort: TICDC_PORT });
}

/** TiCDC's claim templates: one `ticdc-<name>` per `spec.ticdc.storageVolumes` entry (none by default). */
export function ticdcClaimTemplates(tc: TidbCluster): ClaimTemplate[] {
  return storageVolumeClaims('ticdc', tc.spec.ticdc);
}
