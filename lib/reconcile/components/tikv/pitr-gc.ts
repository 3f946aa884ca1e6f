/**
 * TiKV's `gc.ratio-threshold = -1` while a PiTR Restore is pending, as TiDB Operator v1's TiKV member
 * manager (`pkg/manager/member/tikv_member_manager.go` `applyPiTRConfigOverride`, spec §2.3 step 4):
 * while any Restore in PiTR mode that names this cluster is neither Complete nor Failed, the TiKV
 * ConfigMap's `config-file` carries `[gc] ratio-threshold = -1` and the overlay itself is kept under
 * `config-file-overlay`. The ConfigMap keeps the name its config without the overlay gives (v1 names
 * it before applying the overlay), so the overlay is an in-place update and never rolls TiKV; the
 * Restore's own gate (lib/reconcile/restore/recipe.ts) then finds -1 and goes on. Once no such
 * Restore is pending, the overlay goes (v1 writes the ConfigMap without it).
 *
 * One difference from v1: v1 compares `spec.br.clusterNamespace` with the cluster's namespace
 * literally, so a Restore leaving it empty never gets the overlay and waits at its gate forever; here
 * an empty `clusterNamespace` means the Restore's own namespace, as v1 reads it everywhere else.
 */

import type { TidbCluster } from '../../../model/kube.js';
import type { KubeObject } from '../../../kube/port.js';
import type { Restore } from '../../backup/types.js';
import type { ConfigData, TomlValue } from '../../member/config-data.js';
import { renderConfig } from '../../member/config-data.js';

/** The ConfigMap key v1 keeps the overlay under. */
export const CONFIG_OVERLAY_KEY = 'config-file-overlay';

/** The overlay: `gc.ratio-threshold = -1`. */
export const PITR_GC_OVERLAY: Readonly<Record<string, TomlValue>> = { 'gc.ratio-threshold': -1 };

/** Whether `restore` is a PiTR Restore into `tc` that is not done (neither Complete nor Failed). */
export function isPendingPitrRestoreFor(restore: KubeObject, tc: TidbCluster): boolean {
  const r = restore as unknown as Restore;
  const spec = r.spec as { restoreMode?: string; br?: { cluster?: string; clusterNamespace?: string } } | undefined;
  if (spec?.restoreMode !== 'pitr' || spec.br === undefined) return false;
  const namespace = spec.br.clusterNamespace || restore.metadata.namespace;
  if (spec.br.cluster !== tc.metadata.name || namespace !== tc.metadata.namespace) return false;
  const status = r.status as { phase?: string; conditions?: readonly { type?: string; status?: string }[] } | undefined;
  const done = (type: string): boolean => status?.phase === type || (status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
  return !done('Complete') && !done('Failed');
}

/**
 * Whether the overlay is wanted: when the Restores were read (`pending` given), whether any is
 * pending; when they were not (a step that did not list them), whatever the live ConfigMap has — a
 * step that does not know never adds nor removes it.
 */
export function wantsPitrGcOverlay(pending: readonly string[] | undefined, live: Readonly<Record<string, string>> | undefined): boolean {
  return pending === undefined ? live?.[CONFIG_OVERLAY_KEY] !== undefined : pending.length > 0;
}

/**
 * TiKV's ConfigMap data with the overlay: `config-file` rendered from `spec.tikv.config` plus the
 * operator's keys and `gc.ratio-threshold = -1` (`baseOverlay` is the operator's keys, as
 * `tikvConfigData` passes them), and `config-file-overlay` holding the overlay alone.
 */
export function withPitrGcOverlay(data: ConfigData, config: unknown, baseOverlay: Readonly<Record<string, TomlValue>>, configKey: string): ConfigData {
  return { ...data, [configKey]: renderConfig(config, { ...baseOverlay, ...PITR_GC_OVERLAY }), [CONFIG_OVERLAY_KEY]: renderConfig({}, PITR_GC_OVERLAY) };
}
