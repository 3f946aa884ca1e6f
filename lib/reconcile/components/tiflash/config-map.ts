/**
 * TiFlash's ConfigMap data, as TiDB Operator v1 (§2.0, §2.3): two templates, `config_templ.toml`
 * (TiFlash, from `spec.tiflash.config.config`) and `proxy_templ.toml` (its TiFlash proxy, from
 * `spec.tiflash.config.proxy`). The init container replaces `POD_NUM` with the pod's ordinal and
 * writes them to `/data0/config.toml` and `/data0/proxy.toml`. The operator's defaults (v1's
 * `getTiFlashConfigV2`, the layout of TiFlash ≥ v5.4) fill only what the user left unset.
 */

import { stringify as stringifyToml } from 'smol-toml';

import type { TidbCluster } from '../../../model/kube.js';
import { isTlsCluster } from '../../cluster/tls.js';
import { isVersionAtLeast } from '../../member/cmpver.js';
import { parseTomlText, renderConfig, type ConfigData, type TomlValue } from '../../member/config-data.js';
import { TIFLASH_PORTS, tiflashPeerServiceName, tiflashSetName } from './names.js';
import { tiflashVersion } from './pod-template.js';

/** The ConfigMap keys of TiFlash. */
export const TIFLASH_CONFIG_KEYS = { config: 'config_templ.toml', proxy: 'proxy_templ.toml' } as const;

/** Where TiFlash reads the cluster TLS Secret `<tc>-tiflash-cluster-secret`. */
export const TIFLASH_CERT_PATH = '/var/lib/tiflash-tls';

type Doc = { [key: string]: TomlValue };

function docOf(config: unknown): Doc {
  return parseTomlText(renderConfig(config)) ?? {};
}

function getPath(doc: Doc, path: readonly string[]): TomlValue | undefined {
  let node: TomlValue | undefined = doc;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = node[key];
  }
  return node;
}

function setPath(doc: Doc, path: readonly string[], value: TomlValue): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    doc[head] = value;
    return;
  }
  const current = doc[head];
  const child: Doc = typeof current === 'object' && current !== null && !Array.isArray(current) ? current : {};
  doc[head] = child;
  setPath(child, rest, value);
}

/** As v1's `SetIfNil`: `value` at the dotted `path` unless the user set one. */
function setIfNil(doc: Doc, path: string, value: TomlValue): void {
  const keys = path.split('.');
  if (getPath(doc, keys) === undefined) setPath(doc, keys, value);
}

const podHost = (tc: TidbCluster, port: number): string =>
  `${tiflashSetName(tc)}-POD_NUM.${tiflashPeerServiceName(tc)}.${tc.metadata.namespace ?? ''}.svc${tc.spec.clusterDomain ? `.${tc.spec.clusterDomain}` : ''}:${port}`;

/** `spec.cluster` as v1 defaults it (the namespace is tc's when unset), with its domain as a suffix; undefined without a name. */
function clusterRefOf(tc: TidbCluster): { name: string; namespace: string; domain: string } | undefined {
  const ref = tc.spec.cluster;
  if (ref?.name === undefined || ref.name === '') return undefined;
  return { name: ref.name, namespace: ref.namespace || tc.metadata.namespace || '', domain: ref.clusterDomain ? `.${ref.clusterDomain}` : '' };
}

/**
 * As v1's `getTiFlashConfigV2`: PD at `<tc>-pd.<ns>.svc:2379` and TiDB's status at
 * `<tc>-tidb.<ns>.svc:10080`; a heterogeneous cluster (`spec.cluster`) without a PD (or a TiDB) of
 * its own uses the referenced cluster's, in that cluster's namespace and domain.
 */
function peerAddresses(tc: TidbCluster): { pd: string; tidbStatus: string } {
  const ns = tc.metadata.namespace ?? '';
  const name = tc.metadata.name ?? '';
  const ref = clusterRefOf(tc);
  const noLocal = (component: unknown): boolean => component === undefined || component === null;
  return {
    pd: ref && noLocal(tc.spec.pd) ? `${ref.name}-pd.${ref.namespace}.svc${ref.domain}:2379` : `${name}-pd.${ns}.svc:2379`,
    tidbStatus: ref && noLocal(tc.spec.tidb) ? `${ref.name}-tidb.${ref.namespace}.svc${ref.domain}:10080` : `${name}-tidb.${ns}.svc:10080`,
  };
}

