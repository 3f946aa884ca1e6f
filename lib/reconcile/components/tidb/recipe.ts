/**
 * TiDB as a declaration: TiDB Operator v1's `tidbMemberManager.Sync` (§1.4, §2.4) is the shared
 * member recipe (member/recipe.ts) with what is TiDB's own. Read top to bottom, this is TiDB's
 * recipe: its objects, its status, its place in §1.5, and the hooks where TiDB differs.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { tidbDesiredReplicas } from '../../cluster/replicas.js';
import type { Rule } from '../../engine/rule.js';
import { blockedBy, type ComponentDeclaration } from '../../member/component.js';
import { memberBlock } from '../../member/recipe.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { tidbConfigData } from './config-map.js';
import { isTikvAvailable } from '../tikv/availability.js';
import { isPumpAvailableForTidb } from './dependencies.js';
import { planTidbFailover } from './failover.js';
import { TIDB_RETRY_MS } from './names.js';
import { tidbClaimTemplates, tidbPodTemplate } from './pod-template.js';
import { tidbServices } from './services.js';
import { planTidbServerLabels } from './server-labels.js';
import { planSmoothUpgradeFinish, planSmoothUpgradeStart } from './smooth-upgrade.js';
import { isTidbSynced, planTidbStatus } from './status.js';
import { beforeTidbRestart, tidbUpdatedPodHold } from './upgrade.js';

const BLOCKERS = ['Upgrade', 'Scale'];

/** TiDB, declared: what the member recipe needs to run it. */
export const tidbComponent: ComponentDeclaration = {
  name: 'tidb',
  title: 'TiDB',
  ruleName: 'Tidb',
  retryMs: TIDB_RETRY_MS,
  specOf: (tc: TidbCluster) => tc.spec.tidb,
  // no data claim of its own: only `spec.tidb.storageVolumes` make PVCs (`tidb-<name>-<tc>-tidb-<ordinal>`)
  claim: 'tidb',
  claimsOptional: true,
  claimTemplates: tidbClaimTemplates,
  // the client Service <tc>-tidb only when spec.tidb.service is set; the headless <tc>-tidb-peer always
  services: tidbServices,
  // tidb.toml (compared as TOML) and the start script
  config: { data: tidbConfigData, tomlKeys: [SCRIPTED_CONFIG_KEYS.config] },
  // the `tidb` container and the `slowlog` sidecar, their volumes and scheduling settings
  podTemplate: tidbPodTemplate,
  // spec + failure members
  desiredReplicas: (tc, status) => tidbDesiredReplicas(tc.spec, status),
  // status.tidb from the StatefulSet and each pod's /status: members, phase, image
  syncStatus: planTidbStatus,
  // TiDB's status has no `synced`: it is synced when the servers could be read
  isSynced: isTidbSynced,
  requeueAfterCreate: false,
  // §1.5: TiKV (and Pump) available first; the upgrade waits while PD, TiKV, TiFlash or Pump
  // upgrade or scale, and while TiDB itself scales
  dependencies: {
    availableBefore: [
      { name: 'tikv', isAvailable: isTikvAvailable },
      { name: 'pump', isAvailable: isPumpAvailableForTidb },
    ],
    upgradeWaitsFor: [
      blockedBy('pd', BLOCKERS),
      blockedBy('tikv', BLOCKERS),
      blockedBy('tiflash', BLOCKERS),
      blockedBy('pump', BLOCKERS),
      blockedBy('tidb', ['Scale']),
    ],
  },
  hooks: {
    gates: [],
    // the smooth upgrade's finish re-runs until TiDB confirmed it and the marker is cleared (P20)
    extra: [
      { name: 'TidbSmoothUpgradeFinish', plan: planSmoothUpgradeFinish },
      // TiDB ≥ 6.3 with a zone among PD's location labels: each healthy server's node topology, once per process
      { name: 'TidbServerLabels', plan: planTidbServerLabels },
    ],
    // as TiDB Operator: nothing to do in TiDB before a member goes (its PVCs, if any, are deferred)
    beforeScaleIn: () => ({ first: [] }),
    // recover, or record one unhealthy scheduled member after tidbFailoverPeriod (deadline persisted and woken at)
    failover: planTidbFailover,
    // TiDB ≥ 7.1: the smooth-upgrade marker, then /upgrade/start, before the new pod spec is written
    beforeUpgrade: planSmoothUpgradeStart,
    beforeRestart: beforeTidbRestart,
    // an updated member healthy by /status before the next pod rolls
    updatedPodHold: tidbUpdatedPodHold,
  },
};

/** The TiDB rules: one block of the cluster recipe (a stop inside it ends TiDB's rules only). */
export const tidbRules: readonly Rule[] = [memberBlock(tidbComponent)];
