/**
 * Committing a claimed step, in this order: write the status (under the observed resourceVersion), arm
 * the wake-up, append history, release the lease (conditional on the fence), and re-enqueue the key
 * once if a trigger arrived meanwhile. The wake-up is armed before the release so the state never
 * records a wake-up that no timer will deliver.
 *
 * A step that observed its TidbCluster gone forgets the key before releasing: deadlines deleted, the
 * long wake-up timer cancelled, and the state item given a TTL (`StateStore.forget`), so a deleted
 * cluster — or a message for a key that never existed — leaves nothing permanent behind.
 */

import type { UpdateStatusAction } from '../model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../model/kube.js';
import type { FailOutcome, Outcome } from '../model/outcome.js';
import type { Plan } from '../model/plan.js';
import { ConflictError } from '../platform/errors.js';
import { combineOutcomes, describeOutcome, fail } from '../reconcile/engine/outcome.js';
import type { HistoryRecord, VerifiedCluster } from '../state/port.js';
import { executeOne, type ActionRecord } from './act.js';
import type { StepContext } from './context.js';
import { describeAction } from './describe.js';
import { errorText } from './error-outcome.js';
import { DIRTY_REASON, HEALTH_PENDING_GRACE_MS, HEALTH_REASON, isHealthTrigger, WAKE_TIMER_KIND } from './ports.js';
import { planSchedule, type Schedule } from './schedule.js';

/** What the stages before the commit produced. `plan` is undefined when observing failed. */
export type CommitInput = {
  readonly cluster: TidbCluster | undefined;
  /** The observation succeeded and found no TidbCluster: the key is forgotten. */
  readonly gone?: boolean;
  readonly plan: Plan | undefined;
  readonly outcome: Outcome;
  readonly records: readonly ActionRecord[];
  /**
   * The TidbCluster this step's observation verified (read in full) or relied on (at rest: the one
   * verified before); kept in the state item only when the step completes.
   */
  readonly verified?: VerifiedCluster;
  /** The fence of the kept whole read this step's observation is, when it wrote nothing to the API server (`StepSummary.persistedRead`). */
  readonly persistedRead?: number;
};

/** How the lease ended: released, taken over by a newer step (ours was stale), or not released (error). */
export type ReleaseState = 'released' | 'lost-lease' | 'failed';

/**
 * The commit's result. `redeliver` is true when something durable failed (arming the wake-up, the
 * release, the dirty re-enqueue): the caller then leaves its trigger for redelivery, which retries
 * the step after the queue's visibility timeout.
 */
export type CommitResult = {
  readonly outcome: Outcome;
  readonly records: readonly ActionRecord[];
  readonly statusWritten: boolean;
  readonly schedule: Schedule;
  readonly storedWakeAtMs: number | undefined;
  readonly armedWakeAtMs: number | undefined;
  readonly historyWritten: boolean;
  /** Whether this step forgot the key (its TidbCluster gone): state TTL set, deadlines and timer cleared. */
  readonly forgotten: boolean;
  readonly release: ReleaseState;
  readonly reEnqueued: boolean;
  readonly redeliver: boolean;
  readonly errors: readonly string[];
};

/** Commits; never throws (every failure is in `errors` and `redeliver`). */
export async function commitStep(ctx: StepContext, input: CommitInput): Promise<CommitResult> {
  const errors: string[] = [];
  const status = await writeStatus(ctx, input.cluster, input.plan?.status);
  const outcome = status?.outcome ? combineOutcomes([input.outcome, status.outcome]) : input.outcome;
  const records = status ? [...input.records, status.record] : input.records;
  const schedule = planSchedule({
    outcome,
    planWakeAtMs: input.plan?.nextWakeAtMs,
    nowMs: ctx.ports.clock.nowMs(),
    claimed: ctx.claimed,
    trigger: ctx.trigger,
    backoff: ctx.config.reconcile.backoff,
    random: ctx.ports.random ?? Math.random,
  });
  const armed = await armWakeUp(ctx, schedule.armAtMs, errors);
  const historyWritten = await appendHistory(ctx, { outcome, records, plan: input.plan, schedule }, errors);
  const forgot = input.gone === true ? await forgetKey(ctx, errors) : undefined;
  // A forgotten key keeps no wake-up: its timer is cancelled, and one already queued is ignored.
  const storedWakeAtMs = forgot === undefined ? (armed ? schedule.storeWakeAtMs : schedule.pendingWakeAtMs) : undefined;
  const verified = outcome.kind === 'complete' ? input.verified : undefined;
  const healthAtMs = forgot === undefined && verified !== undefined ? await armHealthCheck(ctx, errors) : undefined;
  // The status write (above, after the act stage asked for it) changes the TidbCluster the kept read holds.
  const persistedRead = verified === undefined || status !== undefined ? undefined : input.persistedRead;
  const release = await releaseLease(ctx, outcome, { failures: schedule.failures, nextWakeAtMs: storedWakeAtMs, verified, healthAtMs, persistedRead }, errors);
  const reEnqueued = release.wasDirty ? await reEnqueue(ctx, errors) : false;
  const redeliver = !armed || forgot === 'failed' || release.state === 'failed' || (release.wasDirty && !reEnqueued);
  const statusWritten = status !== undefined && status.record.result === 'ok';
  return {
    outcome,
    records,
    statusWritten,
    schedule,
    storedWakeAtMs,
    armedWakeAtMs: armed ? schedule.armAtMs : undefined,
    historyWritten,
    forgotten: forgot === 'forgotten',
    release: release.state,
    reEnqueued,
    redeliver,
    errors,
  };
}

