/**
 * `runStep`: one reconcile step for one cluster key — claim → observe → decide → act → commit — the
 * only code that sequences ports. Rules decide (pure, `lib/reconcile`); adapters do I/O behind ports;
 * this file decides only the order and what each failure means.
 *
 * A step that dies holding its lease (Lambda timeout, OOM, crash) costs at most its lease, whether or
 * not another trigger arrives meanwhile:
 * - its own records: a step that claims sets their visibility to the lease's end plus a margin
 *   (`lease-hold.ts`, alongside observe), so a dead step's record comes back just after its lease
 *   has expired, not after the queue's visibility timeout; a live step's records are deleted as before;
 * - triggers that arrive meanwhile: the first that finds the lease held arms a lease-expiry wake-up
 *   (`lease-wake.ts`) besides marking the key dirty, and that wake-up steps the key once the dead
 *   step's lease has expired. A live holder re-enqueues the dirty key itself when it releases, and the
 *   wake-up then finds the lease released and does nothing.
 * The sweep is the backstop for triggers that never reached the queue.
 *
 * Safety does not rest on the function timeout: the budget is cut to the lease (less the safety
 * margin), each side effect that no Kubernetes precondition protects is preceded by a lease check
 * (`act.ts`), and deadlines are written in the same request as their fence check.
 */

import { randomUUID } from 'node:crypto';

import { parseObjectKey, type ControllerKind } from '../model/object-key.js';
import type { Plan } from '../model/plan.js';
import type { StepConfig } from '../platform/config.js';
import { ConflictError } from '../platform/errors.js';
import { MAX_DELAY_SECONDS } from '../queue/port.js';
import { METRIC } from '../platform/metrics.js';
import { combineOutcomes, fail } from '../reconcile/engine/outcome.js';
import type { Rule } from '../reconcile/engine/rule.js';
import type { ClaimResult } from '../state/port.js';
import { executeActions } from './act.js';
import { deferForBudget } from './api-budget.js';
import { commitStep } from './commit.js';
import { startBudget, type StepContext } from './context.js';
import { errorText } from './error-outcome.js';
import { holdRecordsForLease } from './lease-hold.js';
import { armLeaseWake, leaseBoundBudget, leaseWakeFence, leaseWakeIsSuperseded } from './lease-wake.js';
import type { Controller } from './controller.js';
import { tidbClusterController } from './tidbcluster-controller.js';
import { isReplacedWake } from './schedule.js';
import { isHealthTrigger, isTimerTrigger, type StepPorts, type Trigger } from './ports.js';
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
  /** The TidbCluster rules to run; the registry's `clusterRules` unless a test or simulation narrows them. */
  readonly rules?: readonly Rule[];
};

type ClaimedStep = StepContext & { readonly controller: Controller };


/**
 * Runs one step. Guarantees: never throws; at most one step per key holds the lease at a time (a step
 * that cannot claim marks the key dirty and returns `skipped`, having armed the lease's expiry
 * wake-up if it was the first to find that lease held); a lease-expiry wake-up whose lease was
 * released or taken over returns `superseded` without claiming; a claimed step always tries to
 * release its lease, even when observing or acting failed (failures counted per
 * `lib/step/schedule.ts`), and never runs past its lease; one log line and the step's metrics are
 * emitted for every call.
 */
