/**
 * The exporter on a virtual clock, as the simulated stack runs it: either one core without a break
 * (the zero-latency model, `npm start`'s daemon), or one session a period as Lambda runs it
 * (serverless.yml: `rate(15 minutes)`, timeout 900 s; lib/exporter/lambda.ts watches for the time
 * left less its safety margin). Between two sessions no one watches; what changed meanwhile arrives when
 * the next session resumes from the checkpoints the last one wrote (its watch replays from there, or
 * it relists on 410 Gone), with the last session's fingerprints carried over as a warm container does.
 * With a mode at rest (`config.exporterAtRest`, docs/adr/0030) each session is planned as
 * lib/exporter/session.ts plans it: a catch-up after a quiet session ends once its watches drained.
 */
import type { Clock, TimerHandle } from '../platform/clock.js';
import type { AtRestSettings, ExporterAtRest, SessionPlan, SessionVerdict } from '../exporter/at-rest.js';
import { Exporter, type ExporterCarry, type ExporterDeps, type ExporterOptions } from '../exporter/exporter.js';
import { planNextSession, recordSession, sessionOptions } from '../exporter/session.js';
import { seededRandom } from '../queue/memory.js';
import { EXPORTER_SESSION_PERIOD_MS, type LatencyModel } from './latency.js';

/** What the simulated stack needs of its exporter. */
export type SimExporter = {
  start(): void;
  /** Whether nothing is in flight: every watch loop waiting for events or its backoff, no flush, no session stopping. */
  isIdle(): boolean;
  /** Stops for good: the running session (if any) sends what is pending and writes its checkpoints. */
  stop(): Promise<void>;
  /**
   * The `exporter-down` fault: no exporter runs for `forMs` (the function failing or throttled);
   * then it resumes as a cold container would, from the checkpoints the last session wrote.
   */
  down(forMs: number): void;
};

/** One session the schedule ran: its plan, when it started and stopped, and how it went (once stopped). */
export type SessionRecord = { readonly plan: SessionPlan; readonly startedAtMs: number; endedAtMs?: number; verdict?: SessionVerdict };

/** When sessions run: every `periodMs`, each watching all but the last `gapMs`; `phaseMs` into a period at the start. */
export type SessionSchedule = { readonly periodMs: number; readonly gapMs: number; readonly phaseMs: number };

/** One exporter core for the whole run (a new one, from the last one's checkpoints, after an `exporter-down`). */
export class ContinuousExporter implements SimExporter {
  private exporter: Exporter | undefined;
  private ending: Promise<void> | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly deps: ExporterDeps & { clock: Clock },
    private readonly options: ExporterOptions,
  ) {
    this.exporter = new Exporter(deps, options);
  }

  start(): void {
    this.exporter?.start();
  }

  isIdle(): boolean {
    if (this.ending) return false;
    return this.exporter === undefined || isExporterIdle(this.exporter);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    const exporter = this.exporter;
    this.exporter = undefined;
    await this.ending;
    await exporter?.stop();
  }

  down(forMs: number): void {
    const exporter = this.exporter;
    if (exporter === undefined) return;
    this.exporter = undefined;
    this.ending = exporter.stop().then(() => {
      this.ending = undefined;
    });
    this.timer = this.deps.clock.setTimer(() => {
      if (this.stopped) return;
      this.exporter = new Exporter(this.deps, { ...this.options, carry: exporter.carry() });
      this.exporter.start();
    }, forMs);
  }
}

/**
 * Sessions on the schedule: session k starts at `t0 − phaseMs + k × periodMs` and watches until
 * `periodMs − gapMs` after its start; the run begins inside session 0 when `phaseMs` falls before
 * its end, else in its gap.
 */
export class ScheduledExporterSessions implements SimExporter {
  private current: Exporter | undefined;
  private ending: Promise<void> | undefined;
  /** A session reading its plan (the last session's verdict) before it starts. */
  private planning: Promise<void> | undefined;
  private carry: ExporterCarry | undefined;
  private timer: TimerHandle | undefined;
  private endTimer: TimerHandle | undefined;
  private stopped = false;
  /** Until when no session starts (`exporter-down`). */
  private downUntilMs = 0;
  /** Sessions started so far. */
  sessions = 0;
  /** Every session started, in order (the cost model reads how long catch-ups take). */
  readonly log: SessionRecord[] = [];
  private record: SessionRecord | undefined;

  constructor(
    private readonly deps: ExporterDeps & { clock: Clock },
    private readonly options: Omit<ExporterOptions, 'deadlineAtMs' | 'carry'>,
    private readonly schedule: SessionSchedule,
    private readonly atRest?: AtRestSettings,
  ) {
    const { periodMs, gapMs, phaseMs } = schedule;
    if (!(periodMs > 0 && gapMs >= 0 && gapMs < periodMs && phaseMs >= 0 && phaseMs < periodMs)) {
      throw new RangeError(`exporter session schedule: need 0 ≤ gap < period and 0 ≤ phase < period, got period ${periodMs} ms, gap ${gapMs} ms, phase ${phaseMs} ms`);
    }
  }

