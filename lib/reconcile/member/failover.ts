/**
 * Failover arithmetic shared by the component failover rules, as TiDB Operator v1: quorum counts,
 * the deadline after which an unhealthy member may be replaced (kept in the state table so a timer
 * wakes the key at that moment, not at the next sweep), and the failure-mark bookkeeping.
 */

import type { Action, DeadlineSpec } from '../../model/action.js';
import type { RuleInput } from '../engine/rule.js';

/** As TiDB Operator's failover check: more than half of the members are healthy. */
export function hasQuorum(healthy: number, total: number): boolean {
  return healthy > Math.floor(total / 2);
}

/** The failover deadline of one member: unhealthy since `sinceMs`, replaceable from `sinceMs + periodMs`. */
export function failoverDeadline(component: string, member: string, sinceMs: number, periodMs: number): DeadlineSpec {
  return { component, member, kind: 'failover', sinceMs, deadlineAtMs: sinceMs + periodMs };
}

/** Whether `deadlines` already holds exactly `deadline` (same member, kind, since and deadline). */
export function hasDeadline(deadlines: readonly DeadlineSpec[], deadline: DeadlineSpec): boolean {
  return deadlines.some(
    (d) =>
      d.component === deadline.component &&
      d.member === deadline.member &&
      d.kind === deadline.kind &&
      d.sinceMs === deadline.sinceMs &&
      d.deadlineAtMs === deadline.deadlineAtMs,
  );
}

/** Deletes of `component`'s persisted failover deadlines whose member is no longer waiting (healthy, gone or marked). */
export function staleFailoverDeadlines(input: RuleInput, component: string, waiting: ReadonlySet<string>): Action[] {
  return input.snapshot.state.deadlines
    .filter((d) => d.component === component && d.kind === 'failover' && !waiting.has(d.member))
    .map((d) => ({ kind: 'state.deleteDeadline', deadline: { component: d.component, member: d.member, kind: d.kind } }));
}

/** The puts of the `deadlines` not yet persisted exactly so (a timer then wakes the key at each). */
export function failoverDeadlinePuts(input: RuleInput, deadlines: readonly DeadlineSpec[]): Action[] {
  return deadlines.filter((d) => !hasDeadline(input.snapshot.state.deadlines, d)).map((deadline) => ({ kind: 'state.putDeadline', deadline }));
}

/** The delete of one member's failover deadline (it was acted on). */
export function failoverDeadlineDelete(component: string, member: string): Action {
  return { kind: 'state.deleteDeadline', deadline: { component, member, kind: 'failover' } };
}
