/**
 * TiKV as a declaration: TiDB Operator v1's `tikvMemberManager.Sync` (§1.4, §2.2) is the shared
 * member recipe (member/recipe.ts) with what is TiKV's own. Read top to bottom, this is TiKV's
 * recipe: its objects, its status, its place in §1.5, and the hooks where TiKV differs.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { tikvDesiredReplicas } from '../../cluster/replicas.js';
import type { Rule } from '../../engine/rule.js';
import type { ComponentDeclaration } from '../../member/component.js';
import { memberBlock } from '../../member/recipe.js';
import { isPdAvailable } from '../pd/availability.js';
import { TIKV_CONFIG_KEYS, tikvConfigData } from './config-map.js';
import { beforeTikvRestart, beforeTikvScaleIn, planTikvFailover, tikvUpdatedPodHold } from './hooks.js';
import { TIKV_RETRY_MS } from './names.js';
import { tikvClaimTemplates, tikvPodTemplate } from './pod-template.js';
import { tikvPeerService } from './services.js';
import { planTikvStatus } from './status.js';

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
  config: { data: tikvConfigData, tomlKeys: [TIKV_CONFIG_KEYS.config] },
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
      { name: 'tiflash', title: 'TiFlash', phases: ['Upgrade', 'Scale'] },
      { name: 'pd', title: 'PD', phases: ['Upgrade', 'Scale'] },
      { name: 'tikv', title: 'TiKV', phases: ['Scale'] },
    ],
  },
  hooks: {
    gates: [],
    extra: [],
    // holds: TiKV's scale-in (evict leaders, delete the store, wait for Tombstone) is not built yet
    beforeScaleIn: beforeTikvScaleIn,
    // none yet
    failover: planTikvFailover,
    // a plain member: no leader eviction yet
    beforeRestart: beforeTikvRestart,
    updatedPodHold: tikvUpdatedPodHold,
  },
};

/** The TiKV rules: one block of the cluster recipe (a stop inside it ends TiKV's rules only). */
export const tikvRules: readonly Rule[] = [memberBlock(tikvComponent)];
