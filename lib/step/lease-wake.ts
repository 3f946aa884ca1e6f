/**
 * Lease-expiry wake-ups: how a trigger that finds the lease held survives a holder that died.
 *
 * A trigger that finds the lease held marks the key dirty; a live holder re-enqueues the key when it
 * releases. A dead holder never releases, so the first trigger per held lease (the claim elects it,
 * `armExpiryWake`) also sends a delayed message, `lease:<fence>`, due when the lease ends. On
 * arrival the wake-up steps the key only if that same lease is still recorded (its holder died
 * without releasing); a lease that was released or taken over makes it a cheap no-op (one read), so
 * a live holder costs no extra step. A crashed step therefore costs at most its lease.
 */

import type { StepConfig } from '../platform/config.js';
import { MAX_DELAY_SECONDS } from '../queue/port.js';
import type { StateRecord } from '../state/port.js';
import { errorText } from './error-outcome.js';
import type { StepPorts, Trigger } from './ports.js';

/** The reason prefix of a lease-expiry wake-up; the fence of the lease it watches follows. */
export const LEASE_WAKE_PREFIX = 'lease:';

/** The fence a lease-expiry wake-up watches, or undefined for any other trigger. */
export function leaseWakeFence(trigger: Trigger): number | undefined {
  if (!trigger.reason.startsWith(LEASE_WAKE_PREFIX)) return undefined;
  const fence = Number(trigger.reason.slice(LEASE_WAKE_PREFIX.length));
  return Number.isSafeInteger(fence) && fence > 0 ? fence : undefined;
}

/** Whether `trigger` is a lease-expiry wake-up. */
export function isLeaseWake(trigger: Trigger): boolean {
  return leaseWakeFence(trigger) !== undefined;
}

/**
 * Whether a wake-up for `fence` has nothing left to do at `nowMs`: the key was never claimed, the
 * last step released its lease (and re-enqueued the key if it was dirty), or a newer step holds a
 * lease that has not expired (if that step dies, its own records come back when its lease ends).
 * A newer step's lease that expired unreleased means that step died too — e.g. the step this
 * wake-up started, whose record came back — so the key is stepped.
 */
export function leaseWakeIsSuperseded(state: StateRecord | undefined, fence: number, nowMs: number): boolean {
  if (state === undefined || state.lease === undefined) return true;
  return state.fence !== fence && state.lease.untilMs > nowMs;
}

/** The held lease a trigger found, as the claim reported it. */
export type HeldLease = { readonly fence: number; readonly leaseUntilMs: number };

/** Whether an armed wake-up was sent (`atMs`) or the error that prevented it. */
export type ArmResult = { readonly atMs: number } | { readonly error: string };

/**
 * Sends the wake-up for `held`, due at the lease's end (SQS delays are whole seconds, rounded up, so
 * it is never early; a lease longer than SQS's 15-minute delay wakes early and re-arms). Never throws.
 */
export async function armLeaseWake(ports: StepPorts, key: string, held: HeldLease): Promise<ArmResult> {
  const nowMs = ports.clock.nowMs();
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((held.leaseUntilMs - nowMs) / 1000)));
  const message = { key, reason: `${LEASE_WAKE_PREFIX}${held.fence}`, enqueuedAtMs: nowMs };
  try {
    await ports.queue.send([{ message, delaySeconds }]);
    return { atMs: nowMs + delaySeconds * 1000 };
  } catch (err) {
    return { error: `arm lease-expiry wake-up: ${errorText(err)}` };
  }
}

/**
 * The time budget a step may use: the caller's, but never past its lease (less the safety margin, so
 * the commit lands while the lease is still its own). Safety must not rest on the function timeout.
 */
export function leaseBoundBudget(budgetMs: number, config: StepConfig): number {
  return Math.min(budgetMs, config.leaseForMs - config.safetyMarginMs);
}
