/**
 * The TidbMonitor's TLS assets Secret `tidbmonitor-<tm>-tls-assets`, as v1's `syncAssetSecret`
 * (release-1.6 `pkg/monitor/monitor/monitor_manager.go:740-762`, `store.go` `addTLSAssets`): every key
 * of each TLS cluster's `<tc>-cluster-client-secret`, renamed `secret_<ns>_<secret>_<key>`
 * (`TLSAssetKey.String()`), the files prometheus.yml's `tls_config` names under
 * /var/lib/cluster-assets-tls. Made with `secret.copy`, so the certificates are read and written inside
 * the Kubernetes adapter only; with no TLS cluster the Secret is kept empty, as v1 keeps it.
 */

import type { SecretCopyAction, SecretSource } from '../../model/action.js';
import { monitorLabels, monitorOwnerReference, tlsAssetsSecretName } from './names.js';
import type { ObservedCluster } from './snapshot.js';
import type { TidbMonitor } from './types.js';

/**
 * v1 copies the certificates on every sync, and syncs at each 30 s informer resync: a rotated client
 * certificate reaches the monitor's Secret within that period. A monitor of a TLS cluster looks again
 * this often (the copy writes only when the data differ).
 */
export const TLS_ASSETS_RESYNC_MS = 30_000;

/** v1's asset key prefix for a Secret's keys (`TLSAssetKey{"secret", ns, name, key}.String()`). */
export function tlsAssetPrefix(namespace: string, secretName: string): string {
  return `secret_${namespace}_${secretName}_`;
}

/** Whether any observed cluster runs TLS (its client certificate is then copied). */
export function hasTlsCluster(clusters: readonly ObservedCluster[]): boolean {
  return clusters.some((c) => c.tc?.spec?.tlsCluster?.enabled === true);
}

/**
 * The `secret.copy` that makes `tidbmonitor-<tm>-tls-assets` hold exactly the client certificates of
 * the TLS clusters among `clusters`, in `spec.clusters` order (labels and controller owner as v1).
 */
export function planTlsAssets(tm: TidbMonitor, clusters: readonly ObservedCluster[]): SecretCopyAction {
  const namespace = tm.metadata.namespace ?? '';
  const name = tlsAssetsSecretName(tm);
  const sources: SecretSource[] = clusters
    .filter((c) => c.tc?.spec?.tlsCluster?.enabled === true)
    .map((c) => ({ namespace: c.namespace, name: `${c.name}-cluster-client-secret`, keyPrefix: tlsAssetPrefix(c.namespace, `${c.name}-cluster-client-secret`) }));
  const metadata = { name, namespace, labels: monitorLabels(tm.metadata.name ?? ''), ownerReferences: [monitorOwnerReference(tm)] };
  return { kind: 'secret.copy', ref: { kind: 'Secret', namespace, name }, metadata, sources };
}
