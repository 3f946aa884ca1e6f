/**
 * TiKV as a declaration: TiDB Operator v1's `tikvMemberManager.Sync` (§1.4, §2.2) is the shared
 * member recipe (member/recipe.ts) with what is TiKV's own. Read top to bottom, this is TiKV's
 * recipe: its objects, its status, its place in §1.5, and the hooks where TiKV differs.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { tikvDesiredReplicas } from '../../cluster/replicas.js';
import type { Rule } from '../../engine/rule.js';
import { blockedBy, type ComponentDeclaration } from '../../member/component.js';
import { memberBlock } from '../../member/recipe.js';
import { planStoreIdentity } from '../../member/store-identity.js';
import { isPdAvailable } from '../pd/availability.js';
import { tikvConfigData, tikvConfigOverlay } from './config-map.js';
import { CONFIG_OVERLAY_KEY } from './pitr-gc.js';
import { planStoreFailover, planStoreRecovery } from '../../member/store-failover.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { planEvictLeaderCleanup } from './evict-leader.js';
import { TIKV_STORES } from './failover.js';
import { beforeTikvScaleIn, beforeTikvScaleOut, settleTikvScaleIn } from './scale.js';
import { TIKV_RETRY_MS } from './names.js';
import { tikvClaimTemplates, tikvPodTemplate } from './pod-template.js';
import { tikvPeerService } from './services.js';
import { isOwnTikvStoreAddress, planTikvStatus } from './status.js';
import { planTikvStoreLabels } from './store-labels.js';
import { beforeTikvRestart, tikvUpdatedPodHold } from './upgrade.js';

/** TiKV, declared: what the member recipe needs to run it. */
export const tikvComponent: ComponentDeclaration = {
  name: 'tikv',
  title: 'TiKV',
  ruleName: 'Tikv',
  retryMs: TIKV_RETRY_MS,
  specOf: (tc: TidbCluster) => tc.spec.tikv,
  // data volume claim `tikv`: PVCs `tikv-<tc>-tikv-<ordinal>`
  claim: 'tikv',
  claimTemplates: tikvClaimTemplates,
  // only the headless peer Service <tc>-tikv-peer (port peer 20160)
  services: (tc) => [tikvPeerService(tc)],
  // tikv.toml (compared as TOML) and the start script
  // and, while a PiTR Restore into the cluster is pending, gc.ratio-threshold = -1 in place (pitr-gc.ts)
  config: { data: tikvConfigData, tomlKeys: [SCRIPTED_CONFIG_KEYS.config, CONFIG_OVERLAY_KEY], overlay: tikvConfigOverlay },
  // the `tikv` container (capacity from limits.storage), log tailers only when asked
  podTemplate: tikvPodTemplate,
  // spec + every failure store + spare during a volume replacement
  desiredReplicas: (tc, status) => tikvDesiredReplicas(tc.spec, status),
  // status.tikv from the StatefulSet and PD's stores: stores, peer stores, tombstones, phase
  syncStatus: planTikvStatus,
  // as TiDB Operator: a new TiKV StatefulSet is not followed by a requeue
  requeueAfterCreate: false,
  // §1.5: TiKV acts only once PD is available; its upgrade waits while PD or TiFlash scale or
  // upgrade, and while TiKV itself scales
  dependencies: {
    availableBefore: [{ name: 'pd', isAvailable: isPdAvailable }],
    upgradeWaitsFor: [
      blockedBy('tiflash', ['Upgrade', 'Scale']),
      blockedBy('pd', ['Upgrade', 'Scale']),
      blockedBy('tikv', ['Scale']),
    ],
  },
  hooks: {
    gates: [],
    extra: [
      // as TiDB Operator, before the scaler: failure stores of undesired ordinals dropped, and
      // recovery (failure stores cleared) only when the user asks and every desired store is Up
      { name: 'TikvFailoverRecovery', plan: planStoreRecovery(TIKV_STORES) },
      // each pod's store id as soon as PD lists its store: pod labels and the state table
      { name: 'TikvStoreIds', plan: (input) => planStoreIdentity(input, isOwnTikvStoreAddress) },
      // store labels from the topology of the pods' nodes (PD location-labels + spec.tikv.storeLabels)
      { name: 'TikvStoreLabels', plan: planTikvStoreLabels },
      // every evict-leader scheduler of ours that no upgrade or scale-in targets is removed (P2, P3)
      { name: 'TikvEvictLeaderCleanup', plan: planEvictLeaderCleanup },
    ],
    // the store leaves PD first: max-replicas check, leaders evicted, DELETE, Tombstone (scale.ts)
    beforeScaleIn: beforeTikvScaleIn,
    // a scale-in overtaken by a scale-out is cancelled (store Up again) or finished (P14)
    settleScaleIn: settleTikvScaleIn,
    // an unmarked claim of the next ordinal is never mounted blindly (P21)
    beforeScaleOut: beforeTikvScaleOut,
    // a store Down for tikvFailoverPeriod becomes a failure store (capped, only with PD quorum)
    failover: planStoreFailover(TIKV_STORES),
    // leaders evicted before each restart (scheduler re-verified every step), none for a single store
    beforeRestart: beforeTikvRestart,
    // the restarted store Up, and its leaders back (2/3 of before, 400 s cap)
    updatedPodHold: tikvUpdatedPodHold,
  },
};

/** The TiKV rules: one block of the cluster recipe (a stop inside it ends TiKV's rules only). */
export const tikvRules: readonly Rule[] = [memberBlock(tikvComponent)];
