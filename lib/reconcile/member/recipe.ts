/**
 * The member recipe: one function turns a component's declaration into the block of rules a step
 * runs for it, in TiDB Operator v1's order (§1.4) — read top to bottom like v2's `builder.go`. A rule
 * that stops (or fails) ends this block's act rules only; the StatefulSet rule at the end still
 * writes the draft the rules chose, and status rules always run.
 */

import type { Action } from '../../model/action.js';
import { block, type ScopedRule } from '../engine/block.js';
import { complete, wait } from '../engine/outcome.js';
import type { BlockRule } from '../engine/rule.js';
import { CONFIG_MAP_APPLY, SERVICE_APPLY, planApply } from './apply.js';
import type { ComponentDeclaration, MemberDecision, MemberInput, MemberRule, SetDraft } from './component.js';
import { enterMember, type MemberContext } from './context.js';
import { nothing } from './members.js';
import { planMemberScale } from './scale.js';
import { planSuspend } from './suspend.js';
import { planStatefulSetWrite } from './statefulset-draft.js';
import { planMemberUpgrade } from './upgrade.js';
import { observedObjects } from '../cluster/observed.js';

type Rule = ScopedRule<MemberContext, SetDraft>;

const act = (name: string, plan: (input: MemberInput) => MemberDecision): Rule => ({ kind: 'act', name, plan });

/**
 * As TiDB Operator (§1.4 step 1, §1.7): the component is in the spec and the cluster is not paused —
 * else its block stops here with nothing to do. (Suspension is the `…Suspend` rule's, after the status.)
 */
export function planPresenceGate(input: MemberInput): MemberDecision {
  const { spec } = input.scope;
  if (!spec || input.cluster.spec.paused === true) return { ...nothing(), stop: true };
  return nothing();
}

/** §1.5's gate: a dependency the cluster has must be available, else the block waits (and stops). */
export function planDependencyGate(input: MemberInput): MemberDecision {
  const { component } = input.scope;
  const tc = input.cluster;
  const missing = component.dependencies.availableBefore.find((d) => tc.spec[d.name] !== undefined && !d.isAvailable(tc, input.status));
  if (!missing) return nothing();
  return { actions: [], outcome: wait(`${component.title} waits for ${missing.name} to be available`), stop: true };
}

/** The component's Services exist and carry the desired spec; always completes (nothing waits on a Service). */
export function planServices(input: MemberInput): MemberDecision {
  const live = (name: string | undefined) => observedObjects(input.snapshot, 'Service').find((s) => s.metadata?.name === name);
  const actions: Action[] = input.scope.component.services(input.cluster).flatMap((svc) => {
    const write = planApply(SERVICE_APPLY, svc, live(svc.metadata?.name));
    return write ? [write] : [];
  });
  return { actions, outcome: complete(actions.length === 0 ? undefined : `${input.scope.component.title} services written`) };
}

/** The ConfigMap the pods should mount exists with the desired content (none when there is no data); at most one write; completes. */
export function planConfigMap(input: MemberInput): MemberDecision {
  const { configMap, live } = input.scope.configMap();
  // As TiDB Operator: a component with no config data (an optional config left unset) has no ConfigMap.
  if (Object.keys(configMap.data ?? {}).length === 0) return nothing();
  const write = planApply(CONFIG_MAP_APPLY, configMap, live);
  return { actions: write ? [write] : [], outcome: complete(write ? `${input.scope.component.title} config map written` : undefined) };
}

/** The block of rules for `component`, in the order a step runs them. */
export function memberBlock(component: ComponentDeclaration): BlockRule {
  const named = (rule: MemberRule): Rule => act(rule.name, rule.plan);
  const n = component.ruleName;
  return block<MemberContext, SetDraft>({
    name: n,
    section: component.section ?? component.name,
    enter: (input) => enterMember(component, input),
    rules: [
      // no spec or a paused cluster: nothing but status
      act(`${n}Gate`, planPresenceGate),
      // status.<component> from the StatefulSet and the component itself (runs even when paused)
      { kind: 'status', name: `${n}Status`, plan: component.syncStatus },
      // suspendAction: phase Suspend, StatefulSet deleted, status cleared — or back to Normal (§2.9)
      act(`${n}Suspend`, planSuspend),
      // §1.5: what must be available first, then the component's own prerequisites
      act(`${n}Dependencies`, planDependencyGate),
      ...component.hooks.gates.map(named),
      // its Services, then its ConfigMap (named by content under RollingUpdate)
      act(`${n}Services`, planServices),
      act(`${n}ConfigMap`, planConfigMap),
      // what only this component does before scaling (PD: force upgrade)
      ...component.hooks.extra.map(named),
      // one member in or out per step (defer-deleting PVCs, the component's pre-removal hook)
      act(`${n}Scale`, planMemberScale),
      // recover, or mark / replace one failed member
      act(`${n}Failover`, component.hooks.failover),
      // rolling upgrade by partition, one pod per step
      act(`${n}Upgrade`, planMemberUpgrade),
      // create the StatefulSet, or write the draft (or what is left) — once per step
      { kind: 'finally', name: `${n}StatefulSet`, plan: planStatefulSetWrite },
    ],
  });
}
