/**
 * The exporter on Lambda: every scheduled invocation runs one watch session for its session length
 * (EXPORTER_SESSION_MINUTES, the schedule's period, default 15) or its remaining time, whichever is
 * shorter, minus a safety margin, resuming from the checkpoints, and stops cleanly before the
 * function timeout. Nothing long-lived is needed: the schedule restarts it every period, and the
 * checkpoint carries the position from one session to the next; each watch resumes there (a LIST
 * only on 410 Gone or without a checkpoint) and stays open for the whole session — or, with
 * EXPORTER_AT_REST=catch-up and the last session quiet, drains for seconds and ends (at-rest.ts).
 */
import { Metrics as PtMetrics } from '@aws-lambda-powertools/metrics';
import { type Clock, RealClock } from '../platform/clock.js';
import type { Env } from '../platform/config.js';
import { type Logger, PowertoolsLogger } from '../platform/logger.js';
import type { ReconcileQueue } from '../queue/port.js';
import type { StateStore } from '../state/port.js';
import { parseExporterEnv, type ExporterSettings } from './config.js';
import { KubeWatchSource } from './kube-source.js';
import type { ExporterCounts } from './metrics.js';
import { PowertoolsExporterMetrics } from './metrics.js';
import type { ExporterMetrics, WatchSource } from './ports.js';
import { SessionRunner } from './session.js';
import type { SessionPlan, SessionVerdict } from './at-rest.js';
import { realEnds } from './wiring.js';

/** The ports of the Lambda exporter; `source` is built per session, bounded by its deadline. */
export type LambdaExporterPorts = {
  clock: Clock;
  logger: Logger;
  queue: ReconcileQueue;
  state: StateStore;
  source: (deadlineAtMs: number) => WatchSource;
  metrics?: ExporterMetrics & { flush?: () => void };
};

/** What one invocation returns (and logs): its budget, what it did, and where it stopped. */
export type SessionSummary = {
  runForMs: number;
  ranForMs: number;
  counts: ExporterCounts;
  positions: Record<string, string>;
  /** What the session was planned as and how it went (at-rest.ts). */
  plan: SessionPlan;
  verdict: SessionVerdict;
};

/** The settings a session uses (see `ExporterSettings`). */
export type LambdaSessionSettings = Pick<
  ExporterSettings,
  'k8sCluster' | 'resources' | 'flushWindowMs' | 'checkpointIntervalMs' | 'watchTimeoutSeconds' | 'safetyMarginMs' | 'sessionMs'
> &
  Partial<Pick<ExporterSettings, 'atRest'>>;

/** Runs sessions one invocation at a time, keeping the previous session's carry (warm containers). */
export class LambdaExporter {
  private readonly runner = new SessionRunner();

  constructor(
    private readonly ports: LambdaExporterPorts,
    private readonly settings: LambdaSessionSettings,
  ) {}

  /**
   * One session for `min(remainingMs, sessionMs) − safetyMarginMs`. Guarantees: returns before the invocation's
   * time is up by at least the margin, less the final send and checkpoint; with no time left it
   * returns at once having read nothing.
   */
  async run(remainingMs: number): Promise<SessionSummary> {
    const { clock, logger } = this.ports;
    const s = this.settings;
    const runForMs = Math.floor(Math.min(remainingMs, s.sessionMs) - s.safetyMarginMs);
    const deps = { clock, logger, queue: this.ports.queue, state: this.ports.state, source: this.ports.source(clock.nowMs() + runForMs), metrics: this.ports.metrics };
    const result = await this.runner.run(deps, {
      k8sCluster: s.k8sCluster,
      resources: s.resources,
      flushWindowMs: s.flushWindowMs,
      checkpointIntervalMs: s.checkpointIntervalMs,
      watchTimeoutSeconds: s.watchTimeoutSeconds,
      runForMs,
      atRest: { mode: s.atRest ?? 'watch', periodMs: s.sessionMs },
    });
    const summary = { runForMs, ranForMs: result.ranForMs, counts: result.counts, positions: result.positions, plan: result.plan, verdict: result.verdict };
    logger.info('exporter session ended', summary);
    this.ports.metrics?.flush?.();
    return summary;
  }
}

/** The Lambda exporter wired to the real ends from `env`; throws `ConfigError` naming every problem. */
export function lambdaExporterFromEnv(env: Env): LambdaExporter {
  const settings = parseExporterEnv(env, 'lambda');
  const clock = new RealClock();
  const ends = realEnds(settings, clock);
  const logger = new PowertoolsLogger({ serviceName: 'tidb-reconciler-exporter' });
  const metrics = new PowertoolsExporterMetrics(new PtMetrics({ namespace: 'TidbReconciler', serviceName: 'tidb-reconciler-exporter' }));
  const source = (deadlineAtMs: number): WatchSource => new KubeWatchSource(ends.kubeConfig, { clock, deadlineAtMs });
  return new LambdaExporter({ clock, logger, queue: ends.queue, state: ends.state, source, metrics }, settings);
}
