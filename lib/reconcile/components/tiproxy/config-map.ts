/**
 * TiProxy's ConfigMap data, as TiDB Operator v1.6's `syncConfigMap` renders it: `config-file`
 * (proxy.toml) is `spec.tiproxy.config` with `workdir` under the data mount, `proxy.pd-addrs` set to
 * the PD the cluster uses, `proxy.require-backend-tls` false unless the user set it, and the
 * `[security]` paths of the certificate layout (`spec.tiproxy.certLayout`: legacy, or `v1`);
 * `startup-script` is the script that runs `/bin/tiproxy` with it (start-script.ts).
 */

import type { TidbCluster } from '../../../model/kube.js';
import { CLUSTER_CLIENT_TLS, isTlsCluster } from '../../cluster/tls.js';
import { parseTomlText, renderConfig, type ConfigData, type TomlValue } from '../../member/config-data.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { tiproxyStartScript } from './start-script.js';

/** TiProxy's ConfigMap keys: the TOML file and the start script. */
export const TIPROXY_CONFIG_KEY = SCRIPTED_CONFIG_KEYS.config;

/** Where TiProxy's certificates are mounted, as v1.6 (`[security.*]` of proxy.toml name files under them). */
export const TIPROXY_TLS_PATHS = {
  /** `<tc>-tidb-client-secret` (legacy layout): TiProxy's client certificate towards TiDB. */
  sql: '/var/lib/tiproxy-sql-tls',
  /** `<tc>-tidb-server-secret`: the MySQL server certificate TiProxy presents to clients. */
  server: '/var/lib/tiproxy-server-tls',
  /** `<tc>-tiproxy-cluster-secret` (legacy layout, cluster TLS without TiDB client TLS): the HTTP API certificate. */
  httpServer: '/var/lib/tiproxy-http-server-tls',
  /** `<tc>-tiproxy-cluster-secret` (layout `v1`): the cluster certificate, also the HTTP API's. */
  cluster: '/var/lib/tiproxy-tls',
} as const;

/** The data directory v1 sets as `workdir` (under it, `work`). */
export const TIPROXY_DATA_PATH = '/var/lib/tiproxy';

/** The annotation that keeps TiProxy from TLS towards TiDB (v1's `AnnSkipTLSWhenConnectTiDB`). */
export const SKIP_TLS_WHEN_CONNECT_TIDB = 'tidb.tidb.pingcap.com/skip-tls-when-connect-tidb';

/** Whether TiDB's MySQL client TLS is on (`spec.tidb.tlsClient.enabled`). */
export const isTidbClientTls = (tc: TidbCluster): boolean => tc.spec.tidb?.tlsClient?.enabled === true;

/** As v1: TiProxy uses TLS towards TiDB when `sslEnableTiDB` is set or the skip annotation is absent. */
export const isSqlTlsToTidb = (tc: TidbCluster): boolean =>
  tc.spec.tiproxy?.sslEnableTiDB === true || tc.metadata.annotations?.[SKIP_TLS_WHEN_CONNECT_TIDB] === undefined;

/** Whether TiProxy uses the `v1` certificate layout (else the legacy one). */
export const isCertLayoutV1 = (tc: TidbCluster): boolean => tc.spec.tiproxy?.certLayout === 'v1';

/** The PD address TiProxy is given: `<tc>-pd:2379`, or the referenced cluster's PD when it has none of its own. */
export function tiproxyPdAddress(tc: TidbCluster): string {
  const name = tc.spec.pd === undefined && tc.spec.cluster?.name ? tc.spec.cluster.name : (tc.metadata.name ?? '');
  return `${name}-pd:2379`;
}

/** The user's config as a document (a TOML string parsed; a map taken as is). */
function userConfig(tc: TidbCluster): Record<string, unknown> {
  const config: unknown = tc.spec.tiproxy?.config;
  if (typeof config === 'string') return parseTomlText(config) ?? {};
  return typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
}

