/**
 * What a rule is. A rule is a pure function of the snapshot and the status as earlier rules left it;
 * it returns data. Two kinds, so the type system keeps the pause promise: `status` rules may only
 * change the status (they always run — even on a paused cluster or after a stop), `act` rules may
 * also ask for actions (they stop running once a rule stops the sequence). A `block` groups the
 * rules of one scope (a component): a stop inside it ends only its own act rules (see `block.ts`).
 */

import type { Action } from '../../model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import type { Outcome } from '../../model/outcome.js';
import type { Snapshot } from '../../model/snapshot.js';

/**
 * A rule's input. `status` is the status as changed by the rules before this one; read it, not
 * `cluster.status` (the status as observed).
 */
export type RuleInput = {
  readonly snapshot: Snapshot;
  readonly cluster: TidbCluster;
  readonly status: TidbClusterStatus;
};

/**
 * What a status rule returns: the whole status as it leaves it (undefined = unchanged), its outcome,
 * and optionally when it wants the key woken (e.g. a deadline it is watching).
 */
export type StatusDecision = {
  readonly status?: TidbClusterStatus;
  readonly outcome: Outcome;
  readonly wakeAtMs?: number;
};

/**
 * What an act rule returns: a status decision plus the actions it wants, in order. `stop: true`
 * ends the sequence after this rule (TiDB Operator v2's `IfBreak`); a `fail` outcome always does
 * ("the first error aborts the sequence", as TiDB Operator v1). Status rules still run.
 */
export type Decision = StatusDecision & {
  readonly actions: readonly Action[];
  readonly stop?: boolean;
  /**
   * Ends the step here, status rules included: no rule after this one runs, so the status stays as
   * this rule leaves it (a cluster another controller manages, whose status is that one's to write).
   * Only top-level act rules halt; implies `stop`.
   */
  readonly halt?: boolean;
};

/** One rule's decision inside a block, by rule name, in the order the block ran them. */
export type BlockStep = { readonly rule: string; readonly decision: StatusDecision | Decision };

/**
 * A block of rules with its own scope: `run` plays them over the input (`stopped`: an act rule
 * before the block stopped the sequence) and returns each rule's decision in order; a stop inside
 * the block never stops the rules after it. `ruleNames` lists its rules as `kind:Name`.
 */
export type BlockRule = {
  readonly kind: 'block';
  readonly name: string;
  /** What the block reconciles, when it is one spec section (a component's: `pd`, `tikv`, …). */
  readonly section?: string;
  readonly ruleNames: readonly string[];
  readonly run: (input: RuleInput, stopped: boolean) => readonly BlockStep[];
};

/** A named rule. Names are PascalCase nouns; they appear in every step's log line. */
export type Rule =
  | { readonly kind: 'status'; readonly name: string; readonly plan: (input: RuleInput) => StatusDecision }
  | { readonly kind: 'act'; readonly name: string; readonly plan: (input: RuleInput) => Decision }
  | BlockRule;

/** A rule that only computes status; it runs on every step. */
export function statusRule(name: string, plan: (input: RuleInput) => StatusDecision): Rule {
  return { kind: 'status', name, plan };
}

/** A rule that may act; it is skipped once an earlier act rule stopped the sequence. */
export function actRule(name: string, plan: (input: RuleInput) => Decision): Rule {
  return { kind: 'act', name, plan };
}

/** The rules of a list as `kind:Name`, blocks opened in place: the recipe as one flat list. */
export function ruleNames(rules: readonly Rule[]): string[] {
  return rules.flatMap((rule) => (rule.kind === 'block' ? [...rule.ruleNames] : [`${rule.kind}:${rule.name}`]));
}
