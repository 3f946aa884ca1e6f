/**
 * The catch-up phase of a session (at-rest.ts, docs/adr/0030): each watch loop drains once — one
 * short watch from its checkpoint — and then waits here. When the last loop has drained, the gate
 * decides once: `quiet` when nothing was forwarded nor is pending (the session then ends), `busy`
 * otherwise (every loop goes on watching for the rest of the period, a full session).
 */
import type { SessionVerdict } from './at-rest.js';

/** Loops that drain, and the decision they wait for. */
export class CatchUpGate {
  private readonly drainedLoops = new Set<string>();
  private decision: SessionVerdict | undefined;
  private resolveDecision: (verdict: SessionVerdict) => void = () => undefined;
  /** Resolves with the decision, once every loop has drained. */
  readonly decided: Promise<SessionVerdict>;

  constructor(
    private readonly loops: readonly string[],
    /** Whether the session forwarded anything or has anything pending, asked once at the decision. */
    private readonly isBusy: () => boolean,
  ) {
    this.decided = new Promise<SessionVerdict>((resolve) => (this.resolveDecision = resolve));
  }

  /** Whether `loop` is still to drain: its next watch is the short catch-up watch. */
  isDraining(loop: string): boolean {
    return this.decision === undefined && !this.drainedLoops.has(loop);
  }

  /** The decision, if made. */
  get verdict(): SessionVerdict | undefined {
    return this.decision;
  }

  /**
   * Records that `loop` drained (its catch-up watch ended, or its kind is not served) and returns
   * the decision once every loop has; a loop that drains after the decision gets it at once.
   */
  drained(loop: string): Promise<SessionVerdict> {
    this.drainedLoops.add(loop);
    if (this.decision === undefined && this.loops.every((l) => this.drainedLoops.has(l))) {
      this.decision = this.isBusy() ? 'busy' : 'quiet';
      this.resolveDecision(this.decision);
    }
    return this.decided;
  }
}
