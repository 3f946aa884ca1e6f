/**
 * What the admin function reports about a step and about a key's persisted state: small, readable
 * JSON (action descriptions rather than whole objects; the lease owner and times, never more).
 */

import type { OutcomeKind } from '../model/outcome.js';
import { describeOutcome } from '../reconcile/engine/outcome.js';
import type { StateRecord, StepSummary } from '../state/port.js';
import type { StepDisposition, StepResult } from '../step/result.js';

/** One step as the admin function reports it. */
export type StepReport = {
  readonly reconcileId: string;
  readonly disposition: StepDisposition;
  readonly outcome?: OutcomeKind;
  readonly detail?: string;
  readonly fence?: number;
  readonly actions: readonly string[];
  readonly statusWritten: boolean;
  readonly nextWakeAtMs?: number;
  readonly errors?: readonly string[];
};

/** The step's report: outcome, each action with its result, and errors when there were any. */
export function toStepReport(result: StepResult): StepReport {
  return {
    reconcileId: result.reconcileId,
    disposition: result.disposition,
    ...(result.outcome ? { outcome: result.outcome.kind, detail: describeOutcome(result.outcome) } : {}),
    ...(result.fence === undefined ? {} : { fence: result.fence }),
    actions: result.actions.map((a) => `${a.description}: ${a.result}${a.error === undefined ? '' : ` (${a.error})`}`),
    statusWritten: result.statusWritten,
    ...(result.nextWakeAtMs === undefined ? {} : { nextWakeAtMs: result.nextWakeAtMs }),
    ...(result.errors.length > 0 ? { errors: result.errors } : {}),
  };
}

/** A key's persisted state as the admin function reports it. */
export type StateSummary = {
  readonly fence: number;
  readonly lease: { readonly owner: string; readonly untilMs: number } | null;
  readonly dirty: boolean;
  readonly failures: number;
  readonly nextWakeAtMs: number | null;
  readonly lastStep: StepSummary | null;
};

/** The state record without its key (the answer names it already); absent values as null. */
export function summariseState(state: StateRecord): StateSummary {
  return {
    fence: state.fence,
    lease: state.lease ?? null,
    dirty: state.dirty,
    failures: state.failures,
    nextWakeAtMs: state.nextWakeAtMs ?? null,
    lastStep: state.lastStep ?? null,
  };
}