export async function runStep(input: RunStepInput): Promise<StepResult> {
  const { ports, key, trigger } = input;
  const startedAtMs = ports.clock.nowMs();
  const base: StepIdentity = { key, reconcileId: (ports.newReconcileId ?? randomUUID)(), trigger, startedAtMs };
  if (trigger.enqueuedAtMs !== undefined) {
    ports.metrics.milliseconds(METRIC.queueLag, startedAtMs - trigger.enqueuedAtMs);
  }
  const parsed = parseObjectKey(key);
  if (!parsed.ok) return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), 'rejected', parsed.message));
  const controller = controllerFor(input, parsed.kind);
  if (!controller) return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), 'rejected', `no ${parsed.kind} controller runs in this deployment`));
  const budgetMs = leaseBoundBudget(input.budgetMs, input.config);
  if (budgetMs <= input.config.safetyMarginMs) return reportStep(ports, noBudget(input, base));
  const budget = startBudget(ports.clock, budgetMs, input.config.safetyMarginMs);
  try {
    const wakeFence = leaseWakeFence(trigger);
    const skip = await wakeUpToSkip(input, wakeFence, budget.workSignal);
    if (skip) return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), skip.disposition, skip.error));
    const deferred = await deferForBudget(input, base, budget.workSignal);
    if (deferred) return reportStep(ports, deferred);
    const claim = await claimLease(input, startedAtMs, budget.workSignal);
    if (typeof claim === 'string') {
      return reportStep(ports, unclaimedResult(base, ports.clock.nowMs(), 'claim-failed', claim));
    }
    if (!claim.claimed) return reportStep(ports, await leaseHeld(input, base, claim, wakeFence));
    const ctx: ClaimedStep = {
      ...base,
      ref: parsed.ref,
      owner: input.owner,
      ports,
      config: input.config,
      controller,
      deadlineAtMs: startedAtMs + budgetMs,
      fence: claim.fence,
      claimed: claim.state,
      deadlines: claim.deadlines,
      storeIds: claim.storeIds,
      workSignal: budget.workSignal,
      commitSignal: budget.commitSignal,
    };
    return reportStep(ports, await runClaimed(ctx));
  } finally {
    budget.dispose();
  }
}

/**
 * The controller of `kind`: the TidbCluster's is built in (running `input.rules` when given); the
 * others come with the ports (`StepPorts.controllers`), so a deployment runs the ones it wires.
 */
function controllerFor(input: RunStepInput, kind: ControllerKind): Controller | undefined {
  if (kind === 'TidbCluster') return tidbClusterController(input.rules) as Controller<unknown>;
  return input.ports.controllers?.[kind];
}

/** Too late in the invocation to do anything safely: the trigger is left for redelivery. */
function noBudget(input: RunStepInput, identity: StepIdentity): StepResult {
  const error = `no time budget left (${input.budgetMs} ms, margin ${input.config.safetyMarginMs} ms)`;
  return unclaimedResult(identity, input.ports.clock.nowMs(), 'claim-failed', error);
}

/**
 * A wake-up reads the key's state once before claiming, and is dropped when it has nothing to do:
 * a lease-expiry wake-up whose lease was released or taken over, or a timer's wake-up that a later
 * one replaced (`isReplacedWake`) — both `superseded` — or a timer armed
 * before the key was forgotten — its TidbCluster gone, not claimed since — which a delayed message
 * cannot withdraw and whose claim would make the forgotten item permanent again (`ignored`). Other
 * triggers step without the read: the cluster may have been created again. A failed read leaves a
 * lease-expiry wake-up for redelivery; a timer's steps anyway (a failed read is no reason to drop it).
 */
async function wakeUpToSkip(
  input: RunStepInput,
  wakeFence: number | undefined,
  signal: AbortSignal,
): Promise<{ disposition: 'superseded' | 'ignored' | 'claim-failed'; error?: string } | undefined> {
  const isTimer = isTimerTrigger(input.trigger);
  const isHealth = isHealthTrigger(input.trigger);
  if (wakeFence === undefined && !isTimer && !isHealth) return undefined;
  let state: Awaited<ReturnType<StepPorts['state']['get']>>;
  try {
    state = await input.ports.state.get(input.key, { signal });
  } catch (err) {
    return wakeFence === undefined ? undefined : { disposition: 'claim-failed', error: `read state: ${errorText(err)}` };
  }
  const nowMs = input.ports.clock.nowMs();
  if (wakeFence !== undefined && leaseWakeIsSuperseded(state, wakeFence, nowMs)) return { disposition: 'superseded' };
  if (isReplacedWake(state, input.trigger, nowMs)) return { disposition: 'superseded' };
  // One health check is pending per key (docs/adr/0024): the one the state item names.
  if (isHealth && state?.lastStep?.healthAtMs !== input.trigger.dueAtMs) return { disposition: 'superseded' };
  const forgotten = state !== undefined && state.expiresAtSeconds !== undefined && state.lease === undefined;
  return (isTimer || isHealth) && forgotten ? { disposition: 'ignored' } : undefined;
}

/**
 * The lease is held: the claim marked the key dirty. The first trigger per held lease arms its
 * expiry wake-up, and so does a wake-up that came back to the same lease still held (a lease longer
 * than SQS's longest delay). A wake-up that could not be armed leaves the trigger for redelivery.
 */
