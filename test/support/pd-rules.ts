/**
 * PD's rules one at a time, as the PD block runs them: the input entered as the block enters it
 * (defaulted cluster, PD's context), the presence gate first, and the StatefulSet a rule chose
 * written right after it — so a unit test sees one rule's whole effect as data.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Decision, RuleInput, StatusDecision } from '../../lib/reconcile/engine/rule.js';
import { pdComponent } from '../../lib/reconcile/components/pd/recipe.js';
import { planPdStatus as pdStatusRule } from '../../lib/reconcile/components/pd/status.js';
import type { MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import type { ConfigMapPlan } from '../../lib/reconcile/member/config-map.js';
import { planConfigMap, planServices } from '../../lib/reconcile/member/recipe.js';
import { planMemberScale } from '../../lib/reconcile/member/scale.js';
import { desiredStatefulSet, planStatefulSetWrite, type SetChoice } from '../../lib/reconcile/member/statefulset-draft.js';
import { planMemberUpgrade } from '../../lib/reconcile/member/upgrade.js';
import { planPdFailover as pdFailoverRule } from '../../lib/reconcile/components/pd/failover.js';
import { planPdForceUpgrade as pdForceUpgradeRule } from '../../lib/reconcile/components/pd/force-upgrade.js';
import { planPdNotJoinedMembers as pdNotJoinedRule } from '../../lib/reconcile/components/pd/not-joined.js';
import { planPdClientRefused as pdClientRefusedRule, planPdTlsSecret as pdTlsSecretRule } from '../../lib/reconcile/components/pd/tls.js';
import { memberInputOf, memberRule } from './member-rules.js';

/** The input of a PD rule, as the PD block enters it. */
export const pdInputOf = (input: RuleInput): MemberInput => memberInputOf(pdComponent, input);

/** One PD act rule behind the presence gate, the StatefulSet it chose written after it (one decision). */
export const pdRule = (plan: (input: MemberInput) => MemberDecision): ((input: RuleInput) => Decision) => memberRule(pdComponent, plan);

/** The `PdServices` rule. */
export const planPdServices = pdRule(planServices);
/** The `PdConfigMap` rule. */
export const planPdConfigMap = pdRule(planConfigMap);
/** The `PdScale` rule, with the replicas write it chose. */
export const planPdScale = pdRule(planMemberScale);
/** The `PdUpgrade` rule, with the partition or template write it chose. */
export const planPdUpgrade = pdRule(planMemberUpgrade);
/** The `PdFailover` rule. */
export const planPdFailover = pdRule(pdFailoverRule);
/** The `PdForceUpgrade` rule, with the StatefulSet write it chose. */
export const planPdForceUpgrade = pdRule(pdForceUpgradeRule);
/** The `PdNotJoinedMembers` rule. */
export const planPdNotJoinedMembers = pdRule(pdNotJoinedRule);
/** The `PdTlsSecret` rule. */
export const planPdTlsSecret = pdRule(pdTlsSecretRule);
export const planPdClientRefused = pdRule(pdClientRefusedRule);
/** The `PdStatefulSet` rule when nothing before it stopped the block. */
export const planPdStatefulSet = pdRule((input) => planStatefulSetWrite(input, false));
/** The `PdStatus` rule (a status rule: no gate). */
export const planPdStatus = (input: RuleInput): StatusDecision => pdStatusRule(pdInputOf(input));
/** The desired `<tc>-pd` StatefulSet for `choice`. */
export const desiredPdStatefulSet = (input: RuleInput, choice: SetChoice): IStatefulSet => desiredStatefulSet(pdInputOf(input), choice);
/** The PD ConfigMap to have. */
export const planPdConfigMapObject = (input: RuleInput): ConfigMapPlan => pdInputOf(input).scope.configMap();
