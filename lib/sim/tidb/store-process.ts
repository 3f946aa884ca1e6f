/**
 * What TiKV and TiFlash processes share: connect to PD (retrying while PD has no leader), register
 * the store for their data directory (the same store again on the same PVC; a tombstoned store or
 * an address still held by another live store makes the process exit, as PD refuses them), then
 * heartbeat every `storeHeartbeatMs` while PD has a leader. Stopping ends the heartbeats, so PD
 * sees the store go Disconnected, then Down. With a CA in their `[security]` config (cluster TLS)
 * they serve their ports as TLS listeners, and exit at start when a named file is missing.
 */
import type { ProcessHooks } from '../runtime.js';
import type { PdCluster } from './pd-cluster.js';
import type { PdStore } from './pd-stores.js';
import type { PodInfo } from './pod-info.js';
import { type ServingTls, type TlsPaths } from './container-files.js';
import { TidbProcess } from './process.js';
import type { SimContext } from './sim-context.js';
import { pdClusterOf } from './pd-address.js';

/** Base of the processes that own a PD store. */
export abstract class StoreProcess extends TidbProcess {
  protected readonly cluster: PdCluster;
  protected store: PdStore | undefined;
  /** Whether the ports serve TLS, as the `[security]` config says. */
  protected readonly tls: ServingTls = { tls: false };

  constructor(
    sim: SimContext,
    pod: PodInfo,
    hooks: ProcessHooks,
    private readonly engine: 'tikv' | 'tiflash',
  ) {
    super(sim, pod, hooks);
    this.cluster = sim.clusters.at(pdClusterOf(pod)).pd;
    if (this.crashOnBadConfig()) return;
    this.tls = this.servingTls(this.tlsPaths());
    if (this.tls.problem === undefined) this.after(sim.knobs.processBootMs, () => this.connect());
  }

  /** The store this process registered, once it has. */
  get registeredStore(): PdStore | undefined {
    return this.store;
  }

  /** `<pod>.<peer service>.<ns>.svc:<port>`. */
  protected host(port: number): string {
    return `${this.pod.name}.${this.pod.subdomain}.${this.pod.namespace}.svc:${port}`;
  }

  /** The store's advertised address and status address. */
  protected abstract addresses(): { address: string; statusAddress: string };

  /** The certificate files the server's `[security]` config names. */
  protected abstract tlsPaths(): TlsPaths;

  /** The store labels the process starts with. */
  protected abstract initialLabels(): { key: string; value: string }[];

  /** Starts serving once the store is registered. */
  protected abstract onRegistered(store: PdStore): void;

  protected onEnd(): void {
    if (this.store) this.cluster.stores.setAlive(this.store, false);
  }

  private connect(): void {
    if (!this.cluster.hasLeader()) {
      this.status = 'waiting for PD';
      this.after(1000, () => this.connect());
      return;
    }
    const { address, statusAddress } = this.addresses();
    const info = { dataUid: this.pod.dataUid, podName: this.pod.name, address, statusAddress, version: this.pod.version.replace(/^v/, ''), engine: this.engine, labels: this.initialLabels(), capacityBytes: this.pod.capacityBytes };
    const result = this.cluster.registerStore(info);
    if ('refused' in result) {
      const retry = result.refused.status === 503 || result.refused.message.includes('not bootstrapped');
      if (!retry) return this.crash(result.refused.message);
      this.status = `waiting for PD: ${result.refused.message}`;
      this.after(1000, () => this.connect());
      return;
    }
    this.store = result.ok;
    this.status = 'serving';
    this.onRegistered(result.ok);
    this.after(this.sim.knobs.storeHeartbeatMs, () => this.heartbeat());
  }

  private heartbeat(): void {
    // As TiKV: PD answers a tombstoned store's heartbeat with an error and the process exits.
    if (this.store?.meta === 'Tombstone') return this.crash(`store ${this.store.id} has been removed`);
    if (this.store && this.cluster.hasLeader()) this.cluster.stores.heartbeat(this.store);
    this.after(this.sim.knobs.storeHeartbeatMs, () => this.heartbeat());
  }
}

/** `server.labels` of a TiKV/TiFlash config as PD store labels. */
export function configLabels(pod: PodInfo): { key: string; value: string }[] {
  const config = 'ok' in pod.config ? pod.config.ok : {};
  const server = (config.server ?? {}) as Record<string, unknown>;
  const labels = (server.labels ?? {}) as Record<string, unknown>;
  return Object.entries(labels).map(([key, value]) => ({ key, value: String(value) }));
}
