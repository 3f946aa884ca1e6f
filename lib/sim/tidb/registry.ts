/**
 * The state of every simulated TiDB cluster, keyed by `namespace/instance` — the namespace of the
 * pods and their `app.kubernetes.io/instance` label, which is how PD, TiKV and the others find
 * each other in a real deployment (`<instance>-pd:2379`). A cluster's state outlives its pods, as
 * data on volumes does.
 */
import type { Clock } from '../../platform/clock.js';
import { CaptureRegistry } from './captures.js';
import type { TidbSimKnobs } from './knobs.js';
import { PdCluster } from './pd-cluster.js';
import type { PdContext } from './pd-context.js';
import { PumpRegistry } from './pumps.js';
import type { HeldLabels } from './server-labels.js';
import type { Rng } from './rng.js';
import { SqlAccounts } from './sql.js';

/**
 * TiDB's cluster-wide smooth-upgrade mode (TiDB ≥ 7.1 keeps it in PD's etcd): entered by
 * `POST /upgrade/start` on any TiDB server, left by `POST /upgrade/finish`; DDL is paused meanwhile.
 */
export type SmoothUpgradeMode = { ddlPaused: boolean; sinceMs: number | undefined };

/** Everything one TiDB cluster keeps: PD (members, stores, regions), TiCDC captures, Pump nodes, TiDB's upgrade mode and server labels. */
export type ClusterState = {
  readonly namespace: string;
  readonly name: string;
  readonly pd: PdCluster;
  readonly captures: CaptureRegistry;
  readonly pumps: PumpRegistry;
  readonly smoothUpgrade: SmoothUpgradeMode;
  /** The labels of each TiDB server joined to this PD, by `namespace/pod`, with the container instance whose memory holds them. */
  readonly serverLabels: Map<string, HeldLabels>;
  /** TiDB's accounts and user databases (sql.ts): they live in TiKV, so they outlive TiDB pods. */
  readonly sql: SqlAccounts;
};

/** All clusters of the simulation. */
export class ClusterRegistry {
  private readonly clusters = new Map<string, ClusterState>();
  private readonly createListeners = new Set<(state: ClusterState) => void>();

  constructor(private readonly deps: { clock: Clock; rng: Rng; knobs: TidbSimKnobs }) {}

  /** The cluster's state, created on first use. */
  get(namespace: string, name: string): ClusterState {
    const key = `${namespace}/${name}`;
    const existing = this.clusters.get(key);
    if (existing) return existing;
    const pd = new PdCluster(namespace, name, { clock: this.deps.clock, rng: this.deps.rng.fork(), knobs: this.deps.knobs });
    const ctx: PdContext = { clock: this.deps.clock, rng: this.deps.rng.fork(), knobs: this.deps.knobs, changed: () => pd.changed() };
    const state: ClusterState = { namespace, name, pd, captures: new CaptureRegistry(ctx), pumps: new PumpRegistry(ctx), smoothUpgrade: { ddlPaused: false, sinceMs: undefined }, serverLabels: new Map(), sql: new SqlAccounts(() => this.deps.clock.nowMs()) };
    this.clusters.set(key, state);
    for (const l of this.createListeners) l(state);
    return state;
  }

  /** `get` by key: the state of the cluster a process joins (see pd-address.ts), created on first use. */
  at(key: { readonly namespace: string; readonly name: string }): ClusterState {
    return this.get(key.namespace, key.name);
  }

  /** The cluster's state if it exists. */
  find(namespace: string, name: string): ClusterState | undefined {
    return this.clusters.get(`${namespace}/${name}`);
  }

  /** Every cluster, in creation order. */
  all(): ClusterState[] {
    return [...this.clusters.values()];
  }

  /** Calls `listener` for each cluster created from now on; returns the unsubscribe. */
  onCreate(listener: (state: ClusterState) => void): () => void {
    this.createListeners.add(listener);
    return () => this.createListeners.delete(listener);
  }

  /** Stops every cluster's timers. */
  stop(): void {
    for (const c of this.clusters.values()) {
      c.pd.stop();
      c.pumps.stop();
    }
  }
}
