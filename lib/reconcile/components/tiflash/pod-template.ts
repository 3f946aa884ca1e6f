/**
 * TiFlash's pod template and claim templates, as TiDB Operator v1's `getNewStatefulSet` for TiFlash
 * (§2.3): one claim template `data<i>` per `spec.tiflash.storageClaims` entry, each mounted at
 * `/data<i>`; an `init` container (helper image) renders the two config templates of the ConfigMap
 * into `/data0`; the `tiflash` container starts from `/data0/config.toml`, with v1's ports and env.
 */

import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../../model/kube.js';
import { storeCapacityArg } from '../../member/capacity.js';
import { imageTagOf } from '../../member/cmpver.js';
import { componentImage, componentPodTemplate, containerResources, defined, imagePullPolicyOf } from '../../member/pod-spec.js';
import { ANNOTATIONS_MOUNT, ANNOTATIONS_VOLUME, claimTemplate, clusterCertWiring, type ClaimTemplate } from '../../member/pod-volumes.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { TIFLASH_PORTS, tiflashDataVolume, tiflashPeerServiceName, type TiflashSpec } from './names.js';

/** TiDB Operator's default helper image (`spec.helper.image`), which runs TiFlash's init container. */
export const DEFAULT_HELPER_IMAGE = 'busybox:1.26.2';

/** As TiDB Operator: the init container turns the templates into the pod's own files (ordinal for `POD_NUM`). */
export const TIFLASH_INIT_SCRIPT =
  'set -ex;ordinal=`echo ${POD_NAME} | awk -F- \'{print $NF}\'`;sed s/POD_NUM/${ordinal}/g /etc/tiflash/config_templ.toml > /data0/config.toml;sed s/POD_NUM/${ordinal}/g /etc/tiflash/proxy_templ.toml > /data0/proxy.toml';

/** As TiDB Operator: TiFlash starts from the rendered file on its first data volume. */
export const TIFLASH_START_COMMAND = '/tiflash/tiflash server --config-file /data0/config.toml';

const specOf = (tc: TidbCluster): Partial<TiflashSpec> => tc.spec.tiflash ?? {};

/** The TiFlash image: `spec.tiflash.image` when set, else `<baseImage>:<version>` (`spec.tiflash.version` or `spec.version`). */
export const tiflashImage = (tc: TidbCluster): string => componentImage(tc, tc.spec.tiflash, 'pingcap/tiflash');

/** The version TiFlash runs, as TiDB Operator's `TiFlashVersion`: the tag of its image. */
export const tiflashVersion = (tc: TidbCluster): string => imageTagOf(tiflashImage(tc));

function initContainer(tc: TidbCluster): IContainer {
  const tiflash = specOf(tc);
  return defined({
    name: 'init',
    image: tc.spec.helper?.image ?? DEFAULT_HELPER_IMAGE,
    command: ['sh', '-c', TIFLASH_INIT_SCRIPT],
    env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    volumeMounts: [
      { name: tiflashDataVolume(0), mountPath: '/data0' },
      { name: 'config', readOnly: true, mountPath: '/etc/tiflash' },
    ],
    resources: tiflash.initializer ? containerResources(tiflash.initializer) : undefined,
  });
}

function tiflashContainer(tc: TidbCluster): IContainer {
  const tiflash = specOf(tc);
  const port = (name: string, containerPort: number) => ({ name, containerPort, protocol: 'TCP' as const });
  const env = [
    { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'CLUSTER_NAME', value: tc.metadata.name ?? '' },
    { name: 'HEADLESS_SERVICE_NAME', value: tiflashPeerServiceName(tc) },
    { name: 'CAPACITY', value: storeCapacityArg(tiflash.limits) },
    { name: 'TZ', value: tc.spec.timezone ?? 'UTC' },
    ...(tiflash.env ?? []),
  ];
  const dataMounts = (tiflash.storageClaims ?? []).map((_, i) => ({ name: tiflashDataVolume(i), mountPath: `/data${i}` }));
  return defined({
    name: 'tiflash',
    image: tiflashImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, tc.spec.tiflash),
    command: ['/bin/sh', '-c', TIFLASH_START_COMMAND],
    securityContext: { privileged: tiflash.privileged ?? false },
    ports: [
      port('tiflash', TIFLASH_PORTS.tiflash),
      port('proxy', TIFLASH_PORTS.proxy),
      port('tcp', TIFLASH_PORTS.tcp),
      port('http', TIFLASH_PORTS.http),
      port('internal', TIFLASH_PORTS.internal),
      port('metrics', TIFLASH_PORTS.metrics),
    ],
    volumeMounts: [
      ANNOTATIONS_MOUNT,
      ...dataMounts,
      ...(tiflash.additionalVolumeMounts ?? []),
      // As TiDB Operator: TiFlash's certificate at /var/lib/tiflash-tls, no client certificate.
      ...clusterCertWiring(tc, 'tiflash', false).mounts,
    ],
    resources: containerResources(tc.spec.tiflash),
    env,
    envFrom: tiflash.envFrom,
  });
}

function volumes(tc: TidbCluster, configMap: string): IVolume[] {
  return [ANNOTATIONS_VOLUME, { name: 'config', configMap: { name: configMap } }, ...clusterCertWiring(tc, 'tiflash', false).volumes, ...(specOf(tc).additionalVolumes ?? [])];
}

/** The desired pod template: labels, Prometheus annotations (TiFlash and its proxy), the init and `tiflash` containers. */
export function tiflashPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  // As TiDB Operator: the proxy's metrics are announced too, under the pod's own annotations.
  const proxy = {
    'tiflash.proxy.prometheus.io/scrape': 'true',
    'tiflash.proxy.prometheus.io/path': '/metrics',
    'tiflash.proxy.prometheus.io/port': String(TIFLASH_PORTS.proxyMetrics),
  };
  // As TiDB Operator: an additional container named `tiflash` patches TiFlash's own container.
  return componentPodTemplate(tc, 'tiflash', tc.spec.tiflash, {
    containers: [tiflashContainer(tc)],
    volumes: volumes(tc, configMap),
    metricsPort: TIFLASH_PORTS.metrics,
    initContainers: [initContainer(tc), ...(specOf(tc).initContainers ?? [])],
    annotations: proxy,
  });
}

/** TiFlash's claim templates: `data<i>` for the i-th `spec.tiflash.storageClaims` entry (ReadWriteOnce). */
export function tiflashClaimTemplates(tc: TidbCluster): ClaimTemplate[] {
  return (specOf(tc).storageClaims ?? []).map((claim, i) =>
    claimTemplate(tiflashDataVolume(i), claim.resources?.requests?.storage ?? '', claim.storageClassName, claim.volumeAttributesClassName),
  );
}
