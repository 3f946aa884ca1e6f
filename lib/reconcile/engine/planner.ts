/**
 * Running the rules over a snapshot into a plan. Pure: the same snapshot gives the same plan.
 */

import type { Action } from '../../model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import type { Plan, RuleResult } from '../../model/plan.js';
import type { Snapshot } from '../../model/snapshot.js';
import { jsonEqual } from './equal.js';
import { combineOutcomes, complete } from './outcome.js';
import type { Decision, Rule, StatusDecision } from './rule.js';

type Accumulator = {
  status: TidbClusterStatus;
  actions: Action[];
  results: RuleResult[];
  wakeAtMs: number | undefined;
  stopped: boolean;
  halted: boolean;
};

/**
 * Plans one step with `rules` (the product's recipe, or a test's). Guarantees: rules run in order,
 * each seeing the status as the rules before it left it; once an act rule fails or stops, later act
 * rules are skipped (and not listed in `ruleResults`) while status rules still run — a block's stop
 * ends only that block's act rules (`block.ts`); `status` is undefined unless the final status differs
 * from the observed one; the outcome combines every rule's (fail > retry > wait > complete). An act
 * rule that halts ends the step: no rule after it runs, status rules and blocks included.
 * A TidbCluster that no longer exists plans nothing (as TiDB Operator: its objects go by garbage
 * collection through their ownerReferences).
 */
export function planStep(snapshot: Snapshot, rules: readonly Rule[]): Plan {
  const cluster = snapshot.cluster;
  if (!cluster) return { actions: [], status: undefined, outcome: complete('TidbCluster not found'), ruleResults: [] };
  const observed = cluster.status ?? {};
  const acc: Accumulator = { status: observed, actions: [], results: [], wakeAtMs: undefined, stopped: false, halted: false };
  for (const rule of rules) applyRule(acc, rule, snapshot, cluster);
  const plan: Plan = {
    actions: acc.actions,
    status: jsonEqual(acc.status, observed) ? undefined : acc.status,
    outcome: combineOutcomes(acc.results.map((r) => r.outcome)),
    ruleResults: acc.results,
  };
  return acc.wakeAtMs === undefined ? plan : { ...plan, nextWakeAtMs: acc.wakeAtMs };
}

function applyRule(acc: Accumulator, rule: Rule, snapshot: Snapshot, cluster: TidbCluster): void {
  if (acc.halted) return;
  const input = { snapshot, cluster, status: acc.status };
  switch (rule.kind) {
    case 'status':
      record(acc, rule.name, rule.plan(input));
      return;
    case 'act': {
      if (acc.stopped) return;
      const decision: Decision = rule.plan(input);
      record(acc, rule.name, decision);
      acc.actions.push(...decision.actions);
      acc.halted = decision.halt === true;
      acc.stopped = acc.halted || decision.stop === true || decision.outcome.kind === 'fail';
      return;
    }
    case 'block':
      for (const step of rule.run(input, acc.stopped)) {
        record(acc, step.rule, step.decision);
        if ('actions' in step.decision) acc.actions.push(...step.decision.actions);
      }
      return;
    default: {
      const never: never = rule;
      throw new TypeError(`unknown rule kind in ${JSON.stringify(never)}`);
    }
  }
}

function record(acc: Accumulator, rule: string, decision: StatusDecision): void {
  if (decision.status !== undefined) acc.status = decision.status;
  acc.results.push({ rule, outcome: decision.outcome });
  const at = decision.wakeAtMs;
  if (at !== undefined && (acc.wakeAtMs === undefined || at < acc.wakeAtMs)) acc.wakeAtMs = at;
}
