/**
 * TiDB's ConfigMap data, as TiDB Operator v1 (§2.0, §2.4): `config-file` (tidb.toml from
 * `spec.tidb.config`, TOML text or a map, compared semantically; with cluster TLS the
 * `security.cluster-ssl-*` paths of the mounted `tidb-tls` Secret, with `tlsClient.enabled` the
 * `security.ssl-*` paths of the mounted `tidb-server-tls` Secret) and `startup-script`. How it is
 * named and written is the shared member/config-map.ts.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { pdServiceClusterOf, referencedPdOf } from '../../cluster/referenced-pd.js';
import { isTlsCluster } from '../../cluster/tls.js';
import { renderConfig, type ConfigData, type TomlValue } from '../../member/config-data.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { tidbStartScript } from './start-script.js';

/** Where the cluster TLS Secret `<tc>-tidb-cluster-secret` is mounted in the TiDB container. */
export const TIDB_CLUSTER_TLS_PATH = '/var/lib/tidb-tls';

/** Where the MySQL client TLS Secret `<tc>-tidb-server-secret` is mounted (`spec.tidb.tlsClient`). */
export const TIDB_SERVER_TLS_PATH = '/var/lib/tidb-server-tls';

/** As TiDB Operator's `IsTLSClientEnabled`: `spec.tidb.tlsClient.enabled`. */
export const isTidbTlsClient = (tc: TidbCluster): boolean => tc.spec.tidb?.tlsClient?.enabled === true;

/** As TiDB Operator's `tlsClientSecretName`: the Secret of TiDB's MySQL server certificate, `<tc>-tidb-server-secret`. */
export const tidbServerSecretName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tidb-server-secret`;

/**
 * As TiDB Operator: with `tlsClient.enabled`, TiDB serves MySQL clients with the mounted server
 * certificate, and verifies client certificates against its CA unless `disableClientAuthn`.
 */
function serverTlsOverlay(tc: TidbCluster): Record<string, TomlValue> {
  if (!isTidbTlsClient(tc)) return {};
  const ca: Record<string, TomlValue> = tc.spec.tidb?.tlsClient?.disableClientAuthn === true ? {} : { 'security.ssl-ca': `${TIDB_SERVER_TLS_PATH}/ca.crt` };
  return { ...ca, 'security.ssl-cert': `${TIDB_SERVER_TLS_PATH}/tls.crt`, 'security.ssl-key': `${TIDB_SERVER_TLS_PATH}/tls.key` };
}

/**
 * PD's client address as TiDB's `--path` names it: `<tc>-pd:2379`, an FQDN with `spec.clusterDomain`.
 * As TiDB Operator v1: a cluster without PD of its own that names another in `spec.cluster` uses that
 * one's, `<ref>-pd:2379`.
 */
export function tidbPdPath(tc: TidbCluster): string {
  if (referencedPdOf(tc) !== undefined) return `${pdServiceClusterOf(tc)}-pd:2379`;
  const name = tc.metadata.name ?? '';
  const domain = tc.spec.clusterDomain;
  return domain === undefined || domain === '' ? `${name}-pd:2379` : `${name}-pd.${tc.metadata.namespace ?? ''}.svc.${domain}:2379`;
}

/** The desired ConfigMap data: rendered tidb.toml (plus operator-injected keys) and the start script. */
export function tidbConfigData(tc: TidbCluster): ConfigData {
  // As TiDB Operator: with cluster TLS, TiDB talks to PD and TiKV with the mounted cluster certificate.
  const cluster: Record<string, TomlValue> = isTlsCluster(tc)
    ? {
        'security.cluster-ssl-ca': `${TIDB_CLUSTER_TLS_PATH}/ca.crt`,
        'security.cluster-ssl-cert': `${TIDB_CLUSTER_TLS_PATH}/tls.crt`,
        'security.cluster-ssl-key': `${TIDB_CLUSTER_TLS_PATH}/tls.key`,
      }
    : {};
  const overlay = { ...cluster, ...serverTlsOverlay(tc) };
  const script = tidbStartScript({ pdPath: tidbPdPath(tc), clusterDomain: tc.spec.clusterDomain ?? '' });
  return { [SCRIPTED_CONFIG_KEYS.config]: renderConfig(tc.spec.tidb?.config, overlay), [SCRIPTED_CONFIG_KEYS.script]: script };
}
