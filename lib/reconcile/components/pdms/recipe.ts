/**
 * The PD microservices as declarations: TiDB Operator v1.6's `pdMSMemberManager.Sync`
 * (docs/reference/pd-microservices.md §4) is the shared member recipe once per service of
 * `spec.pdms` (`tso`, then `scheduling`), run only while PD is in `mode: ms`. What is their own:
 * spec and status live in `spec.pdms[]` and `status.pdms.<svc>`, the section is `pdms`, the Services
 * and ConfigMap are the service's, status members come from PD in API mode, and the upgrade moves the
 * primary off a pod before it restarts. As v1: no dependency gate (the servers wait for PD
 * themselves), no failover, no pre-removal step, no other component's phase holds them, and a new
 * StatefulSet is followed by a requeue.
 */

import type { PdmsServiceName } from '../../../model/labels.js';
import { actRule, type Rule } from '../../engine/rule.js';
import type { ComponentDeclaration, MemberStatus } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import { memberBlock } from '../../member/recipe.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import { PDMS_RETRY_MS, PDMS_SERVICES, PDMS_TITLES, pdmsSpecOf, withPdmsStatus, type PdmsStatus } from './names.js';
import { pdmsClaimTemplates, pdmsConfigData, pdmsPodTemplate } from './pod-template.js';
import { planPdmsRemoved } from './removed.js';
import { pdmsClientService, pdmsPeerService } from './services.js';
import { planPdmsStatus } from './status.js';
import { beforePdmsRestart, pdmsUpdatedPodHold } from './upgrade.js';

const ruleNames: Readonly<Record<PdmsServiceName, string>> = { tso: 'PdTso', scheduling: 'PdScheduling' };

/** The declaration of PD microservice `service`: what the member recipe needs to run it. */
export function pdmsComponent(service: PdmsServiceName): ComponentDeclaration {
  return {
    name: service,
    section: 'pdms',
    title: PDMS_TITLES[service],
    ruleName: ruleNames[service],
    retryMs: PDMS_RETRY_MS,
    // spec.pdms[name=<svc>], only while spec.pd.mode is ms
    specOf: (tc) => pdmsSpecOf(tc, service),
    // status.pdms.<svc>
    statusAt: {
      read: (status) => status.pdms?.[service] as MemberStatus | undefined,
      write: (status, next) => withPdmsStatus(status, service, { name: service, ...(next as PdmsStatus) }),
    },
    // no data claim: claims only for storageVolumes (`<svc>-<name>`)
    claim: service,
    claimsOptional: true,
    claimTemplates: (tc) => pdmsClaimTemplates(tc, service),
    // <tc>-<svc> (client) and the headless <tc>-<svc>-peer
    services: (tc) => [pdmsClientService(tc, service), pdmsPeerService(tc, service)],
    // pd.toml and the start script (`services <svc>` against <tc>-pd)
    config: { data: (tc) => pdmsConfigData(tc, service), tomlKeys: [SCRIPTED_CONFIG_KEYS.config] },
    podTemplate: (tc, configMap) => pdmsPodTemplate(tc, service, configMap),
    desiredReplicas: (tc) => pdmsSpecOf(tc, service)?.replicas ?? 0,
    // status.pdms.<svc>: StatefulSet, phase, members registered with PD, synced
    syncStatus: planPdmsStatus(service),
    requeueAfterCreate: true,
    // §1.5: nothing gates the PD microservices, and nothing holds their upgrade
    dependencies: { availableBefore: [], upgradeWaitsFor: [] },
    hooks: {
      gates: [],
      extra: [],
      // as v1's PDMS scaler: nothing to do before a server goes (its registration lapses with it)
      beforeScaleIn: () => ({ first: [] }),
      // as v1: no PDMS failover
      failover: () => nothing(),
      // the primary moved off the pod that rolls next (PD ≥ v8.3.0)
      beforeRestart: beforePdmsRestart(service),
      // an updated pod's server registered with PD before the next pod rolls
      updatedPodHold: pdmsUpdatedPodHold(service),
    },
  };
}

/**
 * The PD microservice rules: services no longer asked for scaled in first (v1 does that instead of
 * syncing), then one block per service, in v1's order (tso, then scheduling).
 */
export const pdmsRules: readonly Rule[] = [actRule('PdmsRemoved', planPdmsRemoved), ...PDMS_SERVICES.map((service) => memberBlock(pdmsComponent(service)))];
