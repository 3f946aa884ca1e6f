/**
 * What every stage of one claimed step shares: who and what the step is, its ports and settings, its
 * fence, the state and deadlines it claimed, and its time budget as two abort signals.
 */

import type { ClusterKey, ClusterRef } from '../model/key.js';
import type { Clock } from '../platform/clock.js';
import type { StepConfig } from '../platform/config.js';
import { TransientError } from '../platform/errors.js';
import type { StateRecord, StoreIdRecord, StoredDeadline } from '../state/port.js';
import type { StepPorts, Trigger } from './ports.js';

/**
 * One claimed step. `workSignal` aborts when only the safety margin of the budget is left (observe and
 * act calls stop there); `commitSignal` aborts at the end of the budget (commit gets the margin).
 */
export type StepContext = {
  readonly key: ClusterKey;
  readonly ref: ClusterRef;
  readonly trigger: Trigger;
  readonly owner: string;
  readonly reconcileId: string;
  readonly ports: StepPorts;
  readonly config: StepConfig;
  readonly startedAtMs: number;
  readonly deadlineAtMs: number;
  readonly fence: number;
  readonly claimed: StateRecord;
  /** The key's deadlines as of the claim (they live in the state item, so the claim returns them). */
  readonly deadlines: readonly StoredDeadline[];
  /** The store each store pod was last seen running, as of the claim (also in the state item). */
  readonly storeIds: readonly StoreIdRecord[];
  readonly workSignal: AbortSignal;
  readonly commitSignal: AbortSignal;
};

/** Whether less than the safety margin of the step's budget is left: time to stop acting and commit. */
export function isOutOfBudget(ctx: StepContext): boolean {
  return ctx.deadlineAtMs - ctx.ports.clock.nowMs() < ctx.config.safetyMarginMs;
}

/** A step's budget as signals on the step's clock (virtual in tests), and how to stop their timers. */
export type Budget = { workSignal: AbortSignal; commitSignal: AbortSignal; dispose(): void };

/** Arms the budget's two signals; `dispose` must be called when the step ends. */
export function startBudget(clock: Clock, budgetMs: number, safetyMarginMs: number): Budget {
  const work = new AbortController();
  const commit = new AbortController();
  const exhausted = (what: string) => new TransientError(`step time budget exhausted (${what})`);
  const workTimer = clock.setTimer(() => work.abort(exhausted('safety margin reached')), budgetMs - safetyMarginMs);
  const commitTimer = clock.setTimer(() => commit.abort(exhausted('budget ended')), budgetMs);
  return {
    workSignal: work.signal,
    commitSignal: commit.signal,
    dispose() {
      clock.clearTimer(workTimer);
      clock.clearTimer(commitTimer);
    },
  };
}
