/**
 * The exporter as a bounded session: run the core for a time budget, then stop cleanly (pending
 * triggers sent, checkpoints written). This is how it runs on Lambda, started every 15 minutes: each
 * session resumes from the checkpoints the previous one left, and in a warm container also reuses
 * its fingerprints when it resumes exactly where that one stopped. With a mode at rest of
 * `catch-up` (at-rest.ts, docs/adr/0030) a session after a quiet one only catches up: it drains its
 * watches for seconds and returns when nothing was forwarded.
 */
import { errorText } from './checkpoints.js';
import { type AtRestSettings, CATCH_UP_WATCH_SECONDS, coverageStaleMs, planSession, readLastSession, type SessionPlan, type SessionVerdict, writeLastSession } from './at-rest.js';
import { Exporter, type ExporterCarry, type ExporterDeps, type ExporterOptions } from './exporter.js';
import { CountingMetrics, type ExporterCounts } from './metrics.js';

/** What a session did. `positions` are the resourceVersions read up to, by resource. */
export type SessionResult = {
  ranForMs: number;
  counts: ExporterCounts;
  positions: Record<string, string>;
  carry: ExporterCarry;
  /** What the session was planned as (at-rest.ts) and how it went. */
  plan: SessionPlan;
  verdict: SessionVerdict;
};

/** Session settings: the core's options, without the deadline, which the session sets. */
export type SessionOptions = Omit<ExporterOptions, 'deadlineAtMs'> & {
  /** How long to watch before stopping; the caller keeps a margin for the final flush. */
  runForMs: number;
  /** The mode at rest and the schedule's period (at-rest.ts); default watching, as always. */
  atRest?: AtRestSettings;
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
    return { ranForMs: 0, counts: new CountingMetrics().totals(), positions: {}, carry: options.carry ?? new Map(), plan: 'full', verdict: 'busy' };
  }
  const deadlineAtMs = startedAtMs + options.runForMs;
  const plan = await planNextSession(deps, options.k8sCluster, options.atRest);
  const exporter = new Exporter(deps, { ...options, deadlineAtMs, ...sessionOptions(plan, options.atRest) });
  exporter.start();
  let timer: ReturnType<typeof clock.setTimer> | undefined;
  // A catch-up that forwarded nothing ends as soon as its watches drained.
  await Promise.race([new Promise<void>((resolve) => (timer = clock.setTimer(resolve, deadlineAtMs - clock.nowMs()))), exporter.whenQuiet()]);
  if (timer !== undefined) clock.clearTimer(timer);
  await exporter.stop();
  const verdict = await recordSession(deps, options.k8sCluster, options.atRest, exporter);
  return {
    ranForMs: clock.nowMs() - startedAtMs,
    counts: exporter.stats(),
    positions: Object.fromEntries(exporter.positions()),
    carry: exporter.carry(),
    plan,
    verdict,
  };
}

/**
 * The plan of a session about to start: full unless catching up after a quiet session
 * (at-rest.ts `planSession`); a verdict that cannot be read is none (a full session).
 */
export async function planNextSession(deps: Pick<ExporterDeps, 'state' | 'logger'>, k8sCluster: string, atRest: AtRestSettings | undefined): Promise<SessionPlan> {
  if (atRest === undefined || atRest.mode === 'watch') return 'full';
  try {
    return planSession(atRest.mode, await readLastSession(deps.state, k8sCluster));
  } catch (err) {
    deps.logger.warn('exporter: the last session\'s verdict could not be read; watching the whole session', { error: errorText(err) });
    return 'full';
  }
}

/** The core's options for a session of `plan`: the catch-up's short watches, the marks' staleness. */
export function sessionOptions(plan: SessionPlan, atRest: AtRestSettings | undefined): Pick<ExporterOptions, 'catchUpSeconds' | 'coverageStaleMs'> {
  const staleness = atRest === undefined ? {} : { coverageStaleMs: coverageStaleMs(atRest.mode, atRest.periodMs) };
  return plan === 'catch-up' ? { ...staleness, catchUpSeconds: CATCH_UP_WATCH_SECONDS } : staleness;
}

/**
 * Records a stopped session's verdict for the next one's plan, when catching up. A failed write is
 * logged, never thrown: the next session plans from the older verdict (and a catch-up that finds
 * anything to forward stays for its whole period anyway). Returns the verdict.
 */
export async function recordSession(deps: Pick<ExporterDeps, 'state' | 'logger'>, k8sCluster: string, atRest: AtRestSettings | undefined, exporter: Pick<Exporter, 'verdict'>): Promise<SessionVerdict> {
  const verdict = exporter.verdict();
  if (atRest?.mode !== 'catch-up') return verdict;
  try {
    await writeLastSession(deps.state, k8sCluster, verdict);
  } catch (err) {
    deps.logger.warn('exporter: the session\'s verdict was not written', { verdict, error: errorText(err) });
  }
  return verdict;
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
