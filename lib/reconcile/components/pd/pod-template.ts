/**
 * PD's pod template and claim templates, as TiDB Operator v1's `getNewPDSetForTidbCluster` (§2.0,
 * §2.1): image `<baseImage>:<version>`, the start script and pd.toml from the ConfigMap, scheduling
 * settings, and the data claim template `pd`. The StatefulSet around them is the shared
 * member/statefulset-draft.ts; the rules decide its replicas and partition.
 */

import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../../model/kube.js';
import { componentImage, componentPodTemplate, containerResources, defined, imagePullPolicyOf, tcpReadinessProbe } from '../../member/pod-spec.js';
import { ANNOTATIONS_MOUNT, ANNOTATIONS_VOLUME, claimTemplate, storageVolumeClaims, storageVolumeMounts, type ClaimTemplate } from '../../member/pod-volumes.js';
import { scriptedConfigMounts, scriptedConfigVolumes, startScriptCommand } from '../../member/start-script.js';
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
  const probe = pd?.readinessProbe;
  return defined({
    name: 'pd',
    image: pdImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, pd),
    command: startScriptCommand('pd'),
    ports: [
      { name: 'server', containerPort: PD_PORTS.peer, protocol: 'TCP' },
      { name: 'client', containerPort: PD_PORTS.client, protocol: 'TCP' },
    ],
    volumeMounts: [
      ANNOTATIONS_MOUNT,
      ...scriptedConfigMounts('pd'),
      { name: 'pd', mountPath: '/var/lib/pd' },
      ...pdTlsWiring(tc).mounts,
      ...storageVolumeMounts('pd', pd),
      ...(pd?.additionalVolumeMounts ?? []),
    ],
    resources: containerResources(pd),
    env,
    envFrom: pd?.envFrom,
    // As TiDB Operator v1: a TCP probe on the client port only when spec.pd.readinessProbe asks for one.
    // Without it a PD pod is Ready once its container runs, which a force upgrade relies on to roll
    // every member of a PD that cannot serve.
    readinessProbe: probe ? tcpReadinessProbe(PD_PORTS.client, probe, DEFAULT_PD_PROBE_DELAY_SECONDS) : undefined,
  });
}

function pdVolumes(tc: TidbCluster, configMap: string): IVolume[] {
  return [
    ANNOTATIONS_VOLUME,
    ...scriptedConfigVolumes('pd', configMap),
    ...pdTlsWiring(tc).volumes,
    ...(tc.spec.pd?.additionalVolumes ?? []),
  ];
}

/** The desired pod template: labels, Prometheus annotations, scheduling settings, the `pd` container. */
export function pdPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  // As TiDB Operator: an additional container named `pd` patches PD's own container.
  return componentPodTemplate(tc, 'pd', tc.spec.pd, { containers: [pdContainer(tc)], volumes: pdVolumes(tc, configMap), metricsPort: PD_PORTS.client });
}

/** PD's volume claim templates: `pd` (the data claim) and one per `spec.pd.storageVolumes` entry. */
export function pdClaimTemplates(tc: TidbCluster): ClaimTemplate[] {
  const pd = tc.spec.pd;
  return [claimTemplate('pd', pd?.requests?.storage ?? DEFAULT_PD_STORAGE, pd?.storageClassName, pd?.volumeAttributesClassName), ...storageVolumeClaims('pd', pd)];
}
