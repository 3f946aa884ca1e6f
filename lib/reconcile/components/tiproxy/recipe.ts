/**
 * TiProxy as a declaration: TiDB Operator v1.6's `tiproxyMemberManager.Sync` is the shared member
 * recipe with what is TiProxy's own — a NodePort client Service and a headless peer Service, its
 * proxy.toml and start script, health as its status. As v1 it waits for no other component, scales
 * one pod at a time only while its status is synced, and upgrades by partition from the highest
 * ordinal down, each updated pod available (for its own min-ready annotation) before the next rolls;
 * its own scaling holds the upgrade. It has no failover and nothing to do before a pod goes.
 */

import type { TidbCluster } from '../../../model/kube.js';
import type { Rule } from '../../engine/rule.js';
import { fail } from '../../engine/outcome.js';
import { blockedBy, type ComponentDeclaration, type MemberDecision, type MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import { memberBlock } from '../../member/recipe.js';
import { TIPROXY_CONFIG_KEY, tiproxyConfigData } from './config-map.js';
import { planTiproxyLabels } from './labels.js';
import { TIPROXY_MIN_READY_SECONDS_ANNOTATION, TIPROXY_RETRY_MS } from './names.js';
import { tiproxyClaimTemplates, tiproxyPodTemplate } from './pod-template.js';
import { tiproxyClientService, tiproxyPeerService } from './services.js';
import { planTiproxyStatus } from './status.js';

/**
 * As v1.6's TiProxy ConfigMap sync: a cluster across Kubernetes clusters (`spec.acrossK8s`) is not
 * supported — the TiProxy sync fails there, and, as TiDB Operator's round ends at a failed manager,
 * the components after it wait. Terminal: only a spec change lifts it.
 */
export function planTiproxyAcrossK8s(input: MemberInput): MemberDecision {
  if (input.cluster.spec.acrossK8s !== true) return nothing();
  return { actions: [], outcome: fail('spec.tiproxy: TiProxy in a cluster across Kubernetes clusters (spec.acrossK8s) is not supported', true), stop: true };
}

/** TiProxy, declared: what the member recipe needs to run it. */
export const tiproxyComponent: ComponentDeclaration = {
  name: 'tiproxy',
  title: 'TiProxy',
  ruleName: 'Tiproxy',
  retryMs: TIPROXY_RETRY_MS,
  specOf: (tc: TidbCluster) => tc.spec.tiproxy,
  // no data claim: claims only for spec.tiproxy.storageVolumes (`tiproxy-<name>`)
  claim: 'tiproxy',
  claimTemplates: tiproxyClaimTemplates,
  // NodePort <tc>-tiproxy first, then the headless <tc>-tiproxy-peer (as v1's syncProxyService calls)
  services: (tc) => [tiproxyClientService(tc), tiproxyPeerService(tc)],
  // proxy.toml (compared as TOML) and start.sh
  config: { data: tiproxyConfigData, tomlKeys: [TIPROXY_CONFIG_KEY] },
  podTemplate: tiproxyPodTemplate,
  desiredReplicas: (tc) => tc.spec.tiproxy?.replicas ?? 0,
  // status.tiproxy from the StatefulSet and each pod's /api/debug/health: members, phase, synced
  syncStatus: planTiproxyStatus,
  requeueAfterCreate: false,
  // as v1's TiProxy upgrader: its own annotation, not tidb.pingcap.com/tiproxy-min-ready-seconds
  minReadySecondsAnnotation: TIPROXY_MIN_READY_SECONDS_ANNOTATION,
  // as v1: TiProxy waits for no component; only its own scaling holds its upgrade
  dependencies: { availableBefore: [], upgradeWaitsFor: [blockedBy('tiproxy', ['Scale'])] },
  hooks: {
    // across Kubernetes clusters: refused, as v1
    gates: [{ name: 'TiproxyAcrossK8s', plan: planTiproxyAcrossK8s }],
    // zone labels for TiProxy ≥ 1.1 from its node (once per process), before it scales, as v1
    extra: [{ name: 'TiproxyLabels', plan: planTiproxyLabels }],
    // as v1's TiProxy scaler: nothing to do before a pod goes
    beforeScaleIn: () => ({ first: [] }),
    // as TiDB Operator: TiProxy has no failover
    failover: () => nothing(),
    // as v1's TiProxy upgrader: the next pod rolls once every updated one is available
    beforeRestart: (_input, ordinal) => ({ kind: 'roll', ordinal }),
    updatedPodHold: () => undefined,
  },
};

/** The TiProxy rules: one block of the cluster recipe. */
export const tiproxyRules: readonly Rule[] = [memberBlock(tiproxyComponent)];
