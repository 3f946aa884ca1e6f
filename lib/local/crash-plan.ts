/**
 * The `step-crash` fault's bookkeeping: which reconcile invocation is running, how many writes it
 * has sent, and the plan that kills the next ones (docs/SCENARIOS.md, faults).
 */
import { ApiError } from '../sim/api-error.js';
import type { MortalRuntime } from './mortal.js';

/**
 * A crash plan: the next `times` invocations die after `afterActions` reconciler writes each; with
 * `afterActions` 0, at their first write request, before it reaches the API server (nothing applied).
 */
export type CrashPlan = { afterActions: number; times: number };

/** The running invocation, its writes, and the crash plan (see the module comment). */
export class InvocationCrashes {
  /** The plan of the `step-crash` fault, until every planned invocation died. */
  plan: CrashPlan | undefined;
  /** Reconciler writes seen during the current invocation. */
  writes = 0;
  /** The reconcile invocation running now, if any. */
  current: MortalRuntime | undefined;

  /** A new invocation `mortal` starts (undefined: it ended). */
  begin(mortal: MortalRuntime | undefined): void {
    this.current = mortal;
    this.writes = 0;
  }

  /**
   * A write request of an invocation planned to die before its first write: the invocation dies and
   * the request is refused unapplied (its dead sender never sees the answer).
   */
  dieBeforeWrite(method: string): ApiError | undefined {
    const mortal = this.current;
    const plan = this.plan;
    if (!mortal || method === 'GET' || !plan || plan.afterActions !== 0 || plan.times <= 0) return undefined;
    this.spend(plan);
    mortal.kill();
    return new ApiError(503, 'ServiceUnavailable', 'the sending invocation died before this request was sent');
  }

  /** A write the running invocation made: it dies once it made as many as the plan allows. */
  countWrite(): void {
    const mortal = this.current;
    if (!mortal) return;
    this.writes++;
    const plan = this.plan;
    if (plan && plan.afterActions > 0 && plan.times > 0 && this.writes >= plan.afterActions) {
      this.spend(plan);
      mortal.kill();
    }
  }

  private spend(plan: CrashPlan): void {
    plan.times--;
    if (plan.times === 0) this.plan = undefined;
  }
}
