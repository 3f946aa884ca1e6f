/**
 * The exporter as a long-lived process (infra/k8s/exporter.yaml runs it as `node exporter.mjs`, a
 * bundle of this file): watch until SIGTERM or SIGINT, then stop cleanly — pending triggers sent,
 * checkpoints written — within the pod's termination grace period. One replica is enough and
 * safe: two would each send (duplicates are harmless) and the checkpoint is last-writer-wins.
 */
import { pathToFileURL } from 'node:url';
import { type Clock, RealClock } from '../platform/clock.js';
import type { Env } from '../platform/config.js';
import { type Logger, PowertoolsLogger } from '../platform/logger.js';
import { errorText } from './checkpoints.js';
import { parseExporterEnv } from './config.js';
import { Exporter } from './exporter.js';
import { KubeWatchSource } from './kube-source.js';
import { type ExporterEnds, realEnds } from './wiring.js';

/** How often the daemon logs its counters and loop states (its metrics, for log-based alarms). */
export const STATS_INTERVAL_MS = 60_000;

/** What the daemon runs on; the defaults are the process's own. */
export type DaemonOptions = {
  env?: Env;
  clock?: Clock;
  logger?: Logger;
  /** Resolves when the process should stop (default: the first SIGTERM or SIGINT). */
  stopWhen?: Promise<unknown>;
  /** The API server, queue and table to use instead of the ones the settings name. */
  ends?: ExporterEnds;
};

/**
 * Runs the exporter until `stopWhen`, logging its counters every `STATS_INTERVAL_MS`. Throws
 * `ConfigError` (naming every bad variable) before watching anything when the environment is wrong.
 */
export async function runDaemon(options: DaemonOptions = {}): Promise<void> {
  const settings = parseExporterEnv(options.env ?? process.env, 'daemon');
  const clock = options.clock ?? new RealClock();
  const logger = options.logger ?? new PowertoolsLogger({ serviceName: 'tidb-reconciler-exporter' });
  const ends = options.ends ?? realEnds(settings, clock);
  const exporter = new Exporter(
    { source: new KubeWatchSource(ends.kubeConfig, { clock }), queue: ends.queue, state: ends.state, clock, logger },
    {
      k8sCluster: settings.k8sCluster,
      resources: settings.resources,
      flushWindowMs: settings.flushWindowMs,
      checkpointIntervalMs: settings.checkpointIntervalMs,
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    },
  );
  exporter.start();
  let statsTimer = clock.setTimer(function logStats() {
    logger.info('exporter stats', { counts: exporter.stats(), loops: exporter.status() });
    statsTimer = clock.setTimer(logStats, STATS_INTERVAL_MS);
  }, STATS_INTERVAL_MS);
  await (options.stopWhen ?? signalled());
  clock.clearTimer(statsTimer);
  await exporter.stop();
}

function signalled(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}

/** True when this module is the process's entry point (`node exporter.mjs`), not an import. */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && import.meta.url === pathToFileURL(entry).href;
}

if (isEntryPoint()) {
  runDaemon().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(JSON.stringify({ level: 'ERROR', message: 'exporter failed', error: errorText(err) }));
      process.exit(1);
    },
  );
}
