/**
 * A plan: what one step decided, as data — the ordered actions, the new status, the outcome, the
 * next wake-up the rules want, and each rule's own outcome (for the step's log line).
 */

import type { Action } from './action.js';
import type { TidbClusterStatus } from './kube.js';
import type { Outcome } from './outcome.js';

/** One rule's name and outcome, in the order the rules ran. */
export type RuleResult = { readonly rule: string; readonly outcome: Outcome };

/**
 * The decision of one step. `status` is the whole new TidbCluster status, or undefined when it is
 * unchanged (then nothing is written). `nextWakeAtMs` is the earliest time a rule asked to be woken
 * (e.g. a failover deadline), independent of the outcome.
 */
export type Plan = {
  readonly actions: readonly Action[];
  readonly status: TidbClusterStatus | undefined;
  readonly outcome: Outcome;
  readonly nextWakeAtMs?: number;
  readonly ruleResults: readonly RuleResult[];
};
