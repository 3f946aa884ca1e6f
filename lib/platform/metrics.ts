/**
 * The Metrics port: counts and durations per step (steps, outcomes, duration, lease contention,
 * queue lag, actions). `PowertoolsMetrics` emits CloudWatch EMF through
 * `@aws-lambda-powertools/metrics`; `MemoryMetrics` sums them for tests and `simulate`.
 */

import { Metrics as PtMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** Every metric the reconciler emits; a closed list so dashboards and code cannot drift apart. */
export const METRIC = {
  /** Steps that held the lease and ran (one per claimed step). */
  steps: 'Steps',
  /** Steps by outcome. */
  stepsComplete: 'StepsComplete',
  stepsWait: 'StepsWait',
  stepsRetry: 'StepsRetry',
  stepsFailed: 'StepsFailed',
  stepsTerminal: 'StepsTerminal',
  /** Wall time of a step, claim to release. */
  stepDuration: 'StepDuration',
  /** Triggers that found the lease held (the key was marked dirty instead). */
  leaseContention: 'LeaseContention',
  /** Time from a trigger's enqueue to its step's start. */
  queueLag: 'QueueLag',
  actionsExecuted: 'ActionsExecuted',
  actionsFailed: 'ActionsFailed',
  /** Keys re-enqueued because a trigger arrived during their step. */
  stepsReEnqueued: 'StepsReEnqueued',
  /** Steps whose bookkeeping failed (claim or commit) and whose trigger is left for redelivery. */
  stepErrors: 'StepErrors',
  /** Steps the API budget deferred (re-enqueued to start when their EKS cluster's budget has room, docs/adr/0028). */
  stepsDeferred: 'StepsDeferred',
  /** Keys the sweep enqueued. */
  sweepEnqueued: 'SweepEnqueued',
  /** Reconcile messages and timer payloads that could not be parsed (left for the dead-letter queue). */
  malformedMessages: 'MalformedMessages',
  /** Fleet health, once per sweep: TidbClusters listed, not Ready, paused, and keys whose last step failed. */
  fleetClusters: 'FleetClusters',
  fleetNotReady: 'FleetNotReady',
  fleetPaused: 'FleetPaused',
  fleetFailing: 'FleetFailing',
} as const;

/** A metric name from `METRIC`. */
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** Where metrics go. Implementations never throw: metrics must not fail a step. */
export interface Metrics {
  /** Adds `value` (default 1) to a count. */
  count(name: MetricName, value?: number): void;
  /** Records one duration in milliseconds. */
  milliseconds(name: MetricName, ms: number): void;
  /** Writes what was recorded (the entry point calls it once per invocation). */
  flush(): void;
}

/** Settings of the Powertools metrics; both also come from POWERTOOLS_* environment variables. */
export type PowertoolsMetricsOptions = { namespace?: string; serviceName?: string };

/** `Metrics` as CloudWatch embedded metric format lines on stdout, via Powertools. */
export class PowertoolsMetrics implements Metrics {
  /** The underlying Powertools metrics, for middy's `logMetrics`. */
  readonly powertools: PtMetrics;

  constructor(options: PowertoolsMetricsOptions | PtMetrics = {}) {
    this.powertools =
      options instanceof PtMetrics
        ? options
        : new PtMetrics({
            namespace: options.namespace ?? 'TidbReconciler',
            serviceName: options.serviceName ?? 'tidb-reconciler',
          });
  }

  count(name: MetricName, value = 1): void {
    this.powertools.addMetric(name, MetricUnit.Count, value);
  }

  milliseconds(name: MetricName, ms: number): void {
    this.powertools.addMetric(name, MetricUnit.Milliseconds, ms);
  }

  flush(): void {
    if (this.powertools.hasStoredMetrics()) this.powertools.publishStoredMetrics();
  }
}

/** `Metrics` in memory: sums of counts and lists of durations, by name. */
export class MemoryMetrics implements Metrics {
  readonly counts = new Map<MetricName, number>();
  readonly durations = new Map<MetricName, number[]>();

  count(name: MetricName, value = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + value);
  }

  milliseconds(name: MetricName, ms: number): void {
    const list = this.durations.get(name) ?? [];
    list.push(ms);
    this.durations.set(name, list);
  }

  flush(): void {
    // Nothing to write: the numbers stay readable until the test or report looks at them.
  }

  /** The sum of a count (0 when never counted). */
  total(name: MetricName): number {
    return this.counts.get(name) ?? 0;
  }
}

/** A `Metrics` that drops everything. */
export const silentMetrics: Metrics = { count: () => undefined, milliseconds: () => undefined, flush: () => undefined };