/** Writes a changed status as an `updateStatus` under the observed resourceVersion (409 ⇒ next step). */
async function writeStatus(
  ctx: StepContext,
  cluster: TidbCluster | undefined,
  status: TidbClusterStatus | undefined,
): Promise<{ record: ActionRecord; outcome?: FailOutcome } | undefined> {
  if (!cluster || status === undefined) return undefined;
  const { name = ctx.ref.name, namespace = ctx.ref.namespace, resourceVersion } = cluster.metadata;
  const action: UpdateStatusAction = {
    kind: 'updateStatus',
    ref: { kind: 'TidbCluster', namespace, name },
    object: { ...cluster, status },
    resourceVersion: resourceVersion ?? '',
  };
  if (resourceVersion === undefined) {
    // Without a resourceVersion the write could overwrite a newer status: refuse, re-observe next step.
    const error = 'the observed TidbCluster has no resourceVersion';
    const record: ActionRecord = { action, description: describeAction(action), result: 'error', error, durationMs: 0 };
    return { record, outcome: fail(`updateStatus: ${error}`) };
  }
  return executeOne(ctx, action, ctx.commitSignal);
}

/** Arms the timer if the schedule asks for one; false if that failed. */
async function armWakeUp(ctx: StepContext, armAtMs: number | undefined, errors: string[]): Promise<boolean> {
  if (armAtMs === undefined) return true;
  try {
    await ctx.ports.timers.wakeAt(ctx.key, WAKE_TIMER_KIND, armAtMs, ctx.ports.clock.nowMs());
    return true;
  } catch (err) {
    errors.push(`arm wake-up: ${errorText(err)}`);
    return false;
  }
}

type HistoryInput = { outcome: Outcome; records: readonly ActionRecord[]; plan: Plan | undefined; schedule: Schedule };

/**
 * Appends the step's history record, unless the step changed nothing: no action attempted and the
 * same outcome as the last step (a healthy cluster's periodic step writes only its lease). History is
 * an audit trail, not state: a failed append is logged, not retried.
 */
async function appendHistory(ctx: StepContext, input: HistoryInput, errors: string[]): Promise<boolean> {
  const { outcome, records } = input;
  // A step a person asked for is always recorded: the history says who asked, even when nothing changed.
  const requestedBy = ctx.trigger.requestedBy;
  const changed = requestedBy !== undefined || records.length > 0 || outcome.kind === 'fail' || ctx.claimed.lastStep?.outcome !== outcome.kind;
  if (!changed) return false;
  const record: HistoryRecord = {
    atMs: ctx.startedAtMs,
    fence: ctx.fence,
    trigger: ctx.trigger.reason,
    outcome: outcome.kind,
    actions: records.map((r) => `${r.description}: ${r.result}${r.error === undefined ? '' : ` (${r.error})`}`),
    durationMs: ctx.ports.clock.nowMs() - ctx.startedAtMs,
    reconcileId: ctx.reconcileId,
    ...(requestedBy === undefined ? {} : { requestedBy: { arn: requestedBy.arn, username: requestedBy.username } }),
    detail: {
      outcome: describeOutcome(outcome),
      rules: (input.plan?.ruleResults ?? []).map((r) => `${r.rule}=${r.outcome.kind}`),
      failures: input.schedule.failures,
    },
  };
  try {
    await ctx.ports.state.appendHistory(ctx.key, record, ctx.config.historyTtlSeconds, { signal: ctx.commitSignal });
    return true;
  } catch (err) {
    errors.push(`append history: ${errorText(err)}`);
    return false;
  }
}

