/**
 * The one-replica StatefulSet a TidbDashboard or TidbNGMonitoring runs, as v1's
 * `generateTiDBDashboardStatefulSet` / `GenerateNGMonitoringStatefulSet` build it (release-1.6):
 * the component's container, its data claim template, and the `ComponentSpec` parts of the pod
 * (labels, annotations, env, scheduling, security context, additional volumes, mounts and
 * containers — merged as v1's `MergePatchContainers`). The last-applied record is added by the
 * caller's apply (`withLastApplied`).
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import { mergeContainers } from '../member/container-merge.js';
import { withLastApplied } from '../member/statefulset.js';
import type { CompanionKind } from './meta.js';
import { companionLabels, companionOwnerRef } from './meta.js';
import type { CompanionComponentSpec, CompanionObject } from './types.js';

/** What differs between the two kinds: names, the main container, the pod's own volumes, the claim. */
export type CompanionStatefulSetParts = {
  readonly kind: CompanionKind;
  readonly obj: CompanionObject;
  /** The spec the `ComponentSpec` fields are read from (the dashboard's spec, the ng-monitoring section). */
  readonly component: CompanionComponentSpec;
  /** The pod-level settings come from the top-level spec (v1's component accessor reads `commonSpec`). */
  readonly common: CompanionComponentSpec;
  readonly name: string;
  readonly serviceName: string;
  readonly container: IContainer;
  readonly volumes: readonly IVolume[];
  readonly claimName: string;
  readonly storage: string;
  readonly storageClassName: string | undefined;
  /** Additional claims (`storageVolumes`): each `<memberType>-<name>`, mounted at its `mountPath` when it has one (v1's `BuildStorageVolumeAndVolumeMount`). */
  readonly storageVolumes: readonly StorageVolume[];
  readonly memberType: string;
};

/** One `storageVolumes` entry. */
export type StorageVolume = { readonly name?: string; readonly storageSize?: string; readonly mountPath?: string; readonly storageClassName?: string };

const defined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/** The StatefulSet, its last-applied annotation set (ready to create, or to compare with the live one). */
export function companionStatefulSet(parts: CompanionStatefulSetParts): IStatefulSet {
  const { kind, obj, component, common } = parts;
  const labels = companionLabels(kind, obj.metadata.name ?? '');
  const extra = parts.storageVolumes.map((v) => ({ ...v, claim: `${parts.memberType}-${v.name ?? ''}` }));
  const env = [...((parts.container.env ?? []) as unknown[]), ...((component.env ?? []) as unknown[])];
  const main: IContainer = defined({
    ...parts.container,
    ...(env.length === 0 ? {} : { env: env as IContainer['env'] }),
    volumeMounts: [
      ...(parts.container.volumeMounts ?? []),
      ...extra.flatMap((v) => (v.mountPath ? [{ name: v.claim, mountPath: v.mountPath }] : [])),
      ...((component.additionalVolumeMounts ?? []) as NonNullable<IContainer['volumeMounts']>),
    ],
    ...(component.requests === undefined && component.limits === undefined ? {} : { resources: resourcesOf(component) }),
  });
  const podSpec: IPodSpec = defined({
    containers: mergeContainers([main], (component.additionalContainers ?? []) as IContainer[]),
    volumes: [...parts.volumes, ...((component.additionalVolumes ?? []) as IVolume[])],
    nodeSelector: common.nodeSelector as Record<string, string> | undefined,
    tolerations: common.tolerations as IPodSpec['tolerations'],
    affinity: common.affinity as IPodSpec['affinity'],
    imagePullSecrets: common.imagePullSecrets as IPodSpec['imagePullSecrets'],
    priorityClassName: common.priorityClassName,
    schedulerName: common.schedulerName,
    securityContext: common.podSecurityContext as IPodSpec['securityContext'],
  });
  const sts: IStatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: parts.name, namespace: obj.metadata.namespace ?? '', labels, ownerReferences: [companionOwnerRef(kind, obj)] },
    spec: {
      selector: { matchLabels: labels },
      serviceName: parts.serviceName,
      replicas: 1,
      template: { metadata: defined({ labels: { ...(common.labels ?? {}), ...(component.labels ?? {}), ...labels }, annotations: annotationsOf(common, component) }), spec: podSpec },
      volumeClaimTemplates: [
        {
          metadata: { name: parts.claimName },
          spec: defined({ accessModes: ['ReadWriteOnce' as const], storageClassName: parts.storageClassName, resources: { requests: { storage: parts.storage } } }),
        },
        ...extra.map((v) => ({
          metadata: { name: v.claim },
          spec: defined({ accessModes: ['ReadWriteOnce' as const], storageClassName: v.storageClassName || parts.storageClassName, resources: { requests: { storage: v.storageSize ?? '' } } }),
        })),
      ],
      updateStrategy: { type: 'RollingUpdate' },
      podManagementPolicy: 'OrderedReady',
    },
  };
  return withLastApplied(sts);
}

/** The pod's annotations: the top-level ones, then the component's (v1's accessor merges them the same way). */
function annotationsOf(common: CompanionComponentSpec, component: CompanionComponentSpec): Record<string, string> | undefined {
  const merged = { ...(common.annotations ?? {}), ...(component.annotations ?? {}) };
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/** The container's resources: `requests` and `limits` without `storage` (v1's `ContainerResource`). */
function resourcesOf(spec: CompanionComponentSpec): NonNullable<IContainer['resources']> {
  const strip = (list: Readonly<Record<string, unknown>> | undefined): Record<string, string> | undefined => {
    if (list === undefined) return undefined;
    const kept = Object.fromEntries(Object.entries(list).filter(([k]) => k !== 'storage').map(([k, v]) => [k, String(v)]));
    return Object.keys(kept).length === 0 ? undefined : kept;
  };
  return defined({ requests: strip(spec.requests), limits: strip(spec.limits) });
}
