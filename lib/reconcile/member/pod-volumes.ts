/**
 * The volumes, mounts and claim templates components wire the same way, as TiDB Operator v1's
 * StatefulSet builders do: the downward-API `annotations` volume at `/etc/podinfo` (the start
 * scripts source it), ConfigMap items mounted as files, a component's own cluster certificate under
 * TLS (`<c>-tls` at `/var/lib/<c>-tls`, with the cluster client certificate when asked), and the
 * `spec.<c>.storageVolumes` claims `<c>-<name>` with their mounts. Each component's pod-template.ts
 * says where these go among its own; the order of volumes and mounts stays the component's.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';

import type { TidbCluster } from '../../model/kube.js';
import { CLUSTER_CLIENT_TLS, clusterClientSecretName, clusterTlsSecretName, isTlsCluster, type TlsWiring } from '../cluster/tls.js';
import type { DeclaredName, MemberName } from './component.js';
import { defined } from './pod-spec.js';

/** One volume claim template of a StatefulSet. */
export type ClaimTemplate = NonNullable<NonNullable<IStatefulSet['spec']>['volumeClaimTemplates']>[number];

// Every component spec with storage volumes shares these fields; PD's names their types.
type StorageSpec = NonNullable<TidbCluster['spec']['pd']>;

/** What the shared claim and mount builders read of `spec.<component>`. */
export type StorageSettings = Pick<StorageSpec, 'storageVolumes' | 'storageClassName' | 'volumeAttributesClassName'>;

/** The downward-API volume `annotations` (the pod's annotations as a file), which every component mounts. */
export const ANNOTATIONS_VOLUME: IVolume = {
  name: 'annotations',
  downwardAPI: { items: [{ path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } }] },
};

/** The read-only mount of `annotations` at `/etc/podinfo`, where the start scripts read run mode from. */
export const ANNOTATIONS_MOUNT: IVolumeMount = { name: 'annotations', readOnly: true, mountPath: '/etc/podinfo' };

/** Volume `name` holding one key of ConfigMap `configMap` as the file `path`. */
export function configMapFileVolume(name: string, configMap: string, key: string, path: string): IVolume {
  return { name, configMap: { name: configMap, items: [{ key, path }] } };
}

/**
 * As v1: with cluster TLS, component `component`'s certificate Secret `<tc>-<component>-cluster-secret`
 * as volume `<component>-tls` mounted read-only at `/var/lib/<component>-tls`, then — when
 * `withClientSecret` — the cluster client Secret at `/var/lib/cluster-client-tls`. None when TLS is off.
 */
export function clusterCertWiring(tc: TidbCluster, component: MemberName, withClientSecret: boolean): TlsWiring {
  if (!isTlsCluster(tc)) return { volumes: [], mounts: [] };
  const name = tc.metadata.name ?? '';
  const volume = `${component}-tls`;
  const volumes: IVolume[] = [{ name: volume, secret: { secretName: clusterTlsSecretName(name, component) } }];
  const mounts: IVolumeMount[] = [{ name: volume, readOnly: true, mountPath: `/var/lib/${volume}` }];
  if (withClientSecret) {
    volumes.push({ name: CLUSTER_CLIENT_TLS.volume, secret: { secretName: clusterClientSecretName(name) } });
    mounts.push({ name: CLUSTER_CLIENT_TLS.volume, readOnly: true, mountPath: CLUSTER_CLIENT_TLS.mountPath });
  }
  return { volumes, mounts };
}

/** A ReadWriteOnce claim template `name` requesting `storage`, with the storage and volume-attributes classes when set. */
export function claimTemplate(name: string, storage: string | number, storageClassName: string | undefined, volumeAttributesClassName: string | undefined): ClaimTemplate {
  return {
    metadata: { name },
    spec: defined({
      accessModes: ['ReadWriteOnce' as const],
      resources: { requests: { storage } },
      storageClassName,
      volumeAttributesClassName,
    }),
  };
}

/** As v1: one claim template `<component>-<name>` per `storageVolumes` entry, in the component's storage class unless the entry names one. */
export function storageVolumeClaims(component: DeclaredName, spec: StorageSettings | undefined): ClaimTemplate[] {
  return (spec?.storageVolumes ?? []).map((v) =>
    claimTemplate(`${component}-${v.name}`, v.storageSize, v.storageClassName ?? spec?.storageClassName, spec?.volumeAttributesClassName),
  );
}

/** The mounts of the `storageVolumes` entries that name a `mountPath` (volume `<component>-<name>`). */
export function storageVolumeMounts(component: DeclaredName, spec: StorageSettings | undefined): IVolumeMount[] {
  return (spec?.storageVolumes ?? []).flatMap((v) => (v.mountPath === undefined ? [] : [{ name: `${component}-${v.name}`, mountPath: v.mountPath }]));
}
