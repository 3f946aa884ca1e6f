/**
 * What the step engine runs for one kind: a controller, as TiDB Operator's controller manager runs a
 * TidbCluster, a Backup and a Restore controller side by side. The engine sequences the same stages
 * for every kind — claim → observe → decide → act → commit, one lease, one fence, one wake-up and
 * one failure counter per key — and a controller only says how its kind is read and decided:
 * `observe` (reads, through ports the controller was built with), `decide` (pure), and what of the
 * observation the commit needs. Actions go through the one Executor; nothing here knows a kind.
 */

import type { FailOutcome } from '../model/outcome.js';
import type { ControllerKind } from '../model/object-key.js';
import type { TidbCluster } from '../model/kube.js';
import type { Plan } from '../model/plan.js';
import type { VerifiedCluster } from '../state/port.js';
import type { StepContext } from './context.js';
import { outcomeForError } from './error-outcome.js';

/** An observation, or the failure that prevented it (the step then commits that failure). */
export type ControllerObservation<S> =
  | { readonly ok: true; readonly snapshot: S }
  | { readonly ok: false; readonly outcome: FailOutcome };

/**
 * What the commit takes from an observation: the TidbCluster whose status subresource a plan's
 * `status` replaces (only the TidbCluster controller has one: the other kinds declare no status
 * subresource, their status goes out as full-object updates among the plan's actions), whether the
 * object is gone (the key is then forgotten), and the TidbCluster the observation verified.
 */
export type CommitSubject = {
  readonly cluster: TidbCluster | undefined;
  readonly gone: boolean;
  readonly verified?: VerifiedCluster;
};

/**
 * One controller. Guarantees the engine relies on: `observe` never throws (use `observeWith`), reads
 * only, and stops when `ctx.workSignal` aborts; `decide` is pure and may throw only on a bug (the
 * engine turns that into a retryable failure with no actions).
 */
export interface Controller<S = unknown> {
  readonly kind: ControllerKind;
  observe(ctx: StepContext): Promise<ControllerObservation<S>>;
  decide(snapshot: S): Plan;
  subject(snapshot: S): CommitSubject;
}

/** The controllers of one deployment by kind; a kind without one is refused at the step (`rejected`). */
export type ControllerSet = Readonly<Partial<Record<ControllerKind, Controller>>>;

/** Runs `read` into an observation: a thrown error becomes a `fail` outcome (terminal for `TerminalError`). */
export async function observeWith<S>(read: () => Promise<S>): Promise<ControllerObservation<S>> {
  try {
    return { ok: true, snapshot: await read() };
  } catch (err) {
    return { ok: false, outcome: outcomeForError(err, 'observe') };
  }
}
