/**
 * TiKV's pod template and claim templates, as TiDB Operator v1's `getNewTiKVSetForTidbCluster`
 * (§2.2): the `tikv` container running the start script with tikv.toml from the ConfigMap, env
 * `NAMESPACE`, `CLUSTER_NAME`, `HEADLESS_SERVICE_NAME`, `CAPACITY` (from `spec.tikv.limits.storage`)
 * and `TZ`, port `server` 20160 (and `status` 20180 when named), the data claim template `tikv`,
 * and the `rocksdblog` / `raftlog` tailing sidecars only when `separateRocksDBLog` /
 * `separateRaftLog` ask for them. The StatefulSet around them is the shared
 * member/statefulset-draft.ts.
 */

import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../../model/kube.js';
import type { TlsWiring } from '../../cluster/tls.js';
import { storeCapacityArg } from '../../member/capacity.js';
import { componentImage, componentPodTemplate, containerResources, defined, imagePullPolicyOf, isHostNetwork, tcpReadinessProbe } from '../../member/pod-spec.js';
import { ANNOTATIONS_MOUNT, ANNOTATIONS_VOLUME, claimTemplate, clusterCertWiring, storageVolumeClaims, storageVolumeMounts, type ClaimTemplate } from '../../member/pod-volumes.js';
import { scriptedConfigMounts, scriptedConfigVolumes, startScriptCommand } from '../../member/start-script.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { TIKV_PORTS, tikvPeerServiceName } from './names.js';

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

/** As v1's `TiKVCapacity` of `spec.tikv.limits` (shared with TiFlash: member/capacity.ts). */
export const tikvCapacity = (tc: TidbCluster): string => storeCapacityArg(tc.spec.tikv?.limits);

// As v1: TiKV's certificate at /var/lib/tikv-tls, the client certificate only when asked for.
const tlsWiring = (tc: TidbCluster): TlsWiring => clusterCertWiring(tc, 'tikv', tc.spec.tikv?.mountClusterClientSecret === true);

/**
 * As v1: a log tailer reads `<file>` from the data volume, or from the named storage volume
 * (`tikv-<name>`) or additional mount; undefined when that volume does not exist (v1 refuses the set).
 */
function logTailer(tc: TidbCluster, container: string, volumeName: string | undefined, file: string): IContainer | undefined {
  const tikv = tc.spec.tikv;
  const mounts = [...storageVolumeMounts('tikv', tikv), ...(tikv?.additionalVolumeMounts ?? [])];
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
    command: startScriptCommand('tikv'),
    securityContext: { privileged: tikv?.privileged === true },
    ports: [
      { name: 'server', containerPort: TIKV_PORTS.server, protocol: 'TCP' },
      ...(tikv?.enableNamedStatusPort === true ? [{ name: 'status', containerPort: TIKV_PORTS.status, protocol: 'TCP' as const }] : []),
    ],
    volumeMounts: [
      ANNOTATIONS_MOUNT,
      DATA_MOUNT,
      ...scriptedConfigMounts('tikv'),
      ...(tikv?.additionalVolumeMounts ?? []),
      ...tlsWiring(tc).mounts,
      ...storageVolumeMounts('tikv', tikv),
    ],
    resources: containerResources(tikv),
    env,
    envFrom: tikv?.envFrom,
    readinessProbe: probe ? tcpReadinessProbe(TIKV_PORTS.server, probe, DEFAULT_TIKV_PROBE_DELAY_SECONDS) : undefined,
  });
}

function tikvVolumes(tc: TidbCluster, configMap: string): IVolume[] {
  return [
    ANNOTATIONS_VOLUME,
    ...scriptedConfigVolumes('tikv', configMap),
    ...tlsWiring(tc).volumes,
    ...(tc.spec.tikv?.additionalVolumes ?? []),
  ];
}

/** The desired pod template: labels, Prometheus annotations (status port), scheduling settings, sidecars and the `tikv` container. */
export function tikvPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  // As TiDB Operator: an additional container named `tikv` patches TiKV's own container.
  return componentPodTemplate(tc, 'tikv', tc.spec.tikv, { containers: [...sidecars(tc), tikvContainer(tc)], volumes: tikvVolumes(tc, configMap), metricsPort: TIKV_PORTS.status });
}

/** TiKV's volume claim templates: `tikv` (the data claim) and one per `spec.tikv.storageVolumes` entry. */
export function tikvClaimTemplates(tc: TidbCluster): ClaimTemplate[] {
  const tikv = tc.spec.tikv;
  return [claimTemplate('tikv', tikv?.requests?.storage ?? DEFAULT_TIKV_STORAGE, tikv?.storageClassName, tikv?.volumeAttributesClassName), ...storageVolumeClaims('tikv', tikv)];
}