/** Whether the user's config sets the dotted `path`. */
function isSet(doc: Record<string, unknown>, path: string): boolean {
  let node: unknown = doc;
  for (const key of path.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return node !== undefined;
}

const files = (dir: string, prefix: string): Record<string, TomlValue> => ({ [`${prefix}.ca`]: `${dir}/ca.crt`, [`${prefix}.key`]: `${dir}/tls.key`, [`${prefix}.cert`]: `${dir}/tls.crt` });

/** As v1's `modifyConfigMapForTLSLegacy`. */
function legacyTls(tc: TidbCluster, user: Record<string, unknown>): Record<string, TomlValue> {
  const cluster = isTlsCluster(tc);
  const tidb = isTidbClientTls(tc);
  const out: Record<string, TomlValue> = {};
  if (cluster) Object.assign(out, files(CLUSTER_CLIENT_TLS.mountPath, 'security.cluster-tls'));
  if (tidb) {
    Object.assign(out, files(TIPROXY_TLS_PATHS.server, 'security.server-tls'));
    if (!isSet(user, 'security.server-tls.skip-ca')) out['security.server-tls.skip-ca'] = true;
    if (isSqlTlsToTidb(tc)) {
      if (!isSet(user, 'security.sql-tls.skip-ca') && tc.spec.tidb?.tlsClient?.skipInternalClientCA === true) out['security.sql-tls.skip-ca'] = true;
      else out['security.sql-tls.ca'] = `${TIPROXY_TLS_PATHS.sql}/ca.crt`;
      if (tc.spec.tidb?.tlsClient?.disableClientAuthn !== true) {
        out['security.sql-tls.key'] = `${TIPROXY_TLS_PATHS.sql}/tls.key`;
        out['security.sql-tls.cert'] = `${TIPROXY_TLS_PATHS.sql}/tls.crt`;
      }
    }
  }
  if (cluster || tidb) {
    Object.assign(out, files(tidb ? TIPROXY_TLS_PATHS.server : TIPROXY_TLS_PATHS.httpServer, 'security.server-http-tls'));
    out['security.server-http-tls.skip-ca'] = true;
  }
  return out;
}

/** As v1's `modifyConfigMapForTLSV1`: the HTTP API always names the cluster certificate files. */
function layoutV1Tls(tc: TidbCluster, user: Record<string, unknown>): Record<string, TomlValue> {
  const out: Record<string, TomlValue> = {};
  if (isTlsCluster(tc)) Object.assign(out, files(TIPROXY_TLS_PATHS.cluster, 'security.cluster-tls'));
  if (isTidbClientTls(tc)) {
    out['security.server-tls.key'] = `${TIPROXY_TLS_PATHS.server}/tls.key`;
    out['security.server-tls.cert'] = `${TIPROXY_TLS_PATHS.server}/tls.crt`;
    if (!isSet(user, 'security.server-tls.skip-ca')) out['security.server-tls.skip-ca'] = true;
    if (isSqlTlsToTidb(tc)) {
      if (!isSet(user, 'security.sql-tls.skip-ca') && tc.spec.tidb?.tlsClient?.skipInternalClientCA === true) out['security.sql-tls.skip-ca'] = true;
      else out['security.sql-tls.ca'] = `${TIPROXY_TLS_PATHS.server}/ca.crt`;
    }
  }
  Object.assign(out, files(TIPROXY_TLS_PATHS.cluster, 'security.server-http-tls'));
  out['security.server-http-tls.skip-ca'] = true;
  return out;
}

/** The keys v1 sets over the user's config, by dotted path. */
export function tiproxyConfigOverlay(tc: TidbCluster): Record<string, TomlValue> {
  const user = userConfig(tc);
  return {
    workdir: `${TIPROXY_DATA_PATH}/work`,
    'proxy.pd-addrs': tiproxyPdAddress(tc),
    ...(isSet(user, 'proxy.require-backend-tls') ? {} : { 'proxy.require-backend-tls': false }),
    ...(isCertLayoutV1(tc) ? layoutV1Tls(tc, user) : legacyTls(tc, user)),
  };
}

/** The ConfigMap data: `config-file` (proxy.toml) and `startup-script`. */
export function tiproxyConfigData(tc: TidbCluster): ConfigData {
  return {
    [TIPROXY_CONFIG_KEY]: renderConfig(tc.spec.tiproxy?.config ?? {}, tiproxyConfigOverlay(tc)),
    [SCRIPTED_CONFIG_KEYS.script]: tiproxyStartScript(tc),
  };
}
