/**
 * Acting: running a plan's actions in order, stopping at the first failure or when the time budget
 * runs low. Every action is recorded with its result, including the ones that did not run.
 */

import type { Action } from '../model/action.js';
import type { FailOutcome, Outcome } from '../model/outcome.js';
import { retry } from '../reconcile/engine/outcome.js';
import { isOutOfBudget, type StepContext } from './context.js';
import { describeAction } from './describe.js';
import { errorText, outcomeForError } from './error-outcome.js';

/** What happened to one action: done, failed (with the error), or not attempted. */
export type ActionResult = 'ok' | 'error' | 'not-run';

/** One action as the step's result, log and history report it. */
export type ActionRecord = {
  readonly action: Action;
  readonly description: string;
  readonly result: ActionResult;
  readonly error?: string;
  readonly durationMs: number;
};

/** The records of every action, and the outcome acting imposes (undefined when all ran). */
export type ActResult = { readonly records: readonly ActionRecord[]; readonly outcome: Outcome | undefined };

/**
 * Runs `actions` in order. Guarantees: an action runs only after the previous one succeeded (or
 * failed with its `onError` Event recorded); an action's `onSuccess` runs right after it, only when
 * it succeeded; the first other failure stops the rest (outcome: its `fail`); when less than the safety margin of the budget is left
 * the rest is not attempted (outcome: `retry` after `budgetRetryAfterMs`, so the step comes back soon
 * rather than being killed mid-commit); every action appears in `records`, in order.
 */
export async function executeActions(ctx: StepContext, actions: readonly Action[]): Promise<ActResult> {
  const records: ActionRecord[] = [];
  for (const [index, action] of actions.entries()) {
    if (isOutOfBudget(ctx)) {
      records.push(...actions.slice(index).map(notRun));
      const message = `time budget exhausted after ${index} of ${actions.length} actions`;
      return { records, outcome: retry(ctx.config.budgetRetryAfterMs, message) };
    }
    const done = await executeOne(ctx, action, ctx.workSignal);
    records.push(done.record);
    const reported = done.outcome ? await reportFailure(ctx, action, done.record) : undefined;
    if (reported) records.push(reported.record);
    if (reported && !reported.outcome) continue;
    const after = done.outcome ? undefined : await followUp(ctx, action);
    if (after) records.push(after.record);
    const outcome = done.outcome ?? after?.outcome;
    if (outcome) {
      records.push(...actions.slice(index + 1).map(notRun));
      return { records, outcome };
    }
  }
  return { records, outcome: undefined };
}

/**
 * For an action that names an Event to record when it fails (`onError`): records that Event with
 * the failure appended, so the step can go on. Undefined when the action names none, or the step's
 * budget ran out (then the step stops as for any failure).
 */
async function reportFailure(ctx: StepContext, action: Action, failed: ActionRecord): Promise<{ record: ActionRecord; outcome?: FailOutcome } | undefined> {
  const event = 'onError' in action ? action.onError : undefined;
  if (event === undefined || ctx.workSignal.aborted) return undefined;
  return executeOne(ctx, { ...event, message: `${event.message}${failed.error ?? ''}` }, ctx.workSignal);
}

/**
 * For an action that names what to do once it succeeded (`onSuccess`): runs that, as the next
 * action of the plan (its failure stops the rest as any). Undefined when the action names none.
 */
async function followUp(ctx: StepContext, action: Action): Promise<{ record: ActionRecord; outcome?: FailOutcome } | undefined> {
  const next = 'onSuccess' in action ? action.onSuccess : undefined;
  return next === undefined ? undefined : executeOne(ctx, next, ctx.workSignal);
}

/** Runs one action and records it; a thrown error becomes the record's error and a `fail` outcome. */
export async function executeOne(
  ctx: StepContext,
  action: Action,
  signal: AbortSignal,
): Promise<{ record: ActionRecord; outcome?: FailOutcome }> {
  const description = describeAction(action);
  const startMs = ctx.ports.clock.nowMs();
  try {
    await executeAction(ctx, action, signal);
    return { record: { action, description, result: 'ok', durationMs: ctx.ports.clock.nowMs() - startMs } };
  } catch (err) {
    const durationMs = ctx.ports.clock.nowMs() - startMs;
    return {
      record: { action, description, result: 'error', error: errorText(err), durationMs },
      outcome: outcomeForError(err, description),
    };
  }
}

/**
 * Routes an action: the engine's own state under its fence (checked in the same write), everything
 * else to the Executor — after a lease check when nothing on the far side can refuse a stale step.
 */
async function executeAction(ctx: StepContext, action: Action, signal: AbortSignal): Promise<void> {
  const { ports, key, fence } = ctx;
  switch (action.kind) {
    case 'state.putDeadline':
      return ports.state.putDeadline(key, action.deadline, fence, { signal });
    case 'state.deleteDeadline':
      return ports.state.deleteDeadline(key, action.deadline, fence, { signal });
    case 'state.putStoreId':
      return ports.state.putStoreId(key, { ...action.record }, fence, { signal });
    default:
      if (needsLeaseCheck(action)) await ports.state.assertLease(key, ctx.owner, fence, ports.clock.nowMs(), { signal });
      return ports.executor.execute({ key, ref: ctx.ref, action, fence, signal });
  }
}

/**
 * Whether an action must be preceded by a lease check. PD, TiCDC, Pump and Scheduler calls take no precondition
 * at all, and a delete's uid guard does not stop a stale step from deleting an object a newer step
 * decided to keep; creates (AlreadyExists), updates and patches (resourceVersion) and Events (one
 * name per occurrence) are refused or harmless on the far side.
 */
export function needsLeaseCheck(action: Action): boolean {
  return action.kind === 'delete' || /^(pd|ticdc|pump|schedule)\./.test(action.kind);
}

function notRun(action: Action): ActionRecord {
  return { action, description: describeAction(action), result: 'not-run', durationMs: 0 };
}