function commonDefaults(tc: TidbCluster, doc: Doc): void {
  const claims = tc.spec.tiflash?.storageClaims ?? [];
  const peers = peerAddresses(tc);
  if (getPath(doc, ['path']) === undefined && getPath(doc, ['storage', 'main', 'dir']) === undefined) {
    setPath(doc, ['storage', 'main', 'dir'], claims.length === 0 ? ['/data0/db'] : claims.map((_, i) => `/data${i}/db`));
  }
  if (getPath(doc, ['raft', 'kvstore_path']) === undefined) setIfNil(doc, 'storage.raft.dir', ['/data0/kvstore']);
  setIfNil(doc, 'tmp_path', '/data0/tmp');
  // As TiDB Operator: TiFlash before v7.1.0 still needs its ClickHouse-era ports in the file.
  if (isVersionAtLeast(tiflashVersion(tc), 'v7.1.0') === false) {
    setIfNil(doc, 'tcp_port', TIFLASH_PORTS.tcp);
    setIfNil(doc, 'http_port', TIFLASH_PORTS.http);
  }
  setIfNil(doc, 'flash.tidb_status_addr', peers.tidbStatus);
  setIfNil(doc, 'flash.service_addr', `0.0.0.0:${TIFLASH_PORTS.tiflash}`);
  setIfNil(doc, 'flash.flash_cluster.log', '/data0/logs/flash_cluster_manager.log');
  setIfNil(doc, 'flash.proxy.addr', `0.0.0.0:${TIFLASH_PORTS.proxy}`);
  setIfNil(doc, 'flash.proxy.advertise-addr', podHost(tc, TIFLASH_PORTS.proxy));
  setIfNil(doc, 'flash.proxy.data-dir', '/data0/proxy');
  setIfNil(doc, 'flash.proxy.config', '/data0/proxy.toml');
  setIfNil(doc, 'logger.errorlog', '/data0/logs/error.log');
  setIfNil(doc, 'logger.log', '/data0/logs/server.log');
  setIfNil(doc, 'raft.pd_addr', peers.pd);
}

function proxyDefaults(tc: TidbCluster, doc: Doc): void {
  setIfNil(doc, 'log-level', 'info');
  setIfNil(doc, 'server.engine-addr', podHost(tc, TIFLASH_PORTS.tiflash));
  setIfNil(doc, 'server.advertise-status-addr', podHost(tc, TIFLASH_PORTS.proxyMetrics));
  setIfNil(doc, 'server.status-addr', `0.0.0.0:${TIFLASH_PORTS.proxyMetrics}`);
}

/** As TiDB Operator: with cluster TLS both files point at the mounted Secret (TiFlash spells keys with `_`, the proxy with `-`). */
function securityOverlay(tc: TidbCluster, common: Doc, proxy: Doc): void {
  if (!isTlsCluster(tc)) return;
  for (const [key, file] of [['ca', 'ca.crt'], ['cert', 'tls.crt'], ['key', 'tls.key']] as const) {
    setPath(common, ['security', `${key}_path`], `${TIFLASH_CERT_PATH}/${file}`);
    setPath(proxy, ['security', `${key}-path`], `${TIFLASH_CERT_PATH}/${file}`);
  }
}

/** The desired ConfigMap data: the two rendered templates. */
export function tiflashConfigData(tc: TidbCluster): ConfigData {
  const config = tc.spec.tiflash?.config as { config?: unknown; proxy?: unknown } | undefined;
  const common = docOf(config?.config);
  const proxy = docOf(config?.proxy);
  commonDefaults(tc, common);
  proxyDefaults(tc, proxy);
  securityOverlay(tc, common, proxy);
  return { [TIFLASH_CONFIG_KEYS.config]: stringifyToml(common), [TIFLASH_CONFIG_KEYS.proxy]: stringifyToml(proxy) };
}
