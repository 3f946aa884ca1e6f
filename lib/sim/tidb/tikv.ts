/**
 * A TiKV server process: registers its store at `<pod>.<tc>-tikv-peer.<ns>.svc:20160` (status
 * address :20180) and serves the status port, where `/metrics` carries
 * `tikv_raftstore_region_count{type="leader"|"region"}` — the leader count TiDB Operator polls
 * while evicting leaders before a restart. Like TiKV's, the gauge is not live: the region
 * collector sets it on a 10 s timer (`metricsFlushMs`; tikv components/raftstore/src/coprocessor/
 * region_info_accessor.rs, `RegionCollector::on_timeout`, METRICS_FLUSH_INTERVAL = 10 s), so it
 * shows the counts of the last flush, and a process younger than one interval has no sample. Under cluster TLS (`security.ca-path` and friends) both
 * ports are TLS listeners, as TiKV's status server uses the same security config as its gRPC.
 */
import type { ProcessHooks } from '../runtime.js';
import { configString, type TlsPaths } from './container-files.js';
import { text } from './http.js';
import type { PdStore } from './pd-stores.js';
import type { PodInfo } from './pod-info.js';
import type { SimContext } from './sim-context.js';
import { StoreProcess, configLabels } from './store-process.js';

/** One TiKV process. */
export class TikvProcess extends StoreProcess {
  /** The region collector's last flush of the gauge; none before the first. */
  private gauge: { leaders: number; regions: number } | undefined;

  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks, 'tikv');
    this.after(sim.knobs.metricsFlushMs, () => this.flushMetrics());
  }

  /** The region collector's timer: the gauge takes the store's counts now, then again an interval later. */
  private flushMetrics(): void {
    const store = this.registeredStore;
    if (store) this.gauge = { leaders: this.cluster.book.leaderCount(store.id), regions: this.cluster.book.regionCount(store.id) };
    this.after(this.sim.knobs.metricsFlushMs, () => this.flushMetrics());
  }

  protected addresses(): { address: string; statusAddress: string } {
    return { address: this.host(20160), statusAddress: this.host(20180) };
  }

  protected tlsPaths(): TlsPaths {
    const at = (key: string): string => configString(this.pod, `security.${key}-path`);
    return { ca: at('ca'), cert: at('cert'), key: at('key') };
  }

  protected initialLabels(): { key: string; value: string }[] {
    return configLabels(this.pod);
  }

  protected onRegistered(store: PdStore): void {
    // 20160 is gRPC; an HTTP request to it gets nothing useful, but the port is open.
    const tls = { tls: this.tls.tls };
    this.listen(20160, () => text(404, '', false), tls);
    this.listen(20180, (req) => {
      if (req.method === 'GET' && req.path === '/metrics') return { status: 200, body: this.metrics(store), contentType: 'text/plain; version=0.0.4; charset=utf-8' };
      if (req.method === 'GET' && req.path === '/status') return text(200, '', false);
      return text(404, '', false);
    }, tls);
  }

  /** The Prometheus exposition of the region counts this store's raftstore last collected. */
  private metrics(store: PdStore): string {
    const gauge = this.gauge;
    const counts = gauge
      ? [
          '# HELP tikv_raftstore_region_count Number of regions collected in region_collector',
          '# TYPE tikv_raftstore_region_count gauge',
          `tikv_raftstore_region_count{type="buckets"} ${gauge.regions}`,
          `tikv_raftstore_region_count{type="leader"} ${gauge.leaders}`,
          `tikv_raftstore_region_count{type="region"} ${gauge.regions}`,
        ]
      : [];
    return [
      ...counts,
      '# HELP tikv_store_size_bytes Size of storage.',
      '# TYPE tikv_store_size_bytes gauge',
      `tikv_store_size_bytes{type="capacity"} ${store.capacityBytes}`,
      '',
    ].join('\n');
  }
}
