/**
 * TiFlash's pod template and claim templates, as TiDB Operator v1's `getNewStatefulSet` for TiFlash
 * (§2.3): one claim template `data<i>` per `spec.tiflash.storageClaims` entry, each mounted at
 * `/data<i>`; an `init` container (helper image) renders the two config templates of the ConfigMap
 * into `/data0`; the `tiflash` container starts from `/data0/config.toml`, with v1's ports and env.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../../model/kube.js';
import { clusterTlsSecretName, isTlsCluster } from '../../cluster/tls.js';
import { storeCapacityArg } from '../../member/capacity.js';
import { imageTagOf } from '../../member/cmpver.js';
import { mergeContainers } from '../../member/container-merge.js';
import { componentImage, containerResources, defined, imagePullPolicyOf, podMetadata, podSchedulingSpec } from '../../member/pod-spec.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { TIFLASH_PORTS, tiflashDataVolume, tiflashPeerServiceName, type TiflashSpec } from './names.js';

/** TiDB Operator's default helper image (`spec.helper.image`), which runs TiFlash's init container. */
export const DEFAULT_HELPER_IMAGE = 'busybox:1.26.2';

/** The TLS volume TiFlash mounts under cluster TLS. */
const CERT_VOLUME = 'tiflash-tls';
const CERT_PATH = '/var/lib/tiflash-tls';

/** As TiDB Operator: the init container turns the templates into the pod's own files (ordinal for `POD_NUM`). */
export const TIFLASH_INIT_SCRIPT =
  'set -ex;ordinal=`echo ${POD_NAME} | awk -F- \'{print $NF}\'`;sed s/POD_NUM/${ordinal}/g /etc/tiflash/config_templ.toml > /data0/config.toml;sed s/POD_NUM/${ordinal}/g /etc/tiflash/proxy_templ.toml > /data0/proxy.toml';

/** As TiDB Operator: TiFlash starts from the rendered file on its first data volume. */
export const TIFLASH_START_COMMAND = '/tiflash/tiflash server --config-file /data0/config.toml';

type PodSpec = NonNullable<PodTemplate['spec']>;

const specOf = (tc: TidbCluster): Partial<TiflashSpec> => tc.spec.tiflash ?? {};

/** The TiFlash image: `spec.tiflash.image` when set, else `<baseImage>:<version>` (`spec.tiflash.version` or `spec.version`). */
export const tiflashImage = (tc: TidbCluster): string => componentImage(tc, tc.spec.tiflash, 'pingcap/tiflash');

/** The version TiFlash runs, as TiDB Operator's `TiFlashVersion`: the tag of its image. */
export const tiflashVersion = (tc: TidbCluster): string => imageTagOf(tiflashImage(tc));

function resources(requests: Record<string, unknown> | undefined, limits: Record<string, unknown> | undefined): IContainer['resources'] {
  const { storage: _storage, ...rest } = requests ?? {};
  return defined({ requests: Object.keys(rest).length > 0 ? rest : undefined, limits }) as IContainer['resources'];
}

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
    resources: tiflash.initializer ? resources(tiflash.initializer.requests, tiflash.initializer.limits) : undefined,
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
      { name: 'annotations', readOnly: true, mountPath: '/etc/podinfo' },
      ...dataMounts,
      ...(tiflash.additionalVolumeMounts ?? []),
      ...(isTlsCluster(tc) ? [{ name: CERT_VOLUME, readOnly: true, mountPath: CERT_PATH }] : []),
    ],
    resources: containerResources(tc.spec.tiflash),
    env,
    envFrom: tiflash.envFrom,
  });
}

function volumes(tc: TidbCluster, configMap: string): IVolume[] {
  const tls: IVolume[] = isTlsCluster(tc) ? [{ name: CERT_VOLUME, secret: { secretName: clusterTlsSecretName(tc.metadata.name ?? '', 'tiflash') } }] : [];
  return [
    { name: 'annotations', downwardAPI: { items: [{ path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } }] } },
    { name: 'config', configMap: { name: configMap } },
    ...tls,
    ...(specOf(tc).additionalVolumes ?? []),
  ];
}

/** The desired pod template: labels, Prometheus annotations (TiFlash and its proxy), the init and `tiflash` containers. */
export function tiflashPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  const tiflash = specOf(tc);
  const metadata = podMetadata(tc, 'tiflash', tc.spec.tiflash, TIFLASH_PORTS.metrics);
  // As TiDB Operator: the proxy's metrics are announced too, under the pod's own annotations.
  const proxy = {
    'tiflash.proxy.prometheus.io/scrape': 'true',
    'tiflash.proxy.prometheus.io/path': '/metrics',
    'tiflash.proxy.prometheus.io/port': String(TIFLASH_PORTS.proxyMetrics),
  };
  const spec: PodSpec = {
    ...podSchedulingSpec(tc, 'tiflash', tc.spec.tiflash),
    initContainers: [initContainer(tc), ...(tiflash.initContainers ?? [])],
    // As TiDB Operator: an additional container named `tiflash` patches TiFlash's own container.
    containers: mergeContainers([tiflashContainer(tc)], tiflash.additionalContainers ?? []),
    volumes: volumes(tc, configMap),
  };
  return { metadata: { ...metadata, annotations: { ...proxy, ...metadata?.annotations } }, spec };
}

/** TiFlash's claim templates: `data<i>` for the i-th `spec.tiflash.storageClaims` entry (ReadWriteOnce). */
export function tiflashClaimTemplates(tc: TidbCluster): NonNullable<NonNullable<IStatefulSet['spec']>['volumeClaimTemplates']> {
  return (specOf(tc).storageClaims ?? []).map((claim, i) => ({
    metadata: { name: tiflashDataVolume(i) },
    spec: defined({
      accessModes: ['ReadWriteOnce' as const],
      resources: { requests: { storage: claim.resources?.requests?.storage ?? '' } },
      storageClassName: claim.storageClassName,
      volumeAttributesClassName: claim.volumeAttributesClassName,
    }),
  }));
}
