/**
 * The sweep function's work: the engine's `runSweep` over every TidbCluster of the Kubernetes
 * cluster (listed page by page) and, when the exporter may have missed events, every unfinished
 * Backup, Restore and CompactBackup (object-lister.ts), then the fleet's health as metrics and one log line — how many
 * clusters, how many not Ready, paused, or failing (their last step failed; counted from the state
 * reads the sweep makes anyway).
 */

import { readCoverage, type WatchedUntil } from '../exporter/coverage.js';
import { METRIC } from '../platform/metrics.js';
import type { StateStore } from '../state/port.js';
import { runSweep, type ClusterLister } from '../step/sweep.js';
import { KubeClusterLister, type FleetTally } from './lister.js';
import { isObjectPager, KubeObjectKeyLister } from './object-lister.js';
import { deadlineOf, type Invocation, type Runtime } from './ports.js';

/** What one sweep did and saw. */
export type SweepSummary = {
  readonly listed: number;
  readonly enqueued: number;
  readonly dueSoon: number;
  /** Of those enqueued, how many for a health check only, and how many at rest were left alone (docs/adr/0024). */
  readonly checked: number;
  readonly atRest: number;
  readonly fleet: FleetTally & { readonly failing: number };
};

/**
 * Sweeps once. Guarantees: every TidbCluster is enqueued once or left to its wake-up due within
 * `SWEEP_DUE_WITHIN_MS`; listing or sending failures are thrown (the scheduler retries, and the next
 * interval sweeps again); the work stops when the invocation's time is spent; metrics are flushed.
 */
export async function sweepFleet(runtime: Runtime, invocation: Invocation): Promise<SweepSummary> {
  const deadlineAtMs = deadlineOf(runtime, invocation);
  const budget = new AbortController();
  const timer = runtime.clock.setTimer(() => budget.abort(), deadlineAtMs - runtime.clock.nowMs());
  try {
    const clients = runtime.clients.withDeadline(deadlineAtMs);
    const clusters = new KubeClusterLister(clients.kube, runtime.k8sCluster, runtime.logger, undefined, runtime.config.watchNamespaces);
    const objects = isObjectPager(clients.objects) ? new KubeObjectKeyLister(clients.objects, runtime.k8sCluster, runtime.logger, undefined, runtime.config.watchNamespaces) : undefined;
    const lister: ClusterLister = {
      listClusterKeys: (signal) => clusters.listClusterKeys(signal),
      listed: () => clusters.listed(),
      ...(objects ? { listObjectKeys: (signal?: AbortSignal) => objects.listKeys(signal) } : {}),
    };
    const failing = new Set<string>();
    const state: Pick<StateStore, 'getMany'> = {
      getMany: async (keys, opts) => {
        const records = await runtime.state.getMany(keys, opts);
        for (const [key, record] of records) if (record.lastStep?.outcome === 'fail') failing.add(key);
        return records;
      },
    };
    const { clock, logger, metrics, queue } = runtime;
    const watchedUntil = (signal?: AbortSignal): Promise<WatchedUntil | undefined> => readCoverage(runtime.state, runtime.k8sCluster, signal ? { signal } : {});
    const result = await runSweep({ lister, state, queue, clock, logger, metrics, watchedUntil }, runtime.config.sweep, budget.signal);
    const fleet = { ...clusters.tally, failing: failing.size };
    reportFleet(runtime, fleet);
    return { listed: result.listed, enqueued: result.enqueued.length, dueSoon: result.dueSoon.length, checked: result.checked.length, atRest: result.atRest.length, fleet };
  } finally {
    runtime.clock.clearTimer(timer);
    runtime.metrics.flush();
  }
}

function reportFleet(runtime: Runtime, fleet: SweepSummary['fleet']): void {
  const { metrics } = runtime;
  metrics.count(METRIC.fleetClusters, fleet.listed);
  metrics.count(METRIC.fleetNotReady, fleet.notReady);
  metrics.count(METRIC.fleetPaused, fleet.paused);
  metrics.count(METRIC.fleetFailing, fleet.failing);
  runtime.logger.info('fleet health', { ...fleet });
}
