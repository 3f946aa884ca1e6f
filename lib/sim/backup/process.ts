/**
 * A simulated container process that runs a script on the virtual clock: the script is a generator
 * that yields how many milliseconds to wait before its next step, returns when the work is done
 * (exit 0) and throws to fail (exit 1, the error kept as the termination message). Killing the pod
 * stops it between two steps — nothing after that point happens, as when BR is killed mid-run.
 * A script waits for an in-world call (a MySQL exchange through the service proxy) by yielding a
 * `Pending` (`yield* awaiting(promise)`): the next step runs once the call settles.
 */
import type { Clock, TimerHandle } from '../../platform/clock.js';
import type { ProcessHooks, SimProcess } from '../runtime.js';

/** A call a script waits for; `result()` is its value once settled (throws its error). */
export class Pending<T> {
  private outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  /** Settles (never rejects) when the call does. */
  readonly settled: Promise<void>;

  constructor(promise: Promise<T>) {
    this.settled = promise.then(
      (value) => {
        this.outcome = { ok: true, value };
      },
      (error: unknown) => {
        this.outcome = { ok: false, error };
      },
    );
  }

  /** The call's value; throws its error, or when it has not settled yet. */
  result(): T {
    if (this.outcome === undefined) throw new Error('the call has not settled yet');
    if (!this.outcome.ok) throw this.outcome.error;
    return this.outcome.value;
  }
}

/** A process script: yields waits in ms, or calls to wait for. */
export type Script = Generator<number | Pending<unknown>, void, void>;

/** Waits inside a script for `promise`; its value (or its error, thrown). */
export function* awaiting<T>(promise: Promise<T>): Generator<Pending<unknown>, T, void> {
  const pending = new Pending(promise);
  yield pending;
  return pending.result();
}

/** Runs one script as a container's process. */
export class ScriptProcess implements SimProcess {
  private exit: { reason: string; exitCode: number } | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;
  /** Why the script failed, if it did (what the container would have printed last). */
  failure: string | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly hooks: ProcessHooks,
    private readonly script: Script,
  ) {
    // The first step runs on the clock, not inside the kubelet's sync that started the process.
    this.timer = clock.setTimer(() => this.step(), 0);
  }

  isReady(): boolean {
    return this.exit === undefined;
  }

  exitReason(): { reason: string; exitCode: number } | undefined {
    return this.exit;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimer(this.timer);
  }

  private step(): void {
    if (this.stopped || this.exit) return;
    try {
      const r = this.script.next();
      if (r.done) return this.finish(0);
      if (r.value instanceof Pending) {
        this.timer = undefined;
        void r.value.settled.then(() => this.step());
        return;
      }
      this.timer = this.clock.setTimer(() => this.step(), Math.max(0, r.value));
    } catch (err) {
      this.failure = err instanceof Error ? err.message : String(err);
      this.finish(1);
    }
  }

  private finish(exitCode: number): void {
    this.exit = { reason: exitCode === 0 ? 'Completed' : 'Error', exitCode };
    this.hooks.onChange();
  }
}
