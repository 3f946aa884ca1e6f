/**
 * PD's pod template and claim templates, as TiDB Operator v1's `getNewPDSetForTidbCluster` (§2.0,
 * §2.1): image `<baseImage>:<version>`, the start script and pd.toml from the ConfigMap, scheduling
 * settings, and the data claim template `pd`. The StatefulSet around them is the shared
 * member/statefulset-draft.ts; the rules decide its replicas and partition.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../../model/kube.js';
import { mergeContainers } from '../../member/container-merge.js';
import { componentImage, containerResources, defined, imagePullPolicyOf, podMetadata, podSchedulingSpec } from '../../member/pod-spec.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { PD_PORTS, pdPeerServiceName, pdSetName } from './names.js';
import { pdTlsWiring } from './tls.js';

/** Used when `spec.pd.requests.storage` is unset (TiDB Operator would write a claim the API server rejects). */
export const DEFAULT_PD_STORAGE = '1Gi';

/** As TiDB Operator: without a readiness probe type, PD's probe is TCP on the client port after 10 s. */
export const DEFAULT_PD_PROBE_DELAY_SECONDS = 10;

/** The PD image: `spec.pd.image` when set, else `<baseImage>:<version>` (`spec.pd.version` or `spec.version`). */
export function pdImage(tc: TidbCluster): string {
  return componentImage(tc, tc.spec.pd, 'pingcap/pd');
}

function pdContainer(tc: TidbCluster): IContainer {
  const pd = tc.spec.pd;
  const env = [
    { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'PEER_SERVICE_NAME', value: pdPeerServiceName(tc) },
    { name: 'SERVICE_NAME', value: pdSetName(tc) },
    { name: 'SET_NAME', value: pdSetName(tc) },
    { name: 'TZ', value: tc.spec.timezone ?? 'UTC' },
    ...(pd?.env ?? []),
  ];
  const storageMounts = (pd?.storageVolumes ?? []).flatMap((v) =>
    v.mountPath === undefined ? [] : [{ name: `pd-${v.name}`, mountPath: v.mountPath }],
  );
  const probe = pd?.readinessProbe;
  return defined({
    name: 'pd',
    image: pdImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, pd),
    command: ['/bin/sh', '/usr/local/bin/pd_start_script.sh'],
    ports: [
      { name: 'server', containerPort: PD_PORTS.peer, protocol: 'TCP' },
      { name: 'client', containerPort: PD_PORTS.client, protocol: 'TCP' },
    ],
    volumeMounts: [
      { name: 'annotations', readOnly: true, mountPath: '/etc/podinfo' },
      { name: 'config', readOnly: true, mountPath: '/etc/pd' },
      { name: 'startup-script', readOnly: true, mountPath: '/usr/local/bin' },
      { name: 'pd', mountPath: '/var/lib/pd' },
      ...pdTlsWiring(tc).mounts,
      ...storageMounts,
      ...(pd?.additionalVolumeMounts ?? []),
    ],
    resources: containerResources(pd),
    env,
    envFrom: pd?.envFrom,
    // As TiDB Operator v1: a TCP probe on the client port only when spec.pd.readinessProbe asks for one.
    // Without it a PD pod is Ready once its container runs, which a force upgrade relies on to roll
    // every member of a PD that cannot serve.
    readinessProbe: probe
      ? defined({ tcpSocket: { port: PD_PORTS.client }, initialDelaySeconds: probe.initialDelaySeconds ?? DEFAULT_PD_PROBE_DELAY_SECONDS, periodSeconds: probe.periodSeconds })
      : undefined,
  });
}

function pdVolumes(tc: TidbCluster, configMap: string): IVolume[] {
  const fromConfigMap = (name: string, key: string, path: string): IVolume => ({
    name,
    configMap: { name: configMap, items: [{ key, path }] },
  });
  return [
    { name: 'annotations', downwardAPI: { items: [{ path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } }] } },
    fromConfigMap('config', 'config-file', 'pd.toml'),
    fromConfigMap('startup-script', 'startup-script', 'pd_start_script.sh'),
    ...pdTlsWiring(tc).volumes,
    ...(tc.spec.pd?.additionalVolumes ?? []),
  ];
}

/** The desired pod template: labels, Prometheus annotations, scheduling settings, the `pd` container. */
export function pdPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  const pd = tc.spec.pd;
  const spec = {
    ...podSchedulingSpec(tc, 'pd', pd),
    // As TiDB Operator: an additional container named `pd` patches PD's own container.
    containers: mergeContainers([pdContainer(tc)], pd?.additionalContainers ?? []),
    volumes: pdVolumes(tc, configMap),
  };
  return { metadata: podMetadata(tc, 'pd', pd, PD_PORTS.client), spec };
}

/** PD's volume claim templates: `pd` (the data claim) and one per `spec.pd.storageVolumes` entry. */
export function pdClaimTemplates(tc: TidbCluster): NonNullable<NonNullable<IStatefulSet['spec']>['volumeClaimTemplates']> {
  const pd = tc.spec.pd;
  const claim = (name: string, storage: string | number, storageClassName: string | undefined) => ({
    metadata: { name },
    spec: defined({
      accessModes: ['ReadWriteOnce' as const],
      resources: { requests: { storage } },
      storageClassName,
      volumeAttributesClassName: pd?.volumeAttributesClassName,
    }),
  });
  return [
    claim('pd', pd?.requests?.storage ?? DEFAULT_PD_STORAGE, pd?.storageClassName),
    ...(pd?.storageVolumes ?? []).map((v) => claim(`pd-${v.name}`, v.storageSize, v.storageClassName ?? pd?.storageClassName)),
  ];
}
