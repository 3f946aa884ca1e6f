/**
 * Blocks: the rules of one scope (a component) run with what the block computed once on entry and a
 * draft they pass along. As TiDB Operator v2's `task.Block`: a rule that stops (or fails) ends its
 * block's act rules — not the cluster's — while the block's status rules and its `finally` rule still
 * run. The engine knows no component: what the scope and the draft are is the caller's business.
 */

import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import type { BlockRule, BlockStep, Decision, RuleInput, StatusDecision } from './rule.js';

/** A rule's input inside a block: the cluster as the block sees it, its scope, and the draft so far. */
export type ScopedInput<C, D> = RuleInput & { readonly scope: C; readonly draft: D };

/** An act rule's decision inside a block: it may hand a new draft to the rules after it. */
export type ScopedDecision<D> = Decision & { readonly draft?: D };

/**
 * A rule of a block. `status` and `act` as at the top level; `finally` runs after the block's act
 * rules even when one of them stopped (`blockStopped` says so) — but not when the cluster's rules
 * stopped before the block (e.g. a paused cluster): it is how a block writes its draft exactly once.
 */
export type ScopedRule<C, D> =
  | { readonly kind: 'status'; readonly name: string; readonly plan: (input: ScopedInput<C, D>) => StatusDecision }
  | { readonly kind: 'act'; readonly name: string; readonly plan: (input: ScopedInput<C, D>) => ScopedDecision<D> }
  | { readonly kind: 'finally'; readonly name: string; readonly plan: (input: ScopedInput<C, D>, blockStopped: boolean) => Decision };

/** What a block computes once when it is entered: the cluster its rules see, its scope, the first draft. */
export type BlockEntry<C, D> = { readonly cluster: TidbCluster; readonly scope: C; readonly draft: D };

/** A block: its name, how to enter it, and its rules in order. */
export type BlockSpec<C, D> = {
  readonly name: string;
  /** The spec section the block reconciles, when it is one (see `BlockRule.section`). */
  readonly section?: string;
  readonly enter: (input: RuleInput) => BlockEntry<C, D>;
  readonly rules: readonly ScopedRule<C, D>[];
};

type Run<C, D> = { status: TidbClusterStatus; draft: D; stopped: boolean; steps: BlockStep[] };

function runOne<C, D>(run: Run<C, D>, rule: ScopedRule<C, D>, input: ScopedInput<C, D>, outerStopped: boolean): void {
  const take = (decision: StatusDecision | Decision): void => {
    run.steps.push({ rule: rule.name, decision });
    if (decision.status !== undefined) run.status = decision.status;
  };
  switch (rule.kind) {
    case 'status':
      take(rule.plan(input));
      return;
    case 'act': {
      if (run.stopped) return;
      const { draft, ...decision } = rule.plan(input);
      take(decision);
      if (draft !== undefined) run.draft = draft;
      run.stopped = decision.stop === true || decision.outcome.kind === 'fail';
      return;
    }
    case 'finally':
      if (!outerStopped) take(rule.plan(input, run.stopped));
      return;
    default: {
      const never: never = rule;
      throw new TypeError(`unknown rule kind in ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Turns a block spec into one rule of the recipe. Guarantees: `enter` runs once per step; every rule
 * sees the status and draft the rules before it left; act rules are skipped once the sequence
 * stopped before the block or an act rule of the block stopped or failed; status rules always run.
 */
export function block<C, D>(spec: BlockSpec<C, D>): BlockRule {
  const ruleNames = spec.rules.map((r) => `${r.kind === 'finally' ? 'act' : r.kind}:${r.name}`);
  return {
    kind: 'block',
    name: spec.name,
    ...(spec.section === undefined ? {} : { section: spec.section }),
    ruleNames,
    run: (input, stopped) => {
      const entry = spec.enter(input);
      const run: Run<C, D> = { status: input.status, draft: entry.draft, stopped, steps: [] };
      for (const rule of spec.rules) {
        const scoped = { ...input, cluster: entry.cluster, status: run.status, scope: entry.scope, draft: run.draft };
        runOne(run, rule, scoped, stopped);
      }
      return run.steps;
    },
  };
}