async function leaseHeld(
  input: RunStepInput,
  base: StepIdentity,
  held: Extract<ClaimResult, { claimed: false }>,
  wakeFence: number | undefined,
): Promise<StepResult> {
  const { ports, key } = input;
  // The dirty re-enqueue carries no reason of its own: a TiDB Operator re-check asked comes back by itself.
  const recheck = input.trigger.checkTidbOperator === true ? await resendRecheck(ports, key, held.leaseUntilMs) : undefined;
  if (recheck !== undefined) return { ...unclaimedResult(base, ports.clock.nowMs(), 'skipped', undefined), redeliver: true, errors: [recheck] };
  if (!held.armExpiryWake && wakeFence !== held.fence) {
    return unclaimedResult(base, ports.clock.nowMs(), 'skipped', undefined);
  }
  const armed = await armLeaseWake(ports, key, held);
  const done = unclaimedResult(base, ports.clock.nowMs(), 'skipped', undefined);
  if ('error' in armed) return { ...done, redeliver: true, errors: [armed.error] };
  return { ...done, armedWakeAtMs: armed.atMs };
}

/**
 * A TiDB Operator re-check asked by a trigger that found the lease held, sent again to arrive when
 * the lease ends (docs/adr/0024): the holder's dirty re-enqueue steps the key but does not ask for
 * it. The error text when the send failed (the trigger is then left for redelivery, flag and all).
 */
async function resendRecheck(ports: StepPorts, key: string, leaseUntilMs: number): Promise<string | undefined> {
  const nowMs = ports.clock.nowMs();
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((leaseUntilMs - nowMs) / 1000)));
  try {
    await ports.queue.send([{ message: { key, reason: 'TiDB Operator re-check (the lease was held)', enqueuedAtMs: nowMs, checkTidbOperator: true }, ...(delaySeconds > 0 ? { delaySeconds } : {}) }]);
    return undefined;
  } catch (err) {
    return `re-send the TiDB Operator re-check: ${errorText(err)}`;
  }
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
    if (err instanceof ConflictError) {
      return { claimed: false, heldBy: 'another step', leaseUntilMs: nowMs, fence: 0, armExpiryWake: false };
    }
    return `claim: ${errorText(err)}`;
  }
}

/**
 * Observe → decide → act → commit, for a step that holds the lease, with the key's controller. The
 * trigger's records are held for the lease (`lease-hold.ts`) alongside observe and act; the commit
 * waits for that to finish.
 */
async function runClaimed(ctx: ClaimedStep): Promise<StepResult> {
  const clock = ctx.ports.clock;
  const controller = ctx.controller;
  const marks = [clock.nowMs()];
  const held = holdRecordsForLease(ctx.ports, ctx.key, ctx.trigger, ctx.startedAtMs + ctx.config.leaseForMs);
  const observed = await controller.observe(ctx);
  marks.push(clock.nowMs());
  const plan = observed.ok ? decideSafely(controller, observed.snapshot) : undefined;
  marks.push(clock.nowMs());
  const acted = plan ? await executeActions(ctx, plan.actions) : { records: [], outcome: undefined };
  marks.push(clock.nowMs());
  // An observe failure, or the plan's outcome made stronger by a failed or unfinished act stage.
  const planned = observed.ok ? (plan?.outcome ?? fail('no plan')) : observed.outcome;
  const outcome = acted.outcome ? combineOutcomes([planned, acted.outcome]) : planned;
  const subject = observed.ok ? controller.subject(observed.snapshot) : { cluster: undefined, gone: false };
  await held;
  const { cluster, gone, verified } = subject;
  // Asked after acting: a Kubernetes write of this step leaves no kept read to stand on (docs/adr/0024).
  const persistedRead = ctx.ports.observer.persistedRead?.(ctx.key, ctx.fence);
  const commit = await commitStep(ctx, { cluster, gone, plan, outcome, records: acted.records, ...(verified ? { verified } : {}), ...(persistedRead === undefined ? {} : { persistedRead }) });
  marks.push(clock.nowMs());
  return steppedResult(ctx, plan?.ruleResults ?? [], commit, marks);
}

/** A controller's decide that throws is a bug: the step fails (retryable) with no actions. */
function decideSafely<S>(controller: Controller<S>, snapshot: S): Plan {
  try {
    return controller.decide(snapshot);
  } catch (err) {
    return { actions: [], status: undefined, outcome: fail(`decide: ${errorText(err)}`), ruleResults: [] };
  }
}

export { decideStep } from './tidbcluster-controller.js';
