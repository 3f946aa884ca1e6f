/**
 * TiFlash as a declaration: TiDB Operator v1's `tiflashMemberManager.Sync` (§1.4, §2.3) is the
 * shared member recipe with what is TiFlash's own. Read top to bottom, this is TiFlash's recipe: its
 * objects, its status, its place in §1.5, and the hooks where it differs from the other stores.
 */

import type { TidbCluster } from '../../../model/kube.js';
import { tiflashDesiredReplicas } from '../../cluster/replicas.js';
import type { Rule } from '../../engine/rule.js';
import { blockedBy, type ComponentDeclaration } from '../../member/component.js';
import { memberBlock } from '../../member/recipe.js';
import { TIFLASH_STORES } from './failover.js';
import { planStoreFailover, planStoreRecovery } from '../../member/store-failover.js';
import { planStoreIdentity } from '../../member/store-identity.js';
import { isOwnStoreAddress } from '../../member/store-status.js';
import { isPdAvailable } from '../pd/availability.js';
import { TIFLASH_CONFIG_KEYS, tiflashConfigData } from './config-map.js';
import { TIFLASH_DATA_CLAIM, TIFLASH_RETRY_MS } from './names.js';
import { planTiflashOldSet } from './old-set.js';
import { planTiflashPlacementRules } from './placement.js';
import { tiflashClaimTemplates, tiflashPodTemplate } from './pod-template.js';
import { beforeTiflashScaleIn } from './scale.js';
import { tiflashPeerService } from './services.js';
import { planTiflashStatus } from './status.js';
import { beforeTiflashRestart, tiflashUpdatedPodHold } from './upgrade.js';

/** TiFlash, declared: what the member recipe needs to run it. */
export const tiflashComponent: ComponentDeclaration = {
  name: 'tiflash',
  title: 'TiFlash',
  ruleName: 'Tiflash',
  retryMs: TIFLASH_RETRY_MS,
  specOf: (tc: TidbCluster) => tc.spec.tiflash,
  // data volumes data0..N from spec.tiflash.storageClaims: PVCs `data<i>-<tc>-tiflash-<ordinal>`
  claim: TIFLASH_DATA_CLAIM,
  claimTemplates: tiflashClaimTemplates,
  // headless Service <tc>-tiflash-peer only
  services: (tc) => [tiflashPeerService(tc)],
  // config_templ.toml and proxy_templ.toml (both compared as TOML), rendered into /data0 by the init container
  config: { data: tiflashConfigData, tomlKeys: [TIFLASH_CONFIG_KEYS.config, TIFLASH_CONFIG_KEYS.proxy] },
  // the init and `tiflash` containers, data mounts, scheduling settings
  podTemplate: tiflashPodTemplate,
  // spec + failure stores
  desiredReplicas: (tc, status) => tiflashDesiredReplicas(tc.spec, status),
  // status.tiflash from the StatefulSet and PD's stores: stores, peer stores, tombstones, phase, synced
  syncStatus: planTiflashStatus,
  requeueAfterCreate: false,
  // §1.5: nothing gates TiFlash's rules, but its StatefulSet is created only once PD is available;
  // its upgrade waits while PD upgrades or scales, or TiFlash itself scales
  dependencies: {
    availableBefore: [],
    createWaitsFor: [{ name: 'pd', isAvailable: isPdAvailable }],
    upgradeWaitsFor: [
      blockedBy('pd', ['Upgrade', 'Scale']),
      blockedBy('tiflash', ['Scale']),
    ],
  },
  hooks: {
    // placement rules on in PD before anything; a set left at 0 replicas is made again, not scaled
    gates: [
      { name: 'TiflashPlacementRules', plan: planTiflashPlacementRules },
      { name: 'TiflashOldSet', plan: planTiflashOldSet },
    ],
    extra: [
      // each pod's store id as soon as PD lists its store: pod labels and the state table (so its Tombstone is matched later)
      { name: 'TiflashStoreIds', plan: (input) => planStoreIdentity(input, (i, address) => isOwnStoreAddress(i, 'tiflash', address)) },
      // as TiDB Operator before it builds the StatefulSet: failure stores cleared only when the user
      // asks (recoverFailover / failover.recoverByUID) and every desired store is Up; undesired ones dropped
      { name: 'TiflashFailoverRecovery', plan: planStoreRecovery(TIFLASH_STORES) },
    ],
    // the store deleted and Tombstone before its PVCs are marked (no leader eviction, no max-replicas check)
    beforeScaleIn: beforeTiflashScaleIn,
    // the store failover TiKV shares: a store Down past tiflashFailoverPeriod is recorded (capped) and replaced
    failover: planStoreFailover(TIFLASH_STORES),
    // no preparation before a restart
    beforeRestart: beforeTiflashRestart,
    // an updated pod's store Up, and from v5.1.2 its store status Running
    updatedPodHold: tiflashUpdatedPodHold,
  },
};

/** The TiFlash rules: one block of the cluster recipe (a stop inside it ends TiFlash's rules only). */
export const tiflashRules: readonly Rule[] = [memberBlock(tiflashComponent)];
