/**
 * TiKV's pod template and claim templates, as TiDB Operator v1's `getNewTiKVSetForTidbCluster`
 * (§2.2): the `tikv` container running the start script with tikv.toml from the ConfigMap, env
 * `NAMESPACE`, `CLUSTER_NAME`, `HEADLESS_SERVICE_NAME`, `CAPACITY` (from `spec.tikv.limits.storage`)
 * and `TZ`, port `server` 20160 (and `status` 20180 when named), the data claim template `tikv`,
 * and the `rocksdblog` / `raftlog` tailing sidecars only when `separateRocksDBLog` /
 * `separateRaftLog` ask for them. The StatefulSet around them is the shared
 * member/statefulset-draft.ts.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';

import type { TidbCluster } from '../../../model/kube.js';
import { CLUSTER_CLIENT_TLS, clusterClientSecretName, clusterTlsSecretName, isTlsCluster } from '../../cluster/tls.js';
import { quantityValue } from '../../cluster/validate.js';
import { mergeContainers } from '../../member/container-merge.js';
import { componentImage, containerResources, defined, imagePullPolicyOf, isHostNetwork, podMetadata, podSchedulingSpec } from '../../member/pod-spec.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { TIKV_CLUSTER_TLS, TIKV_CONFIG_KEYS } from './config-map.js';
import { TIKV_PORTS, tikvPeerServiceName, type TikvSpec } from './names.js';

/** Used when `spec.tikv.requests.storage` is unset (TiDB Operator would write a claim the API server rejects). */
export const DEFAULT_TIKV_STORAGE = '1Gi';

/** As TiDB Operator's defaulting: the helper image of the log tailers. */
export const DEFAULT_HELPER_IMAGE = 'busybox:1.34.1';

/** As TiDB Operator: a readiness probe (TCP on the server port) only when asked for, after 10 s. */
export const DEFAULT_TIKV_PROBE_DELAY_SECONDS = 10;

const DATA_MOUNT = { name: 'tikv', mountPath: '/var/lib/tikv' } as const;

/** The TiKV image: `spec.tikv.image` when set, else `<baseImage>:<version>`. */
export function tikvImage(tc: TidbCluster): string {
  return componentImage(tc, tc.spec.tikv, 'pingcap/tikv');
}

/**
 * As v1's `TiKVCapacity`: `spec.tikv.limits.storage` as `<n>GB` when it is a whole number of GiB,
 * else `<n>MB` (whole MiB); `0` (no limit) when unset or unreadable.
 */
export function tikvCapacity(tc: TidbCluster): string {
  const bytes = quantityValue(tc.spec.tikv?.limits?.storage);
  if (bytes === undefined || !Number.isInteger(bytes)) return '0';
  const gib = 2 ** 30;
  return bytes % gib === 0 ? `${bytes / gib}GB` : `${Math.floor(bytes / 2 ** 20)}MB`;
}

function tlsWiring(tc: TidbCluster): { volumes: IVolume[]; mounts: IVolumeMount[] } {
  if (!isTlsCluster(tc)) return { volumes: [], mounts: [] };
  const name = tc.metadata.name ?? '';
  const volumes: IVolume[] = [{ name: TIKV_CLUSTER_TLS.volume, secret: { secretName: clusterTlsSecretName(name, 'tikv') } }];
  const mounts: IVolumeMount[] = [{ name: TIKV_CLUSTER_TLS.volume, readOnly: true, mountPath: TIKV_CLUSTER_TLS.mountPath }];
  if (tc.spec.tikv?.mountClusterClientSecret === true) {
    volumes.push({ name: CLUSTER_CLIENT_TLS.volume, secret: { secretName: clusterClientSecretName(name) } });
    mounts.push({ name: CLUSTER_CLIENT_TLS.volume, readOnly: true, mountPath: CLUSTER_CLIENT_TLS.mountPath });
  }
  return { volumes, mounts };
}

const storageMounts = (tikv: TikvSpec | undefined): IVolumeMount[] =>
  (tikv?.storageVolumes ?? []).flatMap((v) => (v.mountPath === undefined ? [] : [{ name: `tikv-${v.name}`, mountPath: v.mountPath }]));

/**
 * As v1: a log tailer reads `<file>` from the data volume, or from the named storage volume
 * (`tikv-<name>`) or additional mount; undefined when that volume does not exist (v1 refuses the set).
 */
function logTailer(tc: TidbCluster, container: string, volumeName: string | undefined, file: string): IContainer | undefined {
  const tikv = tc.spec.tikv;
  const mounts = [...storageMounts(tikv), ...(tikv?.additionalVolumeMounts ?? [])];
  const mount = volumeName === undefined || volumeName === '' ? DATA_MOUNT : mounts.find((m) => m.name === `tikv-${volumeName}` || m.name === volumeName);
  if (!mount) return undefined;
  const path = `${mount.mountPath}/${file}`;
  return defined({
    name: container,
    image: tc.spec.helper?.image ?? DEFAULT_HELPER_IMAGE,
    imagePullPolicy: tc.spec.helper?.imagePullPolicy ?? 'IfNotPresent',
    resources: containerResources(tikv?.logTailer),
    volumeMounts: [{ name: mount.name, mountPath: mount.mountPath }],
    command: ['sh', '-c', `touch ${path}; tail -n0 -F ${path};`],
  });
}

