/**
 * A step's result, and the one log line and the metrics every step emits from it.
 */

import type { Outcome } from '../model/outcome.js';
import type { RuleResult } from '../model/plan.js';
import { METRIC, type MetricName } from '../platform/metrics.js';
import { describeOutcome } from '../reconcile/engine/outcome.js';
import type { ActionRecord } from './act.js';
import type { CommitResult, ReleaseState } from './commit.js';
import type { StepContext } from './context.js';
import type { StepPorts, Trigger } from './ports.js';

/**
 * How a step ended up: `stepped` (it held the lease and committed or tried to), `skipped` (another
 * step held the lease; the key was marked dirty, so the holder runs it again, or the lease-expiry
 * wake-up does if the holder died), `superseded` (a lease-expiry wake-up whose lease was released or
 * taken over, or a timer's wake-up a later one replaced: nothing to do), `claim-failed` (the state
 * store could not be reached, or no time budget was left; nothing ran), `rejected` (the key is
 * malformed; nothing ran), `ignored` (a timer's wake-up for a key that was forgotten when its
 * TidbCluster went away; nothing ran), `deferred` (its EKS cluster's API budget is spent: the trigger
 * was sent again, delayed to the time its reservation starts; nothing ran, docs/adr/0028).
 */
export type StepDisposition = 'stepped' | 'skipped' | 'superseded' | 'claim-failed' | 'rejected' | 'ignored' | 'deferred';

/** Milliseconds spent per stage, on the step's clock. */
export type StepDurations = {
  readonly claimMs: number;
  readonly observeMs: number;
  readonly decideMs: number;
  readonly actMs: number;
  readonly commitMs: number;
  readonly totalMs: number;
};

/**
 * The result of `runStep`. Guarantees: `redeliver` is true exactly when the trigger must be delivered
 * again for the key not to be forgotten (claim failed, or a durable part of the commit failed);
 * otherwise the step has taken care of its own follow-up (wake-up armed, dirty re-enqueue sent).
 */
export type StepResult = {
  readonly key: string;
  readonly reconcileId: string;
  readonly trigger: Trigger;
  readonly startedAtMs: number;
  readonly disposition: StepDisposition;
  readonly outcome: Outcome | undefined;
  readonly fence: number | undefined;
  readonly rules: readonly RuleResult[];
  readonly actions: readonly ActionRecord[];
  readonly statusWritten: boolean;
  readonly failures: number | undefined;
  readonly nextWakeAtMs: number | undefined;
  readonly armedWakeAtMs: number | undefined;
  readonly release: ReleaseState | undefined;
  readonly historyWritten: boolean;
  readonly reEnqueued: boolean;
  readonly redeliver: boolean;
  readonly errors: readonly string[];
  readonly durationsMs: StepDurations;
};

/** The message of every step's log line (constant, so lines can be queried by it). */
export const STEP_LOG_MESSAGE = 'reconcile step';

const OUTCOME_METRIC: Record<Outcome['kind'], MetricName> = {
  complete: METRIC.stepsComplete,
  wait: METRIC.stepsWait,
  retry: METRIC.stepsRetry,
  fail: METRIC.stepsFailed,
};

/** Writes the step's one log line and its metrics, then returns `result` unchanged. */
export function reportStep(ports: StepPorts, result: StepResult): StepResult {
  const level = result.errors.length > 0 || result.outcome?.kind === 'fail' ? 'warn' : 'info';
  ports.logger[level](STEP_LOG_MESSAGE, stepLogFields(result));
  emitMetrics(ports, result);
  return result;
}

/** The fields of a step's log line: key, reconcile id, rules with outcomes, actions, duration, … */
export function stepLogFields(result: StepResult): Record<string, unknown> {
  return {
    key: result.key,
    reconcileId: result.reconcileId,
    trigger: result.trigger.reason,
    ...(result.trigger.requestedBy === undefined ? {} : { requestedBy: result.trigger.requestedBy }),
    ...(result.trigger.messageId === undefined ? {} : { messageId: result.trigger.messageId }),
    disposition: result.disposition,
    outcome: result.outcome?.kind,
    detail: result.outcome === undefined ? undefined : describeOutcome(result.outcome),
    // Each rule with its reason, so a hold, wait or refusal says why in the one line a step writes.
    rules: result.rules.map((r) => ({ rule: r.rule, outcome: r.outcome.kind, ...reasonOf(r.outcome) })),
    actions: result.actions.map((a) => ({ action: a.description, result: a.result, error: a.error })),
    fence: result.fence,
    failures: result.failures,
    nextWakeAtMs: result.nextWakeAtMs,
    reEnqueued: result.reEnqueued,
    redeliver: result.redeliver,
    errors: result.errors.length > 0 ? result.errors : undefined,
    durationMs: result.durationsMs.totalMs,
    durationsMs: result.durationsMs,
  };
}

