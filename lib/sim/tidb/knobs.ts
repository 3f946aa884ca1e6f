/**
 * Every tunable of the simulated TiDB world, with its default, in one place. Scenario files set the
 * documented ones under `sim:` (nodes, podStartup, storeDrainRate or storeRemoval, regionsPerStore,
 * tiflashReplicas, leaderEviction, maxStoreDownTime);
 * the rest are fixed by real TiDB defaults and only tests change them.
 */

/** The knobs of the simulated TiDB processes. All durations are virtual milliseconds. */
export type TidbSimKnobs = {
  /** Nodes node-0..node-N-1 over zones zone-a/b/c (default 3; passed to the world). */
  nodes: number;
  /** Pending → Running+Ready for a healthy pod (default 5 s; passed to the world's kubelet). */
  podStartupMs: number;
  /**
   * Region replicas PD moves off one removing store per minute (default 180: a store holding the
   * default 90 replicas drains in 30 s; one holding 9 000 takes 50 minutes). The same rate bounds
   * the replica checker and balance-region. As PD: an Offline store's remove-peer limit is lifted
   * and the add-peer store limits of the stores taking the replicas pace the drain.
   */
  storeDrainPerMinute: number;
  /** Leaders drain from a store in this time once an evict-leader scheduler targets it (default 10 s). */
  leaderEvictionMs: number;
  /** PD turns a disconnected store Down after this (PD `schedule.max-store-down-time`, default 30 m). */
  maxStoreDownTimeMs: number;
  /**
   * Region replicas a TiKV store holds when the cluster is balanced at its largest size (default 90,
   * so 30 leaders a store with 3 replicas — under TiDB Operator's 200-leader "leaders come back" threshold).
   */
  regionsPerStore: number;
  /**
   * The largest TiFlash replica count of any table (`ALTER TABLE … SET TIFLASH REPLICA n`; default 0:
   * a new cluster's tables have none). Each region then has that many learner replicas on TiFlash
   * stores, and an Offline TiFlash store stays Offline while no other TiFlash store can take them.
   */
  tiflashReplicas: number;
  /** TiKV refreshes `tikv_raftstore_region_count` this often (its region collector's METRICS_FLUSH_INTERVAL, 10 s). */
  metricsFlushMs: number;
  /** TiKV store heartbeat interval (TiKV `pd-heartbeat-tick-interval` default 10 s). */
  storeHeartbeatMs: number;
  /** PD reports a store Disconnected after this long without a heartbeat (PD: 20 s). */
  storeDisconnectMs: number;
  /** How often the simulated PD runs its schedulers and state checks (default 1 s). */
  pdTickMs: number;
  /** Time without a PD leader after the leader's member stops (leader lease + campaign, default 3 s). */
  pdElectionMs: number;
  /** A `leader/transfer` takes effect after this (default 1 s). */
  pdLeaderTransferMs: number;
  /** How long PD's redirector (≥ v8.1.1) waits for a leader before its 503 (PD: 3 s; 0: answers at once). */
  pdLeaderWaitMs: number;
  /** How long a leader transfer to a member that does not serve blocks before its 500 (PD's moveLeaderTimeout: 5 s). */
  pdMoveLeaderTimeoutMs: number;
  /** Raft leaders of regions on a dead TiKV move to live peers after this (TiKV election, default 10 s). */
  raftElectionMs: number;
  /** The PD start script gives up (exit 1) when peer DNS or discovery is not there within this (30 s). */
  pdStartTimeoutMs: number;
  /**
   * A TiDB server that cannot open its store (PD and an Up TiKV store) within this after boot exits 1
   * (tidb-server's `createStoreDDLOwnerMgrAndDomain`: `terror.MustNil`); the world's estimate of its
   * PD client and bootstrap retries (default 15 s: TiDB's `util.DefaultMaxRetries` 30 × 500 ms).
   */
  tidbStartTimeoutMs: number;
  /** From container start to serving for PD, TiKV, TiFlash, TiDB, TiCDC, Pump (default 1 s). */
  processBootMs: number;
  /** A PD member answers `/pd/api/v2/ready` 200 this long after it starts serving (default 2 s). */
  pdRegionLoadMs: number;
  /** A process with an invalid TOML config exits this long after starting (default 1 s). */
  crashAfterMs: number;
  /** Tables each TiCDC capture replicates (default 12). */
  ticdcTablesPerCapture: number;
  /** A drained TiCDC capture reaches 0 tables in this time (default 10 s). */
  ticdcDrainMs: number;
  /** A TiCDC owner that resigned with no other capture to win is owner again after this: its next campaign (TiCDC rate-limits them, default 1 s). */
  ticdcCampaignMs: number;
  /** A Pump told to go offline is offline after this (default 5 s). */
  pumpOfflineMs: number;
  /** An evict-leader scheduler still present this long after a TiKV rollout completed is a violation (10 m). */
  evictLeaderGraceMs: number;
};

/** The defaults documented above. */
export const DEFAULT_KNOBS: Readonly<TidbSimKnobs> = Object.freeze({
  nodes: 3,
  podStartupMs: 5_000,
  storeDrainPerMinute: 180,
  leaderEvictionMs: 10_000,
  maxStoreDownTimeMs: 30 * 60_000,
  regionsPerStore: 90,
  tiflashReplicas: 0,
  metricsFlushMs: 10_000,
  storeHeartbeatMs: 10_000,
  storeDisconnectMs: 20_000,
  pdTickMs: 1_000,
  pdElectionMs: 3_000,
  pdLeaderTransferMs: 1_000,
  pdLeaderWaitMs: 3_000,
  pdMoveLeaderTimeoutMs: 5_000,
  raftElectionMs: 10_000,
  pdStartTimeoutMs: 30_000,
  tidbStartTimeoutMs: 15_000,
  processBootMs: 1_000,
  pdRegionLoadMs: 2_000,
  crashAfterMs: 1_000,
  ticdcTablesPerCapture: 12,
  ticdcDrainMs: 10_000,
  ticdcCampaignMs: 1_000,
  pumpOfflineMs: 5_000,
  evictLeaderGraceMs: 10 * 60_000,
});

/** The defaults with `overrides` applied; a non-positive or non-finite override is an error. */
export function resolveKnobs(overrides: Partial<TidbSimKnobs> = {}): TidbSimKnobs {
  const knobs: TidbSimKnobs = { ...DEFAULT_KNOBS };
  for (const [key, value] of Object.entries(overrides) as [keyof TidbSimKnobs, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new Error(`sim knob ${key} must be a non-negative number, got ${String(value)}`);
    knobs[key] = value;
  }
  return knobs;
}
