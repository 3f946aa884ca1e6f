/**
 * Cluster TLS (`spec.tlsCluster.enabled`) as TiDB Operator v1 wires it (§2.1, §2.10): each component
 * mounts its own certificate Secret `<tc>-<component>-cluster-secret` (PD at `/var/lib/pd-tls`) and
 * points its `[security]` config at the files in it; clients of the cluster (the operator, BR, a
 * component with `mountClusterClientSecret`) use `<tc>-cluster-client-secret`, mounted at
 * `/var/lib/cluster-client-tls`. Every Secret holds `ca.crt`, `tls.crt` and `tls.key`.
 */

import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';

import type { TidbCluster } from '../../model/kube.js';
import type { TomlValue } from '../member/config-data.js';
import { clusterEvent } from './events.js';
import { retry } from '../engine/outcome.js';
import { gatePdAct, nothing } from '../components/pd/names.js';
import type { Decision, RuleInput } from '../engine/rule.js';

/** The keys of a TLS Secret as v1 reads them (`ca.crt` plus the `kubernetes.io/tls` pair). */
export const TLS_SECRET_KEYS = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key' } as const;

/** PD's own certificate: volume `pd-tls` at `/var/lib/pd-tls` (v1's `pdClusterCertPath`). */
export const PD_CLUSTER_TLS = { volume: 'pd-tls', mountPath: '/var/lib/pd-tls' } as const;

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

/** The volumes and mounts the PD container gets for cluster TLS; none when TLS is off. */
export type TlsWiring = { readonly volumes: IVolume[]; readonly mounts: IVolumeMount[] };

/**
 * As v1's `getNewPDSetForTidbCluster`: with cluster TLS, the `pd-tls` Secret volume mounted
 * read-only at `/var/lib/pd-tls`, and — only with `spec.pd.mountClusterClientSecret: true` — the
 * cluster client Secret at `/var/lib/cluster-client-tls` (for pd-ctl inside the pod).
 */
export function pdTlsWiring(tc: TidbCluster): TlsWiring {
  if (!isTlsCluster(tc)) return { volumes: [], mounts: [] };
  const name = tc.metadata.name ?? '';
  const volumes: IVolume[] = [{ name: PD_CLUSTER_TLS.volume, secret: { secretName: clusterTlsSecretName(name, 'pd') } }];
  const mounts: IVolumeMount[] = [{ name: PD_CLUSTER_TLS.volume, readOnly: true, mountPath: PD_CLUSTER_TLS.mountPath }];
  if (tc.spec.pd?.mountClusterClientSecret === true) {
    volumes.push({ name: CLUSTER_CLIENT_TLS.volume, secret: { secretName: clusterClientSecretName(name) } });
    mounts.push({ name: CLUSTER_CLIENT_TLS.volume, readOnly: true, mountPath: CLUSTER_CLIENT_TLS.mountPath });
  }
  return { volumes, mounts };
}

/**
 * The `[security]` keys v1 injects into pd.toml with cluster TLS: `cacert-path`, `cert-path` and
 * `key-path` under `/var/lib/pd-tls`. Empty when TLS is off. They override the user's values.
 */
export function pdSecurityConfig(tc: TidbCluster): Record<string, TomlValue> {
  if (!isTlsCluster(tc)) return {};
  const at = (key: string): string => `${PD_CLUSTER_TLS.mountPath}/${key}`;
  return {
    'security.cacert-path': at(TLS_SECRET_KEYS.ca),
    'security.cert-path': at(TLS_SECRET_KEYS.cert),
    'security.key-path': at(TLS_SECRET_KEYS.key),
  };
}

/** The Warning Event's reason when the cluster client Secret is missing. */
export const CLUSTER_CLIENT_SECRET_MISSING = 'ClusterClientSecretMissing';

/** How soon to look again for a missing client Secret (creating a Secret triggers no step). */
export const MISSING_SECRET_RECHECK_MS = 30_000;

/**
 * The `PdTlsSecret` rule. With cluster TLS the reconciler reaches PD only when
 * `<tc>-cluster-client-secret` exists (docs/adr/0005); the observer checked. Missing ⇒ a Warning
 * Event naming the Secret and a recheck in 30 s, since nothing watches Secrets; status.pd stays
 * unsynced meanwhile. Guarantees: no action when TLS is off or the Secret exists.
 */
export function planPdTlsSecret(input: RuleInput): Decision {
  return gatePdAct((gated) => {
    const tc = gated.cluster;
    const name = clusterClientSecretName(tc.metadata.name ?? '');
    if (!isTlsCluster(tc) || !(gated.snapshot.missingSecrets ?? []).includes(name)) return nothing();
    const message = `cluster TLS is on but Secret ${tc.metadata.namespace ?? ''}/${name} does not exist: create it (ca.crt, tls.crt, tls.key) so PD can be reached over https`;
    return { actions: [clusterEvent(tc, 'Warning', CLUSTER_CLIENT_SECRET_MISSING, message)], outcome: retry(MISSING_SECRET_RECHECK_MS, message) };
  })(input);
}