function sidecars(tc: TidbCluster): IContainer[] {
  const tikv = tc.spec.tikv;
  const wanted = [
    tikv?.separateRocksDBLog === true ? logTailer(tc, 'rocksdblog', tikv.rocksDBLogVolumeName, 'rocksdb.info') : undefined,
    tikv?.separateRaftLog === true ? logTailer(tc, 'raftlog', tikv.raftLogVolumeName, 'raftdb.info') : undefined,
  ];
  return wanted.filter((c): c is IContainer => c !== undefined);
}

function tikvContainer(tc: TidbCluster): IContainer {
  const tikv = tc.spec.tikv;
  const env = [
    { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'CLUSTER_NAME', value: tc.metadata.name ?? '' },
    { name: 'HEADLESS_SERVICE_NAME', value: tikvPeerServiceName(tc) },
    { name: 'CAPACITY', value: tikvCapacity(tc) },
    { name: 'TZ', value: tc.spec.timezone ?? 'UTC' },
    ...(isHostNetwork(tc, tikv) ? [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] : []),
    ...(tikv?.env ?? []),
  ];
  const probe = tikv?.readinessProbe;
  return defined({
    name: 'tikv',
    image: tikvImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, tikv),
    command: ['/bin/sh', '/usr/local/bin/tikv_start_script.sh'],
    securityContext: { privileged: tikv?.privileged === true },
    ports: [
      { name: 'server', containerPort: TIKV_PORTS.server, protocol: 'TCP' },
      ...(tikv?.enableNamedStatusPort === true ? [{ name: 'status', containerPort: TIKV_PORTS.status, protocol: 'TCP' as const }] : []),
    ],
    volumeMounts: [
      { name: 'annotations', readOnly: true, mountPath: '/etc/podinfo' },
      DATA_MOUNT,
      { name: 'config', readOnly: true, mountPath: '/etc/tikv' },
      { name: 'startup-script', readOnly: true, mountPath: '/usr/local/bin' },
      ...(tikv?.additionalVolumeMounts ?? []),
      ...tlsWiring(tc).mounts,
      ...storageMounts(tikv),
    ],
    resources: containerResources(tikv),
    env,
    envFrom: tikv?.envFrom,
    readinessProbe: probe
      ? defined({ tcpSocket: { port: TIKV_PORTS.server }, initialDelaySeconds: probe.initialDelaySeconds ?? DEFAULT_TIKV_PROBE_DELAY_SECONDS, periodSeconds: probe.periodSeconds })
      : undefined,
  });
}

function tikvVolumes(tc: TidbCluster, configMap: string): IVolume[] {
  const fromConfigMap = (name: string, key: string, path: string): IVolume => ({ name, configMap: { name: configMap, items: [{ key, path }] } });
  return [
    { name: 'annotations', downwardAPI: { items: [{ path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } }] } },
    fromConfigMap('config', TIKV_CONFIG_KEYS.config, 'tikv.toml'),
    fromConfigMap('startup-script', TIKV_CONFIG_KEYS.script, 'tikv_start_script.sh'),
    ...tlsWiring(tc).volumes,
    ...(tc.spec.tikv?.additionalVolumes ?? []),
  ];
}

/** The desired pod template: labels, Prometheus annotations (status port), scheduling settings, sidecars and the `tikv` container. */
export function tikvPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  const tikv = tc.spec.tikv;
  const spec = {
    ...podSchedulingSpec(tc, 'tikv', tikv),
    // As TiDB Operator: an additional container named `tikv` patches TiKV's own container.
    containers: mergeContainers([...sidecars(tc), tikvContainer(tc)], tikv?.additionalContainers ?? []),
    volumes: tikvVolumes(tc, configMap),
  };
  return { metadata: podMetadata(tc, 'tikv', tikv, TIKV_PORTS.status), spec };
}

/** TiKV's volume claim templates: `tikv` (the data claim) and one per `spec.tikv.storageVolumes` entry. */
export function tikvClaimTemplates(tc: TidbCluster): NonNullable<NonNullable<IStatefulSet['spec']>['volumeClaimTemplates']> {
  const tikv = tc.spec.tikv;
  const claim = (name: string, storage: string | number, storageClassName: string | undefined) => ({
    metadata: { name },
    spec: defined({
      accessModes: ['ReadWriteOnce' as const],
      resources: { requests: { storage } },
      storageClassName,
      volumeAttributesClassName: tikv?.volumeAttributesClassName,
    }),
  });
  return [
    claim('tikv', tikv?.requests?.storage ?? DEFAULT_TIKV_STORAGE, tikv?.storageClassName),
    ...(tikv?.storageVolumes ?? []).map((v) => claim(`tikv-${v.name}`, v.storageSize, v.storageClassName ?? tikv?.storageClassName)),
  ];
}
