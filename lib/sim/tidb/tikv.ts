/**
 * A TiKV server process: registers its store at `<pod>.<tc>-tikv-peer.<ns>.svc:20160` (status
 * address :20180) and serves the status port, where `/metrics` carries
 * `tikv_raftstore_region_count{type="leader"|"region"}` — the leader count TiDB Operator polls
 * while evicting leaders before a restart. Under cluster TLS (`security.ca-path` and friends) both
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
  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks, 'tikv');
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

  /** The Prometheus exposition of the region counts this store's raftstore collects. */
  private metrics(store: PdStore): string {
    const leaders = this.cluster.book.leaderCount(store.id);
    const regions = this.cluster.book.regionCount(store.id);
    return [
      '# HELP tikv_raftstore_region_count Number of regions collected in region_collector',
      '# TYPE tikv_raftstore_region_count gauge',
      'tikv_raftstore_region_count{type="buckets"} 0',
      `tikv_raftstore_region_count{type="leader"} ${leaders}`,
      `tikv_raftstore_region_count{type="region"} ${regions}`,
      '# HELP tikv_store_size_bytes Size of storage.',
      '# TYPE tikv_store_size_bytes gauge',
      `tikv_store_size_bytes{type="capacity"} ${store.capacityBytes}`,
      '',
    ].join('\n');
  }
}
