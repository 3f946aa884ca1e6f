/**
 * The kubelet's container restart back-off (CrashLoopBackOff), in one place. As the kubelet:
 * `pkg/kubelet/kuberuntime/kuberuntime_manager.go` (`doBackOff`) keys a `flowcontrol.Backoff`
 * (client-go `util/flowcontrol/backoff.go`) per container, created with 10 s initial and 300 s
 * maximum (`pkg/kubelet/kubelet.go`: `backOffPeriod`, `MaxContainerBackOff`). When a container has
 * exited, `IsInBackOffSince(key, finishedAt)` holds while `now - finishedAt < delay`; otherwise the
 * kubelet calls `Next(key, finishedAt)` and restarts it. `Next` starts a fresh entry at 10 s and
 * doubles a live one up to 300 s; an entry not stepped for twice the maximum (10 minutes) has
 * expired (`hasExpired`) and counts as fresh. So the first exit restarts at once, later ones wait
 * 10 s, 20 s, 40 s … 300 s, and a container that ran 10 minutes since the last restart starts over.
 * (The real Backoff adds no jitter for the kubelet's entries; neither does this.)
 */

/** The first back-off delay (flowcontrol.Backoff's initial duration in the kubelet). */
export const CRASH_BACKOFF_INITIAL_MS = 10_000;
/** The longest back-off delay (the kubelet's MaxContainerBackOff). */
export const CRASH_BACKOFF_MAX_MS = 300_000;

/**
 * One container's back-off entry. Guarantees: `restartAtMs` answers when an exited container may
 * start again, and `restarted` steps the entry exactly as the kubelet does when it restarts it.
 */
export class CrashBackoff {
  private delayMs = 0;
  private steppedAtMs: number | undefined;

  /** The current delay (0 before the first restart): what the CrashLoopBackOff message shows. */
  get currentDelayMs(): number {
    return this.delayMs;
  }

  /**
   * When a container that exited at `finishedAtMs` may restart: at once when the entry is fresh or
   * expired (not in back-off), else `finishedAtMs` plus the current delay.
   */
  restartAtMs(finishedAtMs: number): number {
    return this.isLive(finishedAtMs) ? finishedAtMs + this.delayMs : finishedAtMs;
  }

  /** Whether a container that exited at `finishedAtMs` is still waiting at `nowMs` (IsInBackOffSince). */
  isInBackOff(finishedAtMs: number, nowMs: number): boolean {
    return this.isLive(finishedAtMs) && nowMs - finishedAtMs < this.delayMs;
  }

  /**
   * The kubelet restarts at `nowMs` the container that exited at `finishedAtMs` (Backoff.Next with
   * the exit as its event time): fresh or expired → 10 s, live → doubled up to 300 s.
   */
  restarted(finishedAtMs: number, nowMs: number): void {
    this.delayMs = this.isLive(finishedAtMs) ? Math.min(this.delayMs * 2, CRASH_BACKOFF_MAX_MS) : CRASH_BACKOFF_INITIAL_MS;
    this.steppedAtMs = nowMs;
  }

  // hasExpired: an entry last stepped more than 2 × max ago no longer counts.
  private isLive(atMs: number): boolean {
    return this.steppedAtMs !== undefined && atMs - this.steppedAtMs <= 2 * CRASH_BACKOFF_MAX_MS;
  }
}
