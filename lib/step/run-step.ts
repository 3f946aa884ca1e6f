/**
 * `runStep`: one reconcile step for one cluster key — claim → observe → decide → act → commit — the
 * only code that sequences ports. Rules decide (pure, `lib/reconcile`); adapters do I/O behind ports;
 * this file decides only the order and what each failure means.
 *
 * A step that dies holding its lease (Lambda timeout, OOM, crash) is retried by the queue: its
 * invocation fails, so SQS does not delete the trigger and delivers it again after the visibility
 * timeout. The lease is shorter than that timeout and longer than the function timeout
 * (`lib/platform/config.ts` checks both), so the redelivered trigger finds the lease expired and
 * claims it — no new event and no extra timer per step are needed. Triggers that arrived while the
 * dead step held the lease only marked it dirty; the redelivered step runs after them and sees their
 * effects, because it observes fresh state. The sweep is the backstop for triggers that never reached
 * the queue (e.g. a direct invoke).
 */

import { randomUUID } from 'node:crypto';

import { parseClusterKey } from '../model/key.js';
import type { Plan } from '../model/plan.js';
import type { Snapshot } from '../model/snapshot.js';
import type { StepConfig } from '../platform/config.js';
import { ConflictError } from '../platform/errors.js';
import { METRIC } from '../platform/metrics.js';
import { combineOutcomes, fail } from '../reconcile/outcome.js';
import { planStep } from '../reconcile/plan.js';
import { clusterRules } from '../reconcile/registry.js';
import type { Rule } from '../reconcile/rule.js';
import type { ClaimResult } from '../state/port.js';
import { executeActions } from './act.js';
import { commitStep } from './commit.js';
import { startBudget, type StepContext } from './context.js';
import { errorText } from './error-outcome.js';
import { observeStep } from './observe.js';
import { isTimerTrigger, type StepPorts, type Trigger } from './ports.js';
import { reportStep, steppedResult, unclaimedResult, type StepIdentity, type StepResult } from './result.js';

/**
 * One step's input. `owner` names the lease holder and must differ between concurrent steps (e.g. the
 * invocation id and message id). `budgetMs` is the time the step may take (the Lambda's remaining
 * time); the engine keeps `config.safetyMarginMs` of it for the commit.
 */
export type RunStepInput = {
  readonly key: string;
  readonly trigger: Trigger;
  readonly owner: string;
  readonly ports: StepPorts;
  readonly config: StepConfig;
  readonly budgetMs: number;
  /** The rules to run; the registry's `clusterRules` unless a test or simulation narrows them. */
  readonly rules?: readonly Rule[];
};

type ClaimedStep = StepContext & { readonly rules: readonly Rule[] };


/**
 * Runs one step. Guarantees: never throws; at most one step per key holds the lease at a time (a step
 * that cannot claim marks the key dirty and returns `skipped`); a claimed step always tries to release
 * its lease, even when observing or acting failed (failures counted per `lib/step/schedule.ts`); one
 * log line and the step's metrics are emitted for every call.
 */
export async function runStep(input: RunStepInput): Promise<StepResult> {
  const { ports, key, trigger } = input;
  const startedAtMs = ports.clock.nowMs();
  const base: StepIdentity = { key, reconcileId: (ports.newReconcileId ?? randomUUID)(), trigger, startedAtMs };
  if (trigger.enqueuedAtMs !== undefined) {
    ports.metrics.milliseconds(METRIC.queueLag, startedAtMs - trigger.enqueuedAtMs);
  }
  const parsed = parseClusterKey(key);
  if (!parsed.ok) return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), 'rejected', parsed.message));
  if (input.budgetMs <= input.config.safetyMarginMs) return reportStep(ports, noBudget(input, base));
  if (isTimerTrigger(trigger) && (await isForgotten(input))) {
    return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), 'ignored', undefined));
  }
  const budget = startBudget(ports.clock, input.budgetMs, input.config.safetyMarginMs);
  try {
    const claim = await claimLease(input, startedAtMs, budget.workSignal);
    if (typeof claim === 'string') {
      return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), 'claim-failed', claim));
    }
    if (!claim.claimed) return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), 'skipped', undefined));
    const ctx: ClaimedStep = {
      ...base,
      ref: parsed.ref,
      owner: input.owner,
      ports,
      config: input.config,
      rules: input.rules ?? clusterRules,
      deadlineAtMs: startedAtMs + input.budgetMs,
      fence: claim.fence,
      claimed: claim.state,
      workSignal: budget.workSignal,
      commitSignal: budget.commitSignal,
    };
    return reportStep(ports, await runClaimed(ctx));
  } finally {
    budget.dispose();
  }
}

