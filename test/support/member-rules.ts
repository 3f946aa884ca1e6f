/**
 * A component's rules one at a time, as its block in the member recipe runs them: the input entered
 * as the block enters it (defaulted cluster, the component's context), the presence gate first, and
 * the StatefulSet a rule chose written right after it — so a unit test sees one rule's whole effect
 * as data. The per-component helpers (pd-rules.ts, tikv-rules.ts, …) name these for their component.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster } from '../../lib/model/kube.js';
import type { Decision, RuleInput } from '../../lib/reconcile/engine/rule.js';
import { STATEFUL_SET_APPLY, planApply } from '../../lib/reconcile/member/apply.js';
import type { ComponentDeclaration, MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import { enterMember } from '../../lib/reconcile/member/context.js';
import { planPresenceGate } from '../../lib/reconcile/member/recipe.js';
import { desiredStatefulSet, type SetChoice } from '../../lib/reconcile/member/statefulset-draft.js';
import { ruleInputOf, snapshot, withCluster } from './fixtures.js';

/** The input of one of `component`'s rules, as its block enters it. */
export function memberInputOf(component: ComponentDeclaration, input: RuleInput): MemberInput {
  const entry = enterMember(component, input);
  return { ...input, cluster: entry.cluster, scope: entry.scope, draft: entry.draft };
}

/** One of `component`'s act rules behind the presence gate, the StatefulSet it chose written after it (one decision). */
export function memberRule(component: ComponentDeclaration, plan: (input: MemberInput) => MemberDecision): (input: RuleInput) => Decision {
  return (raw) => {
    const input = memberInputOf(component, raw);
    const gate = planPresenceGate(input);
    if (gate.stop === true) return { actions: gate.actions, outcome: gate.outcome };
    const { draft, ...decision } = plan(input);
    const live = input.scope.set;
    const write = draft !== undefined && live ? planApply(STATEFUL_SET_APPLY, draft, live) : undefined;
    return write ? { ...decision, actions: [...decision.actions, write] } : decision;
  };
}

/** `component`'s StatefulSet for `tc` as its rules build it (last-applied record included), without a status. */
export function builtSetOf(component: ComponentDeclaration, tc: TidbCluster, choice: SetChoice): IStatefulSet {
  return desiredStatefulSet(memberInputOf(component, ruleInputOf(snapshot(withCluster(tc)))), choice);
}
