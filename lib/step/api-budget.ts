/**
 * A step honours its EKS cluster's API request budget (docs/adr/0028): before it claims, it reserves
 * `stepRequests` of the budget (lib/budget); when the reservation starts later than now, the trigger
 * is sent again, delayed to that start and carrying it (`budgetAtMs`), and the step ends `deferred`.
 * The delayed message steps without reserving again, so a deferred step is never dropped and never
 * retried against the budget: it waits its turn once.
 *
 * Not budgeted: health checks (they ask the API server nothing at rest, docs/adr/0024) and an
 * operator's request (`admin:`, a person waits for it). A budget whose store fails does not stop
 * steps: the step runs (logged), as the claim that follows needs the same table.
 */
import { parseObjectKey } from '../model/object-key.js';
import { MAX_DELAY_SECONDS } from '../queue/port.js';
import { errorText } from './error-outcome.js';
import { isHealthTrigger, type StepPorts, type Trigger } from './ports.js';
import { unclaimedResult, type StepIdentity, type StepResult } from './result.js';
import type { RunStepInput } from './run-step.js';

/** Whether `trigger`'s step is charged to the budget (see the module comment). */
export function isBudgeted(trigger: Trigger): boolean {
  return !isHealthTrigger(trigger) && !trigger.reason.startsWith('admin:') && trigger.requestedBy === undefined;
}

/**
 * The whole seconds to defer a step whose reservation starts at `startAtMs`: 0 when it may start now,
 * else the wait rounded up (SQS delays are whole seconds), at most SQS's longest delay — a longer
 * wait comes back early and is deferred again, to the same reservation.
 */
export function deferSeconds(startAtMs: number, nowMs: number): number {
  const waitMs = startAtMs - nowMs;
  return waitMs <= 0 ? 0 : Math.min(MAX_DELAY_SECONDS, Math.ceil(waitMs / 1000));
}

/**
 * The step's result when the budget defers it (its trigger sent again, or left for redelivery when
 * that send failed), undefined when it may run now.
 */
export async function deferForBudget(input: RunStepInput, identity: StepIdentity, signal: AbortSignal): Promise<StepResult | undefined> {
  const { ports, trigger, key } = input;
  const rate = input.config.apiBudget;
  if (ports.apiBudget === undefined || rate === undefined || rate.requestsPerSecond <= 0 || !isBudgeted(trigger)) return undefined;
  const nowMs = ports.clock.nowMs();
  const startAtMs = trigger.budgetAtMs ?? (await reserve(ports, key, rate, nowMs, signal));
  if (startAtMs === undefined) return undefined;
  const delaySeconds = deferSeconds(startAtMs, nowMs);
  if (delaySeconds === 0) return undefined;
  const message = {
    key,
    reason: trigger.reason,
    enqueuedAtMs: trigger.enqueuedAtMs ?? nowMs,
    budgetAtMs: startAtMs,
    ...(trigger.dueAtMs === undefined ? {} : { dueAtMs: trigger.dueAtMs }),
    ...(trigger.checkTidbOperator ? { checkTidbOperator: true as const } : {}),
  };
  const deferred = unclaimedResult(identity, ports.clock.nowMs(), 'deferred', undefined);
  try {
    await ports.queue.send([{ message, delaySeconds }]);
    return deferred;
  } catch (err) {
    // Not sent: the trigger comes back by redelivery and reserves afresh (this reservation is spent).
    return { ...deferred, redeliver: true, errors: [`defer for the API budget: ${errorText(err)}`] };
  }
}

/** Reserves the step's requests; undefined (run now) when the budget's store fails. */
async function reserve(ports: StepPorts, key: string, rate: NonNullable<RunStepInput['config']['apiBudget']>, nowMs: number, signal: AbortSignal): Promise<number | undefined> {
  const parsed = parseObjectKey(key);
  if (!parsed.ok || ports.apiBudget === undefined) return undefined;
  try {
    return await ports.apiBudget.reserve(parsed.ref.k8sCluster, rate.stepRequests, nowMs, rate, { signal });
  } catch (err) {
    ports.logger.warn('the API budget could not be reserved; the step runs unbudgeted', { key, error: errorText(err) });
    return undefined;
  }
}
