/**
 * PD's ConfigMap data, as TiDB Operator v1 (§2.0, §2.1): `config-file` (pd.toml from `spec.pd.config`,
 * TOML text or a map, compared semantically) and `startup-script`. How it is named and written is the
 * shared member/config-map.ts.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { clusterScheme } from '../../cluster/tls.js';
import { renderConfig, type ConfigData, type TomlValue } from '../../member/config-data.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { DEFAULT_PD_START_TIMEOUT_SECONDS, pdStartScript } from './start-script.js';
import { pdSecurityConfig } from './tls.js';

/** PD's data directory: `/var/lib/pd`, or a sub-directory of it (`spec.pd.dataSubDir`). */
export function pdDataDir(tc: TidbCluster): string {
  const sub = tc.spec.pd?.dataSubDir;
  return sub === undefined || sub === '' ? '/var/lib/pd' : `/var/lib/pd/${sub}`;
}

/** The desired ConfigMap data: rendered pd.toml (plus operator-injected keys) and the start script. */
export function pdConfigData(tc: TidbCluster): ConfigData {
  // As TiDB Operator: with cluster TLS, `[security]` points at the mounted `pd-tls` Secret.
  const overlay: Record<string, TomlValue> = { ...pdSecurityConfig(tc) };
  // As TiDB Operator: the dashboard proxies through PD when asked to.
  if (tc.spec.pd?.enableDashboardInternalProxy === true) overlay['dashboard.internal-proxy'] = true;
  const script = pdStartScript({
    dataDir: pdDataDir(tc),
    startTimeoutSeconds: tc.spec.pd?.startTimeout ?? DEFAULT_PD_START_TIMEOUT_SECONDS,
    scheme: clusterScheme(tc),
    clusterDomain: tc.spec.clusterDomain ?? '',
    // as v1.6: PD runs as the API service only with both `mode: ms` and `spec.pdms`
    apiService: tc.spec.pd?.mode === 'ms' && tc.spec.pdms !== undefined,
  });
  return { [SCRIPTED_CONFIG_KEYS.config]: renderConfig(tc.spec.pd?.config, overlay), [SCRIPTED_CONFIG_KEYS.script]: script };
}
