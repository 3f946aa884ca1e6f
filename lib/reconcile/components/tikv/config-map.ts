/**
 * TiKV's ConfigMap data, as TiDB Operator v1 (§2.0, §2.2): `config-file` (tikv.toml from
 * `spec.tikv.config`, TOML text or a map, compared semantically, with the operator's keys) and
 * `startup-script`. How it is named and written is the shared member/config-map.ts.
 */

import type { TidbCluster } from '../../../model/kube.js';
import type { Snapshot } from '../../../model/snapshot.js';
import { wantsPitrGcOverlay, withPitrGcOverlay } from './pitr-gc.js';
import { clusterScheme, isTlsCluster, TLS_SECRET_KEYS } from '../../cluster/tls.js';
import { parseTomlText, renderConfig, type ConfigData, type TomlValue } from '../../member/config-data.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { tikvStartScript } from './start-script.js';

/** TiKV's own certificate: volume `tikv-tls` at `/var/lib/tikv-tls` (v1's `tikvClusterCertPath`). */
export const TIKV_CLUSTER_TLS = { volume: 'tikv-tls', mountPath: '/var/lib/tikv-tls' } as const;

/** TiKV's data directory: `/var/lib/tikv`, or a sub-directory of it (`spec.tikv.dataSubDir`). */
export function tikvDataDir(tc: TidbCluster): string {
  const sub = tc.spec.tikv?.dataSubDir;
  return sub === undefined || sub === '' ? '/var/lib/tikv' : `/var/lib/tikv/${sub}`;
}

/**
 * PD's client URL as the start script names it: the cluster's own `${CLUSTER_NAME}-pd`, or — a
 * cluster without PD of its own joining another one (`spec.cluster`) — that cluster's `<name>-pd`.
 */
export function tikvPdAddress(tc: TidbCluster): string {
  const scheme = clusterScheme(tc);
  const reference = tc.spec.cluster?.name;
  if (tc.spec.pd === undefined && reference !== undefined && reference !== '') return `${scheme}://${reference}-pd:2379`;
  return `${scheme}://\${CLUSTER_NAME}-pd:2379`;
}

/**
 * The `[security]` keys v1 injects into tikv.toml with cluster TLS: `ca-path`, `cert-path` and
 * `key-path` under `/var/lib/tikv-tls`. Empty when TLS is off. They override the user's values.
 */
export function tikvSecurityConfig(tc: TidbCluster): Record<string, TomlValue> {
  if (!isTlsCluster(tc)) return {};
  const at = (key: string): string => `${TIKV_CLUSTER_TLS.mountPath}/${key}`;
  return { 'security.ca-path': at(TLS_SECRET_KEYS.ca), 'security.cert-path': at(TLS_SECRET_KEYS.cert), 'security.key-path': at(TLS_SECRET_KEYS.key) };
}

// As v1's `transformTiKVConfigMap`: these durations written as a string of digits mean milliseconds.
const NUMERIC_STRING_KEYS = ['wait-for-lock-timeout', 'wake-up-delay-duration'] as const;

/**
 * As v1's `transformTiKVConfigMap`: `pessimistic-txn.wait-for-lock-timeout` and
 * `wake-up-delay-duration` given as strings of digits (`"1000"`) are written as numbers, which is
 * what TiKV reads; any other value is left as the user wrote it.
 */
export function tikvNumericOverlay(config: unknown): Record<string, TomlValue> {
  const doc = typeof config === 'string' ? parseTomlText(config) : config;
  const section = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['pessimistic-txn'] : undefined;
  const overlay: Record<string, TomlValue> = {};
  for (const key of NUMERIC_STRING_KEYS) {
    const value = typeof section === 'object' && section !== null ? (section as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) overlay[`pessimistic-txn.${key}`] = Number(value);
  }
  return overlay;
}

/**
 * The desired ConfigMap data with what pending PiTR Restores add (pitr-gc.ts): `gc.ratio-threshold
 * = -1` while one is pending (or, when the Restores were not read, as the live ConfigMap has it).
 */
export function tikvConfigOverlay(tc: TidbCluster, snapshot: Snapshot, live: ConfigData | undefined): ConfigData {
  const data = tikvConfigData(tc);
  if (!wantsPitrGcOverlay(snapshot.pendingPitrRestores, live)) return data;
  return withPitrGcOverlay(data, tc.spec.tikv?.config, { ...tikvNumericOverlay(tc.spec.tikv?.config), ...tikvSecurityConfig(tc) }, SCRIPTED_CONFIG_KEYS.config);
}

/** The desired ConfigMap data: rendered tikv.toml (plus operator-injected keys) and the start script. */
export function tikvConfigData(tc: TidbCluster): ConfigData {
  const script = tikvStartScript({
    dataDir: tikvDataDir(tc),
    pdAddress: tikvPdAddress(tc),
    clusterDomain: tc.spec.clusterDomain ?? '',
    preferIPv6: tc.spec.preferIPv6 === true,
    advertiseStatusAddr: tc.spec.enableDynamicConfiguration === true,
  });
  return { [SCRIPTED_CONFIG_KEYS.config]: renderConfig(tc.spec.tikv?.config, { ...tikvNumericOverlay(tc.spec.tikv?.config), ...tikvSecurityConfig(tc) }), [SCRIPTED_CONFIG_KEYS.script]: script };
}
