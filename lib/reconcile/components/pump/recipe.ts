/**
 * Pump as a declaration: TiDB Operator v1's `pumpMemberManager.Sync` (§2.6) is the shared member
 * recipe with what is Pump's own — one headless Service the StatefulSet names, OrderedReady pods
 * rolled natively by the StatefulSet controller (no partition walk), no StatefulSet update at all
 * while PD, TiKV or TiFlash upgrade (§1.5), status from the binlog registry, and a scale-in that
 * takes the node offline first.
 */

import type { TidbCluster } from '../../../model/kube.js';
import type { Rule } from '../../engine/rule.js';
import { blockedBy, type ComponentDeclaration } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import { memberBlock } from '../../member/recipe.js';
import { PUMP_RETRY_MS, pumpSetName } from './names.js';
import { PUMP_CONFIG_KEY, pumpClaimTemplates, pumpConfigData, pumpPodTemplate } from './pod-template.js';
import { beforePumpScaleIn } from './scale.js';
import { pumpService } from './services.js';
import { planPumpStatus } from './status.js';

/** Pump, declared: what the member recipe needs to run it. */
export const pumpComponent: ComponentDeclaration = {
  name: 'pump',
  title: 'Pump',
  ruleName: 'Pump',
  retryMs: PUMP_RETRY_MS,
  specOf: (tc: TidbCluster) => tc.spec.pump,
  // data volume claim `data`: PVCs `data-<tc>-pump-<ordinal>`
  claim: 'data',
  claimTemplates: pumpClaimTemplates,
  // headless <tc>-pump, which the StatefulSet names too
  services: (tc) => [pumpService(tc)],
  serviceNameOf: pumpSetName,
  // pump.toml (compared as TOML)
  config: { data: pumpConfigData, tomlKeys: [PUMP_CONFIG_KEY] },
  podTemplate: pumpPodTemplate,
  desiredReplicas: (tc) => tc.spec.pump?.replicas ?? 0,
  // status.pump from the StatefulSet and the binlog registry: members, phase (never Scale)
  syncStatus: planPumpStatus,
  requeueAfterCreate: false,
  // as TiDB Operator: Pump has no synced flag; its scaler and the StatefulSet controller do not ask for one
  changesNeedSynced: false,
  // as TiDB Operator: plain RollingUpdate, pods OrderedReady unless asked otherwise
  rollingUpdate: 'native',
  defaultPodManagementPolicy: 'OrderedReady',
  // §1.5: Pump waits for nothing; no StatefulSet update (not even a scale) while PD, TiKV or TiFlash upgrade
  dependencies: {
    availableBefore: [],
    upgradeWaitsFor: [],
    writeWaitsFor: [
      blockedBy('tiflash', ['Upgrade']),
      blockedBy('pd', ['Upgrade']),
      blockedBy('tikv', ['Upgrade']),
    ],
  },
  hooks: {
    gates: [],
    extra: [],
    // the StatefulSet at rest, then the node offline in the registry
    beforeScaleIn: beforePumpScaleIn,
    // as TiDB Operator: Pump has no failover
    failover: () => nothing(),
    // rolled by the StatefulSet controller: nothing to hold
    beforeRestart: (_input, ordinal) => ({ kind: 'roll', ordinal }),
    updatedPodHold: () => undefined,
  },
};

/** The Pump rules: one block of the cluster recipe. */
export const pumpRules: readonly Rule[] = [memberBlock(pumpComponent)];
