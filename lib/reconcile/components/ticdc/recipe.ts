/**
 * TiCDC as a declaration: TiDB Operator v1's `ticdcMemberManager.Sync` (§1.4, §2.5) is the shared
 * member recipe with what is TiCDC's own — its headless Service, its optional ConfigMap, captures as
 * its status, and the graceful shutdown (owner resigned, capture drained, bounded by a persisted
 * deadline) before a pod leaves or restarts.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { complete } from '../../engine/outcome.js';
import type { Rule } from '../../engine/rule.js';
import { blockedBy, type ComponentDeclaration, type MemberDecision, type MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import { memberBlock } from '../../member/recipe.js';
import { isPdAvailable } from '../pd/availability.js';
import { isTikvAvailable } from '../tikv/availability.js';
import { staleDrainBookkeeping } from './drain.js';
import { TICDC_RETRY_MS } from './names.js';
import { TICDC_CONFIG_KEY, ticdcClaimTemplates, ticdcConfigData, ticdcPodTemplate } from './pod-template.js';
import { ticdcPeerService } from './services.js';
import { planTicdcStatus } from './status.js';
import { beforeTicdcRestart, beforeTicdcScaleIn, ticdcUpdatedPodHold } from './upgrade.js';

// As TiDB Operator's TiCDC upgrader: every other component scaling or upgrading holds it.
const busy = ['Upgrade', 'Scale'];

/** Drain bookkeeping no drain needs any more is cleared (see `staleDrainBookkeeping`); never holds anything. */
export function planTicdcDrainDeadlines(input: MemberInput): MemberDecision {
  const actions = staleDrainBookkeeping(input);
  return actions.length === 0 ? nothing() : { actions, outcome: complete('TiCDC drain bookkeeping no drain needs cleared') };
}

/** TiCDC, declared: what the member recipe needs to run it. */
export const ticdcComponent: ComponentDeclaration = {
  name: 'ticdc',
  title: 'TiCDC',
  ruleName: 'Ticdc',
  retryMs: TICDC_RETRY_MS,
  specOf: (tc: TidbCluster) => tc.spec.ticdc,
  // no data claim: claims only for spec.ticdc.storageVolumes (`ticdc-<name>`)
  claim: 'ticdc',
  claimTemplates: ticdcClaimTemplates,
  // headless <tc>-ticdc-peer only
  services: (tc) => [ticdcPeerService(tc)],
  // ticdc.toml, only when spec.ticdc.config is set
  config: { data: ticdcConfigData, tomlKeys: [TICDC_CONFIG_KEY] },
  podTemplate: ticdcPodTemplate,
  desiredReplicas: (tc) => tc.spec.ticdc?.replicas ?? 0,
  // status.ticdc from the StatefulSet and each pod's /status: captures, synced, phase (never Scale)
  syncStatus: planTicdcStatus,
  requeueAfterCreate: false,
  // as TiDB Operator: TiCDC scales and upgrades whatever its captures say (a leaving pod's capture counts too)
  changesNeedSynced: false,
  // §1.5: PD and TiKV (those the cluster has) available first; its upgrade waits for every other component
  dependencies: {
    availableBefore: [
      { name: 'pd', isAvailable: isPdAvailable },
      { name: 'tikv', isAvailable: isTikvAvailable },
    ],
    upgradeWaitsFor: [
      blockedBy('pd', busy),
      blockedBy('tikv', busy),
      blockedBy('tiflash', busy),
      blockedBy('pump', busy),
      blockedBy('tidb', busy),
    ],
  },
  hooks: {
    gates: [],
    // drain deadlines and begin marks no drain needs any more
    extra: [{ name: 'TicdcDrainDeadlines', plan: planTicdcDrainDeadlines }],
    // graceful shutdown: owner resigned, capture drained (or the timeout passed)
    beforeScaleIn: beforeTicdcScaleIn,
    // as TiDB Operator: TiCDC has no failover
    failover: () => nothing(),
    // drained, and the owner moved off the pod that rolls next
    beforeRestart: beforeTicdcRestart,
    // an updated pod's capture ready before the next pod rolls
    updatedPodHold: ticdcUpdatedPodHold,
  },
};

/** The TiCDC rules: one block of the cluster recipe. */
export const ticdcRules: readonly Rule[] = [memberBlock(ticdcComponent)];
