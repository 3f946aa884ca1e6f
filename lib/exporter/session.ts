/**
 * The exporter as a bounded session: run the core for a time budget, then stop cleanly (pending
 * triggers sent, checkpoints written). This is how it runs on Lambda, started every 15 minutes: each
 * session resumes from the checkpoints the previous one left, and in a warm container also reuses
 * its fingerprints when it resumes exactly where that one stopped.
 */
import { Exporter, type ExporterCarry, type ExporterDeps, type ExporterOptions } from './exporter.js';
import { CountingMetrics, type ExporterCounts } from './metrics.js';

/** What a session did. `positions` are the resourceVersions read up to, by resource. */
export type SessionResult = {
  ranForMs: number;
  counts: ExporterCounts;
  positions: Record<string, string>;
  carry: ExporterCarry;
};

/** Session settings: the core's options, without the deadline, which the session sets. */
export type SessionOptions = Omit<ExporterOptions, 'deadlineAtMs'> & {
  /** How long to watch before stopping; the caller keeps a margin for the final flush. */
  runForMs: number;
};

/**
 * Runs one session of `runForMs` on `deps.clock`. Guarantees: no watch is asked to outlive the
 * session; `stop` runs at the deadline even if every watch is failing; the result lists what was
 * read and counted. A budget of zero or less still loads nothing and returns at once.
 */
export async function runExporterSession(deps: ExporterDeps, options: SessionOptions): Promise<SessionResult> {
  const { clock } = deps;
  const startedAtMs = clock.nowMs();
  if (!(options.runForMs > 0)) {
    deps.logger.warn('exporter session skipped: no time left', { runForMs: options.runForMs });
    return { ranForMs: 0, counts: new CountingMetrics().totals(), positions: {}, carry: options.carry ?? new Map() };
  }
  const deadlineAtMs = startedAtMs + options.runForMs;
  const exporter = new Exporter(deps, { ...options, deadlineAtMs });
  exporter.start();
  await new Promise<void>((resolve) => clock.setTimer(resolve, deadlineAtMs - clock.nowMs()));
  await exporter.stop();
  return {
    ranForMs: clock.nowMs() - startedAtMs,
    counts: exporter.stats(),
    positions: Object.fromEntries(exporter.positions()),
    carry: exporter.carry(),
  };
}

/**
 * Consecutive sessions in one process (a warm Lambda container): each gets the carry of the one
 * before. The carry is only a hint — the core ignores it unless the stored checkpoint matches.
 * Ports are passed per session, so each can be bounded by that invocation's deadline.
 */
export class SessionRunner {
  private carry: ExporterCarry | undefined;

  /** Runs one session with the previous session's carry. */
  async run(deps: ExporterDeps, options: Omit<SessionOptions, 'carry'>): Promise<SessionResult> {
    const result = await runExporterSession(deps, { ...options, ...(this.carry ? { carry: this.carry } : {}) });
    this.carry = result.carry;
    return result;
  }
}
