/**
 * Adapters of the exporter's metrics port: a counting wrapper that keeps totals (for `stats()`, the
 * daemon's periodic log line and tests) and forwards to another port, and a CloudWatch EMF adapter
 * over Powertools for the Lambda session.
 */
import { MetricUnit, type Metrics as PtMetrics } from '@aws-lambda-powertools/metrics';
import { EXPORTER_METRIC, type ExporterMetricName, type ExporterMetrics, silentExporterMetrics } from './ports.js';

/** Every exporter counter by its key in `EXPORTER_METRIC` (0 when never counted). */
export type ExporterCounts = { -readonly [K in keyof typeof EXPORTER_METRIC]: number };

/** Counts into totals, and forwards every count to `next`. */
export class CountingMetrics implements ExporterMetrics {
  private readonly sums = new Map<ExporterMetricName, number>();

  constructor(private readonly next: ExporterMetrics = silentExporterMetrics) {}

  count(name: ExporterMetricName, value = 1): void {
    this.sums.set(name, (this.sums.get(name) ?? 0) + value);
    this.next.count(name, value);
  }

  /** A copy of the totals. */
  totals(): ExporterCounts {
    const out = {} as ExporterCounts;
    for (const [key, name] of Object.entries(EXPORTER_METRIC) as [keyof typeof EXPORTER_METRIC, ExporterMetricName][]) out[key] = this.sums.get(name) ?? 0;
    return out;
  }
}

/**
 * Counts as CloudWatch embedded-metric lines through Powertools. Counts are summed here and handed
 * to Powertools once per name at `flush` (the session's end): one event per `addMetric` call would
 * mean thousands of values per metric and an EMF line every hundred of them.
 */
export class PowertoolsExporterMetrics implements ExporterMetrics {
  private readonly sums = new Map<ExporterMetricName, number>();

  constructor(private readonly metrics: PtMetrics) {}

  count(name: ExporterMetricName, value = 1): void {
    this.sums.set(name, (this.sums.get(name) ?? 0) + value);
  }

  /** Writes the sums counted since the last flush, and starts again from zero. */
  flush(): void {
    try {
      for (const [name, sum] of this.sums) this.metrics.addMetric(name, MetricUnit.Count, sum);
      if (this.metrics.hasStoredMetrics()) this.metrics.publishStoredMetrics();
    } catch {
      // Metrics must never fail the invocation.
    } finally {
      this.sums.clear();
    }
  }
}
