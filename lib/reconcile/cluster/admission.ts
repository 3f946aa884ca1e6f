/**
 * Admission: the first rule of every step. As TiDB Operator v1 (§1.2): default the spec in memory,
 * validate it, and on an invalid spec emit a Warning Event `FailedValidation` and reconcile nothing —
 * no retry, the next attempt comes with the next spec change. v1 records only the Event; here the
 * problem is also kept in the status (docs/ARCHITECTURE.md, Queue semantics: Event + condition, no retry storm), as the
 * condition `InvalidSpec` — TiDB Operator has no condition for it, and `Ready` is recomputed from
 * the members every step, so it cannot carry it.
 *
 * The `InvalidSpec` condition is present only while the spec is invalid (status `True`, reason
 * `FailedValidation`, message `generation <n>: <problems>`) and removed once it is valid. Its message
 * is also the memory of what was reported: the Event is emitted when the message changes — once per
 * spec generation — and not again on every sweep. While the spec is invalid `Ready` says so first
 * (False, reason `InvalidSpec`, the problems as its message), not whatever the last valid step saw;
 * the status rule recomputes it once the spec is valid.
 */

import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import { toKubeTime, type ClusterCondition } from './condition.js';
import { defaultTidbCluster } from './defaults.js';
import { EVENT_REASON, clusterWarning } from './events.js';
import { complete, fail } from '../engine/outcome.js';
import type { Decision, RuleInput } from '../engine/rule.js';
import { DEFAULT_MAX_REPLICAS } from '../../model/config.js';
import { describeProblem, validateTidbCluster, type ValidationProblem } from './validate.js';

/** The condition type that marks a TidbCluster whose spec failed validation. */
export const INVALID_SPEC_CONDITION = 'InvalidSpec';

// Events and conditions stay readable: the first few problems, then how many more there are.
const MAX_PROBLEMS_SHOWN = 5;

/**
 * The problems of the cluster as the rules will see it (defaulted, as TiDB Operator: defaulting comes
 * first, so a defaulted field is never reported missing), replicas bounded by `maxReplicas`
 * (`ReconcileConfig.maxReplicas`). Empty when the spec is valid.
 */
export function admissionProblems(tc: TidbCluster, maxReplicas = DEFAULT_MAX_REPLICAS): readonly ValidationProblem[] {
  return validateTidbCluster(defaultTidbCluster(tc), { maxReplicas });
}

/** The problems as one line: `spec.pd.replicas: must be >= 0; metadata.name: …` (the first few). */
export function describeProblems(problems: readonly ValidationProblem[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map(describeProblem).join('; ');
  const more = problems.length - MAX_PROBLEMS_SHOWN;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}

/**
 * The `Admission` rule. Guarantees: a valid spec completes with no action (and removes a leftover
 * `InvalidSpec` condition, so a fixed spec proceeds in the same step); an invalid spec fails
 * terminally (no retry) with `stop`, asks for no action but the `FailedValidation` Warning Event,
 * and that Event only when the spec generation (or what is wrong) was not reported yet.
 */
export function planAdmission({ cluster, status, snapshot }: RuleInput): Decision {
  const problems = admissionProblems(cluster, snapshot.config.maxReplicas);
  const current = status.conditions ?? [];
  const reported = current.find((c) => c.type === INVALID_SPEC_CONDITION);
  if (problems.length === 0) {
    if (reported === undefined) return { actions: [], outcome: complete() };
    const conditions = current.filter((c) => c.type !== INVALID_SPEC_CONDITION);
    return { status: { ...status, conditions }, actions: [], outcome: complete('spec is valid again') };
  }
  const summary = describeProblems(problems);
  const outcome = fail(`invalid spec: ${summary}`, true);
  const message = `generation ${cluster.metadata.generation ?? 0}: ${summary}`;
  if (reported?.status === 'True' && reported.message === message) return { actions: [], outcome, stop: true };
  const event = clusterWarning(cluster, EVENT_REASON.failedValidation, summary);
  const next = invalidSpecCondition(reported, message, snapshot.nowMs);
  const ready = notReadyForInvalidSpec(current.find((c) => c.type === 'Ready'), summary, snapshot.nowMs);
  const conditions = [...current.filter((c) => c.type !== INVALID_SPEC_CONDITION && c.type !== 'Ready'), ready, next];
  const nextStatus: TidbClusterStatus = { ...status, conditions };
  return { status: nextStatus, actions: [event], outcome, stop: true };
}

/** `Ready` False for an invalid spec; `lastTransitionTime` kept when it was False already. */
function notReadyForInvalidSpec(previous: ClusterCondition | undefined, summary: string, nowMs: number): ClusterCondition {
  const now = toKubeTime(nowMs);
  const since = previous?.status === 'False' ? (previous.lastTransitionTime ?? now) : now;
  return { type: 'Ready', status: 'False', reason: INVALID_SPEC_CONDITION, message: `the spec is invalid: ${summary}`, lastUpdateTime: now, lastTransitionTime: since };
}

/** The condition for `message`; `lastTransitionTime` stays as it was while the spec stays invalid. */
function invalidSpecCondition(previous: ClusterCondition | undefined, message: string, nowMs: number): ClusterCondition {
  const now = toKubeTime(nowMs);
  const since = previous?.status === 'True' ? (previous.lastTransitionTime ?? now) : now;
  return {
    type: INVALID_SPEC_CONDITION,
    status: 'True',
    reason: EVENT_REASON.failedValidation,
    message,
    lastUpdateTime: now,
    lastTransitionTime: since,
  };
}
