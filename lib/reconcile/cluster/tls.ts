/**
 * Cluster TLS (`spec.tlsCluster.enabled`) as TiDB Operator v1 wires it (§2.1, §2.10): each component
 * mounts its own certificate Secret `<tc>-<component>-cluster-secret` (member/pod-volumes.ts) and
 * points its `[security]` config at the files in it; clients of the cluster (the operator, BR, a
 * component with `mountClusterClientSecret`) use `<tc>-cluster-client-secret`, mounted at
 * `/var/lib/cluster-client-tls`. Every Secret holds `ca.crt`, `tls.crt` and `tls.key`.
 */

import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';

import type { TidbCluster } from '../../model/kube.js';

/** The keys of a TLS Secret as v1 reads them (`ca.crt` plus the `kubernetes.io/tls` pair). */
export const TLS_SECRET_KEYS = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key' } as const;

/** The cluster client certificate: v1's `ClusterClientVolName` at `ClusterClientTLSPath`. */
export const CLUSTER_CLIENT_TLS = { volume: 'cluster-client-tls', mountPath: '/var/lib/cluster-client-tls' } as const;

/** Whether the cluster's components talk TLS to each other (v1's `IsTLSClusterEnabled`). */
export function isTlsCluster(tc: TidbCluster): boolean {
  return tc.spec.tlsCluster?.enabled === true;
}

/** `http`, or `https` when cluster TLS is on: the scheme of every PD URL. */
export function clusterScheme(tc: TidbCluster): 'http' | 'https' {
  return isTlsCluster(tc) ? 'https' : 'http';
}

/** `<tc>-<component>-cluster-secret`, as v1's `ClusterTLSSecretName`. */
export function clusterTlsSecretName(tcName: string, component: string): string {
  return `${tcName}-${component}-cluster-secret`;
}

/** `<tc>-cluster-client-secret`, as v1's `ClusterClientTLSSecretName`. */
export function clusterClientSecretName(tcName: string): string {
  return `${tcName}-cluster-client-secret`;
}

/** The volumes and mounts a component's container gets for cluster TLS; none when TLS is off. */
export type TlsWiring = { readonly volumes: IVolume[]; readonly mounts: IVolumeMount[] };
