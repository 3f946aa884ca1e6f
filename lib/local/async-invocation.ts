/**
 * Lambda's asynchronous invocation, as the EventBridge schedule of the sweep gets it, driven on a
 * virtual clock: each event is one invocation; a function error is retried twice, one minute after
 * the first attempt and two minutes after the second (Lambda's default for asynchronous
 * invocations), then the event is dropped. The schedule's next event is independent of these
 * retries, so the next interval runs anyway. Attempts run when the runner asks (`runDue`), never
 * from a timer callback, so virtual time cannot run ahead of an invocation.
 */
import type { Clock } from '../platform/clock.js';

/** Lambda's default retry delays of an asynchronous invocation that returned an error. */
export const ASYNC_RETRY_DELAYS_MS: readonly number[] = [60_000, 120_000];

/** A failed attempt: its number (0 is the event's first), the error, and when it is retried next (if at all). */
export type AsyncFailure = { readonly attempt: number; readonly error: string; readonly retryInMs: number | undefined };

/** Queues events for one function and runs due attempts with Lambda's retries. */
export class AsyncInvoker {
  private readonly due: number[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly invoke: () => Promise<unknown>,
    private readonly onFailure: (failure: AsyncFailure) => void,
    private readonly retryDelaysMs: readonly number[] = ASYNC_RETRY_DELAYS_MS,
  ) {}

  /** One new event: its first attempt is due now. */
  enqueue(): void {
    this.due.push(0);
  }

  /** Whether an attempt is due now. */
  hasDue(): boolean {
    return this.due.length > 0;
  }

  /** Runs every attempt due now, in order; a failed one is reported and, if retries are left, re-armed. */
  async runDue(): Promise<void> {
    for (const attempt of this.due.splice(0)) {
      try {
        await this.invoke();
      } catch (err) {
        const retryInMs = this.retryDelaysMs[attempt];
        if (retryInMs !== undefined) this.clock.setTimer(() => this.due.push(attempt + 1), retryInMs);
        this.onFailure({ attempt, error: err instanceof Error ? err.message : String(err), retryInMs });
      }
    }
  }
}
