/**
 * The pure arithmetic of a step's commit: the new failure counter, when the key wants to be woken, and
 * whether a timer must be armed for it. Three rules, each from the workqueue contract (docs/ARCHITECTURE.md, Queue semantics):
 *
 * 1. Failures reset to 0 on complete, wait and retry (success and deliberate requeue, controller-runtime
 *    #392); +1 on a retryable fail; unchanged on a terminal fail (it schedules no retry to back off).
 * 2. The backoff-window rule (kubernetes#132805): a step runs *inside a backoff window* when the last
 *    step failed (`failures > 0`, last outcome `fail`), its backoff wake-up has not come yet
 *    (`nowMs < nextWakeAtMs`) and it was not woken by a timer. If such a step fails again, the counter
 *    stays and the armed wake-up stays: only a step at or after its backoff deadline, or a timer-woken
 *    step (Scheduler may fire up to a minute early), counts a failure. Events can make a failing key
 *    run more often, never back off longer.
 * 3. Wake-ups only move earlier (client-go `AddAfter`). The stored `nextWakeAtMs` is the earliest
 *    armed wake-up; it is still pending unless it is due or this step is a timer's wake-up (then it
 *    was consumed, possibly early). A timer is armed only for a time earlier than the pending one, or
 *    when none is pending; a later wish waits for the pending wake-up, whose step asks again.
 */

import type { BackoffPolicy } from '../model/config.js';
import type { Outcome } from '../model/outcome.js';
import type { StateRecord } from '../state/port.js';
import { backoffDelayMs } from './backoff.js';
import { isTimerTrigger, type Trigger } from './ports.js';

/** What the commit arithmetic looks at. `claimed` is the key's state as the claim returned it. */
export type ScheduleInput = {
  readonly outcome: Outcome;
  readonly planWakeAtMs: number | undefined;
  readonly nowMs: number;
  readonly claimed: Pick<StateRecord, 'failures' | 'nextWakeAtMs' | 'lastStep'>;
  readonly trigger: Trigger;
  readonly backoff: BackoffPolicy;
  readonly random: () => number;
};

/**
 * The commit's decisions. `wantWakeAtMs`: when this step wants the key woken. `pendingWakeAtMs`: the
 * wake-up armed earlier and not yet consumed. `armAtMs`: the timer to arm now, if any.
 * `storeWakeAtMs`: the earliest armed wake-up once that is done (what the release records).
 */
export type Schedule = {
  readonly failures: number;
  readonly inBackoffWindow: boolean;
  readonly wantWakeAtMs: number | undefined;
  readonly pendingWakeAtMs: number | undefined;
  readonly armAtMs: number | undefined;
  readonly storeWakeAtMs: number | undefined;
};

/** Rule 2: whether this step runs inside the backoff window of an earlier failure. */
export function isInBackoffWindow(input: Pick<ScheduleInput, 'claimed' | 'nowMs' | 'trigger'>): boolean {
  const { claimed, nowMs, trigger } = input;
  return (
    claimed.failures > 0 &&
    claimed.lastStep?.outcome === 'fail' &&
    claimed.nextWakeAtMs !== undefined &&
    nowMs < claimed.nextWakeAtMs &&
    !isTimerTrigger(trigger)
  );
}

/**
 * Rule 3, seen from a timer's wake-up: whether it was replaced. A wake-up due at `dueAtMs` is
 * replaced when the stored wake-up (`nextWakeAtMs`) is later than it and still to come: a step ran
 * after it was armed — a timer's step that consumed it or a copy of it, or a step that saw it due
 * — and armed the stored one from a newer look at the world. As client-go's `AddAfter`, a key has
 * one pending wake-up: the replaced one is dropped, so duplicate wake-ups do not each start a
 * chain of steps. A wake-up that does not say when it was due is never taken for replaced.
 */
export function isReplacedWake(claimed: Pick<StateRecord, 'nextWakeAtMs'> | undefined, trigger: Trigger, nowMs: number): boolean {
  const stored = claimed?.nextWakeAtMs;
  const due = trigger.dueAtMs;
  return isTimerTrigger(trigger) && due !== undefined && stored !== undefined && stored > due && stored > nowMs;
}

/** Rule 3: the wake-up armed before this step that will still arrive, if any. */
export function pendingWakeAtMs(input: Pick<ScheduleInput, 'claimed' | 'nowMs' | 'trigger'>): number | undefined {
  const at = input.claimed.nextWakeAtMs;
  return at !== undefined && at > input.nowMs && !isTimerTrigger(input.trigger) ? at : undefined;
}

/** All three rules; see the module comment. */
export function planSchedule(input: ScheduleInput): Schedule {
  const inBackoffWindow = isInBackoffWindow(input);
  const failures = planFailures(input.outcome, input.claimed.failures, inBackoffWindow);
  const wantWakeAtMs = planWantWake(input, failures, inBackoffWindow);
  const pending = pendingWakeAtMs(input);
  const isEarlier = wantWakeAtMs !== undefined && (pending === undefined || wantWakeAtMs < pending);
  return {
    failures,
    inBackoffWindow,
    wantWakeAtMs,
    pendingWakeAtMs: pending,
    armAtMs: isEarlier ? wantWakeAtMs : undefined,
    storeWakeAtMs: earliest(pending, wantWakeAtMs),
  };
}

/** Rule 1 (with rule 2's exception). */
export function planFailures(outcome: Outcome, failures: number, inBackoffWindow: boolean): number {
  switch (outcome.kind) {
    case 'complete':
    case 'wait':
    case 'retry':
      return 0;
    case 'fail':
      return outcome.terminal || inBackoffWindow ? failures : failures + 1;
    default: {
      const never: never = outcome;
      throw new TypeError(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}

function planWantWake(input: ScheduleInput, failures: number, inBackoffWindow: boolean): number | undefined {
  const { outcome, nowMs } = input;
  // A terminal failure schedules nothing at all: retrying cannot help until the input changes.
  if (outcome.kind === 'fail' && outcome.terminal) return undefined;
  let at: number | undefined;
  if (outcome.kind === 'retry') at = nowMs + outcome.afterMs;
  else if (outcome.kind === 'fail') {
    // Inside the window the armed backoff wake-up stands; a new backoff would only be later.
    at = inBackoffWindow ? input.claimed.nextWakeAtMs : nowMs + backoffDelayMs(failures, input.backoff, input.random);
  }
  return earliest(at, input.planWakeAtMs);
}

/** The earlier of two optional times. */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
