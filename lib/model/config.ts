/**
 * The settings rules may read (they arrive in the snapshot, never from the environment). Engine-only
 * settings — lease length, history TTL, time budget — stay in `lib/platform/config.ts`.
 */

/**
 * Per-key failure backoff: the n-th consecutive failure waits `baseMs · 2^(n−1)`, capped at `maxMs`,
 * then shortened by a random share of at most `jitterRatio` (0–1) so keys that failed together do not
 * retry together. As TiDB Operator: 1 s → 100 s.
 */
export type BackoffPolicy = {
  readonly baseMs: number;
  readonly maxMs: number;
  readonly jitterRatio: number;
};

/** How long a member may stay unhealthy before failover starts, per component (TiDB Operator: 5 min each). */
export type FailoverPeriods = {
  readonly pd: number;
  readonly tikv: number;
  readonly tidb: number;
  readonly tiflash: number;
};

/**
 * Replicas per component unless `ReconcileConfig.maxReplicas` (env `MAX_REPLICAS`) says otherwise.
 * Rules build per-member arrays (ordinals, pod names) from `replicas`, so an unbounded count is an
 * unbounded step: 2·10⁷ took 160 MB and 1.9 s, and the CRD schema lets 2 147 483 647 through. TiDB
 * clusters run tens to a few hundred members per component; 1 000 leaves room and stays cheap.
 */
export const DEFAULT_MAX_REPLICAS = 1_000;

/** Settings visible to rules. */
export type ReconcileConfig = {
  readonly autoFailover: boolean;
  /**
   * TiDB Operator's `--detect-node-failure` (default off): failure stores on a failed host are
   * marked `hostDown` and, with the TidbCluster annotation `app.kubernetes.io/auto-failure-recovery`,
   * recovered (see `member/failure-recovery.ts`). Unset means off.
   */
  readonly detectNodeFailure?: boolean;
  /**
   * TiDB Operator's feature gate `VolumeModifying` (`--features VolumeModifying=true`; here env
   * `FEATURE_GATES`, default off): a component's StorageClass changed to another EBS class modifies
   * each claim's EBS volume through EC2 (`ModifyVolume`) to the class's `type`, `iops` and
   * `throughput`, one pod at a time (docs/reference/volumes.md §V5). Unset means off.
   */
  readonly volumeModifying?: boolean;
  readonly failoverPeriodMs: FailoverPeriods;
  readonly backoff: BackoffPolicy;
  /**
   * The image of each cluster's discovery Deployment unless its `spec.discovery.image` says otherwise
   * (TiDB Operator's `--tidb-discovery-image`); unset means the operator image the reconciler
   * mirrors (`DEFAULT_DISCOVERY_IMAGE` in `lib/reconcile/cluster/discovery.ts`).
   */
  readonly discoveryImage?: string;
  /**
   * The most replicas a component may ask for (env `MAX_REPLICAS`); a spec above it fails validation
   * naming `spec.<component>.replicas`. Unset means `DEFAULT_MAX_REPLICAS`.
   */
  readonly maxReplicas?: number;
};