/**
 * Whether `key` was forgotten (its TidbCluster gone) and not claimed since. A timer armed before that
 * — a delayed queue message cannot be withdrawn — then finds nothing to wake, and skips the claim that
 * would make the forgotten item permanent again. Any other trigger still steps: the cluster may have
 * been created again. A failed read is not a reason to drop a wake-up: the step then runs as usual.
 */
async function isForgotten(input: RunStepInput): Promise<boolean> {
  try {
    const state = await input.ports.state.get(input.key, { timeoutMs: input.budgetMs - input.config.safetyMarginMs });
    return state !== undefined && state.expiresAtSeconds !== undefined && state.lease === undefined;
  } catch {
    return false;
  }
}

/** Too late in the invocation to do anything safely: the trigger is left for redelivery. */
function noBudget(input: RunStepInput, identity: StepIdentity): StepResult {
  const error = `no time budget left (${input.budgetMs} ms, margin ${input.config.safetyMarginMs} ms)`;
  return unclaimedResult(identity, input.ports.clock.nowMs(), 'claim-failed', error);
}

/**
 * Claims the lease; the error text when the store failed. A claim that keeps losing the lease to other
 * steps (`ConflictError`: it changed hands between attempts) is contention, not failure: those steps
 * claimed after this trigger arrived, so they observe its effect, and the trigger can be dropped.
 */
async function claimLease(input: RunStepInput, nowMs: number, signal: AbortSignal): Promise<ClaimResult | string> {
  try {
    return await input.ports.state.claim(input.key, input.owner, nowMs, input.config.leaseForMs, { signal });
  } catch (err) {
    if (err instanceof ConflictError) return { claimed: false, heldBy: 'another step', leaseUntilMs: nowMs };
    return `claim: ${errorText(err)}`;
  }
}

/** Observe → decide → act → commit, for a step that holds the lease. */
async function runClaimed(ctx: ClaimedStep): Promise<StepResult> {
  const clock = ctx.ports.clock;
  const marks = [clock.nowMs()];
  const observed = await observeStep(ctx);
  marks.push(clock.nowMs());
  const plan = observed.ok ? decideStep(observed.snapshot, ctx.rules) : undefined;
  marks.push(clock.nowMs());
  const acted = plan ? await executeActions(ctx, plan.actions) : { records: [], outcome: undefined };
  marks.push(clock.nowMs());
  // An observe failure, or the plan's outcome made stronger by a failed or unfinished act stage.
  const planned = observed.ok ? (plan?.outcome ?? fail('no plan')) : observed.outcome;
  const outcome = acted.outcome ? combineOutcomes([planned, acted.outcome]) : planned;
  const cluster = observed.ok ? observed.snapshot.cluster : undefined;
  // Only an observation that succeeded can say the TidbCluster is gone.
  const gone = observed.ok && cluster === undefined;
  const commit = await commitStep(ctx, { cluster, gone, plan, outcome, records: acted.records });
  marks.push(clock.nowMs());
  return steppedResult(ctx, plan?.ruleResults ?? [], commit, marks);
}

/**
 * Decides (pure). A rule that throws is a bug, not a state of the world: the step fails (retryable,
 * so a fixed deployment picks the key up again) with no actions and no status change.
 */
export function decideStep(snapshot: Snapshot, rules: readonly Rule[] = clusterRules): Plan {
  try {
    return planStep(snapshot, rules);
  } catch (err) {
    return { actions: [], status: undefined, outcome: fail(`decide: ${errorText(err)}`), ruleResults: [] };
  }
}
