/**
 * Every default a scenario file may leave out, in one place, so the parser, `--help` and the
 * documentation agree. Reconciler settings default as the reconciler itself does (TiDB Operator's
 * numbers); world settings as the simulator's knobs do.
 */
import type { ScenarioConfig, SimSettings } from './types.js';

/** `seed:` when the file has none. */
export const DEFAULT_SEED = 1;

/** `config:` when the file leaves a setting out: failover on, every period 5 minutes, sweep every 5 minutes. */
export const DEFAULT_CONFIG: ScenarioConfig = {
  autoFailover: true,
  detectNodeFailure: false,
  failoverPeriodMs: { pd: 300_000, tikv: 300_000, tidb: 300_000, tiflash: 300_000 },
  sweepIntervalMs: 300_000,
  componentAccess: 'direct',
};

/**
 * `sim:` when the file leaves a knob out: 3 nodes, 5 s pod startup, stores drained at 180 region
 * replicas a minute (the default 90 a store: 30 s), no table with TiFlash replicas, 10 s leader
 * eviction, 30 m store-down time.
 */
export const DEFAULT_SIM: SimSettings = {
  nodes: 3,
  podStartupMs: 5_000,
  storeDrainPerMinute: 180,
  regionsPerStore: 90,
  tiflashReplicas: 0,
  leaderEvictionMs: 10_000,
  maxStoreDownTimeMs: 30 * 60_000,
};

/** The most region replicas a TiKV store may hold in a scenario (`sim.regionsPerStore`). */
export const MAX_REGIONS_PER_STORE = 100_000;

/** The most TiFlash replicas a table may have in a scenario (`sim.tiflashReplicas`, `world: {tiflashReplicas}`). */
export const MAX_TIFLASH_REPLICAS = 10;

/** The most nodes a simulated world may have. */
export const MAX_NODES = 100;

/** How long a `waitFor` waits when its entry has no `timeout:` (30 minutes of virtual time). */
export const DEFAULT_WAIT_TIMEOUT_MS = 30 * 60_000;

/** `cluster.metadata.namespace` when the manifest has none (as kubectl). */
export const DEFAULT_NAMESPACE = 'default';

/** The only TidbCluster API version the reconciler serves; a manifest without one gets it. */
export const TIDB_CLUSTER_API_VERSION = 'pingcap.com/v1alpha1';

/**
 * `spec.<component>.maxFailoverCount` when the spec has none (as TiDB Operator: 3 for PD, TiKV,
 * TiFlash and TiDB); TiCDC, Pump and TiProxy have no failover, so no extra ordinals.
 */
export const DEFAULT_MAX_FAILOVER_COUNT: Readonly<Record<string, number>> = { pd: 3, tikv: 3, tiflash: 3, tidb: 3, ticdc: 0, pump: 0, tiproxy: 0 };