  start(): void {
    const { periodMs, gapMs, phaseMs } = this.schedule;
    const now = this.deps.clock.nowMs();
    const firstStart = now - phaseMs;
    if (phaseMs < periodMs - gapMs) this.begin(firstStart + periodMs - gapMs);
    this.arm(firstStart + periodMs);
  }

  isIdle(): boolean {
    if (this.ending || this.planning) return false;
    return this.current === undefined || isExporterIdle(this.current);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    if (this.endTimer) this.deps.clock.clearTimer(this.endTimer);
    await this.planning;
    if (this.current) this.end();
    await this.ending;
  }

  down(forMs: number): void {
    this.downUntilMs = Math.max(this.downUntilMs, this.deps.clock.nowMs() + forMs);
    if (this.endTimer) this.deps.clock.clearTimer(this.endTimer);
    if (this.current) this.end();
  }

  /** Arms the session that starts at `atMs` (none while the exporter is down: the next after it). */
  private arm(atMs: number): void {
    this.timer = this.deps.clock.setTimer(() => {
      if (this.stopped) return;
      if (this.deps.clock.nowMs() < this.downUntilMs) return this.arm(atMs + this.schedule.periodMs);
      this.begin(atMs + this.schedule.periodMs - this.schedule.gapMs);
      this.arm(atMs + this.schedule.periodMs);
    }, Math.max(0, atMs - this.deps.clock.nowMs()));
  }

  /**
   * Starts a session that watches until `deadlineAtMs`, or, a catch-up, until its watches drained
   * with nothing to forward (as lib/exporter/session.ts runs one).
   */
  private begin(deadlineAtMs: number): void {
    this.sessions++;
    const planned = planNextSession(this.deps, this.options.k8sCluster, this.atRest).then((plan) => {
      this.planning = undefined;
      if (this.stopped || this.deps.clock.nowMs() < this.downUntilMs) return;
      const carry = this.carry ? { carry: this.carry } : {};
      const exporter = new Exporter(this.deps, { ...this.options, deadlineAtMs, ...carry, ...sessionOptions(plan, this.atRest) });
      this.current = exporter;
      this.record = { plan, startedAtMs: this.deps.clock.nowMs() };
      this.log.push(this.record);
      exporter.start();
      this.endTimer = this.deps.clock.setTimer(() => {
        if (this.current === exporter) this.end();
      }, Math.max(0, deadlineAtMs - this.deps.clock.nowMs()));
      void exporter.whenQuiet().then(() => {
        if (this.current !== exporter) return;
        if (this.endTimer) this.deps.clock.clearTimer(this.endTimer);
        this.end();
      });
    });
    this.planning = planned;
  }

  private end(): void {
    const exporter = this.current;
    const record = this.record;
    if (!exporter) return;
    this.current = undefined;
    this.ending = exporter.stop().then(async () => {
      this.carry = exporter.carry();
      const verdict = await recordSession(this.deps, this.options.k8sCluster, this.atRest, exporter);
      if (record) Object.assign(record, { endedAtMs: this.deps.clock.nowMs(), verdict });
      this.ending = undefined;
    });
  }
}

/** Every watch loop waiting for events or for its backoff (or stopped), no flush in flight. */
function isExporterIdle(exporter: Exporter): boolean {
  return !exporter.isFlushing() && Object.values(exporter.status()).every((s) => s === 'watching' || s === 'waiting' || s === 'drained' || s === 'stopped');
}

/**
 * The exporter of one simulated world: one session a period (`EXPORTER_SESSION_PERIOD_MS`, the run
 * starting at a seeded point of it, from `seed`) when the latency model has an exporter gap or the
 * mode at rest is `catch-up` (sessions are what catch up), else one core without a break.
 */
export function simExporter(deps: ExporterDeps & { clock: Clock }, options: Omit<ExporterOptions, 'deadlineAtMs' | 'carry'>, latency: LatencyModel, seed: number, mode: ExporterAtRest = 'watch'): SimExporter {
  const gapMs = latency.exporterGapMs;
  if (gapMs <= 0 && mode === 'watch') return new ContinuousExporter(deps, options);
  const periodMs = EXPORTER_SESSION_PERIOD_MS;
  const phaseMs = Math.floor(seededRandom(seed + 5)() * periodMs);
  return new ScheduledExporterSessions(deps, options, { periodMs, gapMs, phaseMs }, { mode, periodMs });
}