/** The rule outcome's message (a failure's error) as a log field, when it has one. */
function reasonOf(outcome: Outcome): { message?: string } {
  const message = outcome.kind === 'fail' ? outcome.error : outcome.message;
  return message === undefined || message === '' ? {} : { message };
}

function emitMetrics(ports: StepPorts, result: StepResult): void {
  const { metrics } = ports;
  if (result.disposition === 'skipped') metrics.count(METRIC.leaseContention);
  if (result.disposition === 'deferred') metrics.count(METRIC.stepsDeferred);
  if (result.disposition === 'claim-failed' || result.redeliver) metrics.count(METRIC.stepErrors);
  if (result.disposition !== 'stepped' || result.outcome === undefined) return;
  metrics.count(METRIC.steps);
  metrics.count(OUTCOME_METRIC[result.outcome.kind]);
  if (result.outcome.kind === 'fail' && result.outcome.terminal) metrics.count(METRIC.stepsTerminal);
  metrics.milliseconds(METRIC.stepDuration, result.durationsMs.totalMs);
  metrics.count(METRIC.actionsExecuted, result.actions.filter((a) => a.result !== 'not-run').length);
  metrics.count(METRIC.actionsFailed, result.actions.filter((a) => a.result === 'error').length);
  if (result.reEnqueued) metrics.count(METRIC.stepsReEnqueued);
}

/** What every result starts from: which step, why, and when it started. */
export type StepIdentity = Pick<StepResult, 'key' | 'reconcileId' | 'trigger' | 'startedAtMs'>;

/** The result of a step that ran (`marks`: claim, observed, decided, acted, committed times). */
export function steppedResult(
  ctx: StepContext,
  rules: readonly RuleResult[],
  commit: CommitResult,
  marks: readonly number[],
): StepResult {
  const [claimed = 0, observed = 0, decided = 0, acted = 0, committed = 0] = marks;
  return {
    ...{ key: ctx.key, reconcileId: ctx.reconcileId, trigger: ctx.trigger, startedAtMs: ctx.startedAtMs },
    disposition: 'stepped',
    outcome: commit.outcome,
    fence: ctx.fence,
    rules,
    actions: commit.records,
    statusWritten: commit.statusWritten,
    failures: commit.schedule.failures,
    nextWakeAtMs: commit.storedWakeAtMs,
    armedWakeAtMs: commit.armedWakeAtMs,
    release: commit.release,
    historyWritten: commit.historyWritten,
    reEnqueued: commit.reEnqueued,
    redeliver: commit.redeliver,
    errors: commit.errors,
    durationsMs: {
      claimMs: claimed - ctx.startedAtMs,
      observeMs: observed - claimed,
      decideMs: decided - observed,
      actMs: acted - decided,
      commitMs: committed - acted,
      totalMs: committed - ctx.startedAtMs,
    },
  };
}

/**
 * The result of a step that never held the lease; only `claim-failed` asks for redelivery (a skipped
 * step whose expiry wake-up could not be sent overrides `redeliver`).
 */
export function unclaimedResult(
  identity: StepIdentity,
  nowMs: number,
  disposition: Exclude<StepDisposition, 'stepped'>,
  error: string | undefined,
): StepResult {
  const totalMs = nowMs - identity.startedAtMs;
  return {
    ...identity,
    disposition,
    outcome: undefined,
    fence: undefined,
    rules: [],
    actions: [],
    statusWritten: false,
    failures: undefined,
    nextWakeAtMs: undefined,
    armedWakeAtMs: undefined,
    release: undefined,
    historyWritten: false,
    reEnqueued: false,
    redeliver: disposition === 'claim-failed',
    errors: error === undefined ? [] : [error],
    durationsMs: { claimMs: totalMs, observeMs: 0, decideMs: 0, actMs: 0, commitMs: 0, totalMs },
  };
}
