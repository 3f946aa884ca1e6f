/**
 * PD as a declaration: TiDB Operator v1's `pdMemberManager.Sync` (§1.4, §2.1) is the shared member
 * recipe (member/recipe.ts) with what is PD's own. Read top to bottom, this is PD's recipe: its
 * objects, its status, its place in §1.5, and the hooks where PD differs from every other member.
 */

import type { TidbCluster } from '../../../model/kube.js';
import type { Rule } from '../../engine/rule.js';
import { blockedBy, type ComponentDeclaration } from '../../member/component.js';
import { memberBlock } from '../../member/recipe.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { pdDesiredReplicas } from '../../cluster/replicas.js';
import { pdConfigData } from './config-map.js';
import { planPdFailover } from './failover.js';
import { planPdForceUpgrade } from './force-upgrade.js';
import { planPdNotJoinedMembers } from './not-joined.js';
import { planPdStrayMembers } from './stray.js';
import { PD_RETRY_MS } from './names.js';
import { pdClaimTemplates, pdPodTemplate } from './pod-template.js';
import { beforePdScaleIn } from './scale.js';
import { pdClientService, pdPeerService } from './services.js';
import { planPdStatus } from './status.js';
import { planPdClientRefused, planPdTlsSecret } from './tls.js';
import { beforePdRestart, pdUpdatedPodHold } from './upgrade.js';

/** PD, declared: what the member recipe needs to run it. */
export const pdComponent: ComponentDeclaration = {
  name: 'pd',
  title: 'PD',
  ruleName: 'Pd',
  retryMs: PD_RETRY_MS,
  specOf: (tc: TidbCluster) => tc.spec.pd,
  // data volume claim `pd`: PVCs `pd-<tc>-pd-<ordinal>`
  claim: 'pd',
  claimTemplates: pdClaimTemplates,
  // client Service <tc>-pd and headless peer Service <tc>-pd-peer
  services: (tc) => [pdClientService(tc), pdPeerService(tc)],
  // pd.toml (compared as TOML) and the start script
  config: { data: pdConfigData, tomlKeys: [SCRIPTED_CONFIG_KEYS.config] },
  // the `pd` container, its volumes and scheduling settings
  podTemplate: pdPodTemplate,
  // spec + failure members deleted from PD + spare during a volume replacement
  desiredReplicas: (tc, status) => pdDesiredReplicas(tc.spec, status),
  // status.pd from the StatefulSet and PD: members, leader, synced, phase
  syncStatus: planPdStatus,
  // as TiDB Operator: "waiting for PD cluster running" after the StatefulSet is created
  requeueAfterCreate: true,
  // §1.5: PD waits for nothing; its upgrade waits while PD scales
  dependencies: { availableBefore: [], upgradeWaitsFor: [blockedBy('pd', ['Scale'])] },
  hooks: {
    // cluster TLS without <tc>-cluster-client-secret: Warning Event, recheck in 30 s;
    // PD refused our client in the TLS handshake (the API server proxy): Warning Event, recheck in 5 min
    gates: [
      { name: 'PdTlsSecret', plan: planPdTlsSecret },
      { name: 'PdRefusesClient', plan: planPdClientRefused },
    ],
    // PD not synced and the pod spec changed: with the annotation (or a lone replica) write all, partition 0
    extra: [
      { name: 'PdForceUpgrade', plan: planPdForceUpgrade },
      // a member PD lists without a name (its join died before etcd started): removed by id after a grace period, with quorum
      { name: 'PdNotJoinedMembers', plan: planPdNotJoinedMembers },
      // a member whose pod a scale-in removed while it was joining: deleted by name, with quorum
      { name: 'PdStrayMembers', plan: planPdStrayMembers },
    ],
    // in use, quorum, leadership off the member, then delete it from PD
    beforeScaleIn: beforePdScaleIn,
    // recover, or mark / delete one failed member (only with quorum, deadline persisted and woken at)
    failover: planPdFailover,
    // stability, quorum, leadership moved off a pod before it restarts
    beforeRestart: beforePdRestart,
    // an updated member healthy and ready by /pd/api/v2/ready before the next pod rolls
    updatedPodHold: pdUpdatedPodHold,
  },
};

/** The PD rules: one block of the cluster recipe (a stop inside it ends PD's rules only). */
export const pdRules: readonly Rule[] = [memberBlock(pdComponent)];
