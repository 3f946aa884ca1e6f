/**
 * Holding a step's records for its lease: how a crashed step with no other trigger costs at most its
 * lease, not the queue's visibility timeout.
 *
 * A received record stays invisible for the queue's visibility timeout (370 s as deployed); a step
 * that dies with its invocation leaves its record to come back only then, and its lease (120 s) has
 * long expired by that time. So a step that claims the lease sets its records' visibility to the
 * lease's end plus a margin (`ChangeMessageVisibility`, issued alongside observe). Should the
 * invocation die, the record comes back just after the lease has expired and its redelivery claims
 * at once; a step that ends normally has its record deleted as before (one extra SQS call, no extra
 * step). A visibility change that fails is not fatal: the record then comes back after the visibility
 * timeout, as it would without this.
 */

import { MAX_VISIBILITY_SECONDS } from '../queue/port.js';
import { errorText } from './error-outcome.js';
import type { StepPorts, Trigger } from './ports.js';

/**
 * Seconds past the lease's end at which a held record becomes visible again, so that its redelivery
 * finds the lease expired even when the queue's and the state store's clocks differ by a little.
 */
export const HOLD_MARGIN_SECONDS = 2;

/** What holding came to: nothing to hold, the records held until `untilMs`, or the failures. */
export type HoldResult =
  | { readonly held: 0 }
  | { readonly held: number; readonly untilMs: number }
  | { readonly held: number; readonly untilMs: number; readonly errors: readonly string[] };

/**
 * The visibility timeout that makes a record received at `nowMs` reappear after a lease ending at
 * `leaseUntilMs`: whole seconds, rounded up, plus the margin, within SQS's 0–43 200 s. A lease longer
 * than 12 h is cut to the maximum; its record then finds the lease held and arms the lease's expiry
 * wake-up like any other trigger.
 */
export function holdVisibilitySeconds(leaseUntilMs: number, nowMs: number): number {
  const remaining = Math.max(0, Math.ceil((leaseUntilMs - nowMs) / 1000));
  return Math.min(MAX_VISIBILITY_SECONDS, remaining + HOLD_MARGIN_SECONDS);
}

/**
 * Makes the trigger's records reappear just after `leaseUntilMs`. Never throws; each failed change
 * is logged at warn level and returned (that record keeps the queue's visibility timeout).
 */
export async function holdRecordsForLease(ports: StepPorts, key: string, trigger: Trigger, leaseUntilMs: number): Promise<HoldResult> {
  const handles = trigger.receiptHandles ?? [];
  if (handles.length === 0) return { held: 0 };
  const nowMs = ports.clock.nowMs();
  const seconds = holdVisibilitySeconds(leaseUntilMs, nowMs);
  const settled = await Promise.allSettled(handles.map((h) => ports.queue.changeVisibility(h, seconds)));
  const errors = settled.flatMap((s) => (s.status === 'rejected' ? [`hold record for the lease: ${errorText(s.reason)}`] : []));
  const untilMs = nowMs + seconds * 1000;
  if (errors.length === 0) return { held: handles.length, untilMs };
  ports.logger.warn('record not held for the lease: it comes back after the visibility timeout', { key, errors });
  return { held: handles.length - errors.length, untilMs, errors };
}
