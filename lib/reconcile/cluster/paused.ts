/**
 * `spec.paused`, as TiDB Operator §1.7: a paused cluster's status keeps being synced from what is
 * observed, but nothing else is written — no services, config maps, StatefulSets, scaling, failover
 * or upgrades. Here that is one act rule that stops the sequence; status rules still run.
 */

import { complete, wait } from '../engine/outcome.js';
import type { Decision, RuleInput } from '../engine/rule.js';

/** Whether the cluster asks to be left alone (status only). */
export function isPaused(input: RuleInput): boolean {
  return input.cluster.spec.paused === true;
}

/**
 * The `Paused` rule. Guarantees: on a paused cluster it stops the sequence with `wait` (unpausing is
 * an event that wakes the key) and asks for no action; otherwise it completes and lets the rules
 * after it run.
 */
export function planPaused(input: RuleInput): Decision {
  if (!isPaused(input)) return { actions: [], outcome: complete() };
  return { actions: [], outcome: wait('cluster is paused: status only'), stop: true };
}