/**
 * Forgets the key under the step's fence (TTL as long as history's, so the state item goes with the
 * last record of its cluster) and cancels its long wake-up timer. `failed` when the store could not be
 * reached: the trigger is then redelivered so a later step forgets it; a lost lease (`ConflictError`)
 * means a newer step owns the key and decides for itself. A failed cancel is only logged: the timer
 * that fires later is ignored (`runStep`).
 */
async function forgetKey(ctx: StepContext, errors: string[]): Promise<'forgotten' | 'lost-lease' | 'failed'> {
  const expiresAtSeconds = Math.floor(ctx.ports.clock.nowMs() / 1000) + ctx.config.historyTtlSeconds;
  try {
    await ctx.ports.state.forget(ctx.key, ctx.owner, ctx.fence, expiresAtSeconds, { signal: ctx.commitSignal });
  } catch (err) {
    errors.push(`forget: ${errorText(err)}`);
    return err instanceof ConflictError ? 'lost-lease' : 'failed';
  }
  try {
    await ctx.ports.timers.cancel(ctx.key, WAKE_TIMER_KIND);
  } catch (err) {
    errors.push(`cancel wake-up: ${errorText(err)}`);
  }
  return 'forgotten';
}

async function releaseLease(
  ctx: StepContext,
  outcome: Outcome,
  kept: { failures: number; nextWakeAtMs: number | undefined; verified: VerifiedCluster | undefined; healthAtMs: number | undefined; persistedRead: number | undefined },
  errors: string[],
): Promise<{ state: ReleaseState; wasDirty: boolean }> {
  const { failures, nextWakeAtMs, verified, healthAtMs, persistedRead } = kept;
  const message = describeOutcome(outcome).slice(0, 500);
  const lastStep = { atMs: ctx.startedAtMs, outcome: outcome.kind, reconcileId: ctx.reconcileId, message, ...(verified ? { verified } : {}), ...(healthAtMs === undefined ? {} : { healthAtMs }), ...(persistedRead === undefined ? {} : { persistedRead }) };
  try {
    const update = { failures, nextWakeAtMs, lastStep };
    const opts = { signal: ctx.commitSignal };
    const { wasDirty } = await ctx.ports.state.release(ctx.key, ctx.owner, ctx.fence, update, opts);
    return { state: 'released', wasDirty };
  } catch (err) {
    errors.push(`release: ${errorText(err)}`);
    // A newer step claimed the expired lease: it owns the key now and will commit its own view.
    return { state: err instanceof ConflictError ? 'lost-lease' : 'failed', wasDirty: false };
  }
}

/**
 * The health check this step leaves pending (docs/adr/0024), for a step that completed on a cluster
 * the next step may read at rest: the one already pending, else a new one `healthIntervalMs` ahead
 * (a delayed message; a health step consumes its own, so the chain goes on). Undefined — none
 * pending — when health checks are off or the message could not be sent (the next step or the
 * sweep arms one).
 */
async function armHealthCheck(ctx: StepContext, errors: string[]): Promise<number | undefined> {
  const intervalMs = ctx.config.healthIntervalMs ?? 0;
  if (intervalMs <= 0) return undefined;
  const nowMs = ctx.ports.clock.nowMs();
  const pending = ctx.claimed.lastStep?.healthAtMs;
  const consumed = isHealthTrigger(ctx.trigger) && ctx.trigger.dueAtMs === pending;
  if (!consumed && pending !== undefined && pending + HEALTH_PENDING_GRACE_MS > nowMs) return pending;
  const dueAtMs = nowMs + intervalMs;
  const message = { key: ctx.key, reason: HEALTH_REASON, enqueuedAtMs: nowMs, dueAtMs };
  try {
    await ctx.ports.queue.send([{ message, delaySeconds: Math.ceil(intervalMs / 1000) }]);
    return dueAtMs;
  } catch (err) {
    errors.push(`arm health check: ${errorText(err)}`);
    return undefined;
  }
}

/** The one extra step for every trigger that arrived during this one (client-go's dirty set). */
async function reEnqueue(ctx: StepContext, errors: string[]): Promise<boolean> {
  const message = { key: ctx.key, reason: DIRTY_REASON, enqueuedAtMs: ctx.ports.clock.nowMs() };
  try {
    await ctx.ports.queue.send([{ message }]);
    return true;
  } catch (err) {
    errors.push(`re-enqueue: ${errorText(err)}`);
    return false;
  }
}
