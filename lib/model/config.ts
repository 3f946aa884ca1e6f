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

/** Settings visible to rules. */
export type ReconcileConfig = {
  readonly autoFailover: boolean;
  /**
   * TiDB Operator's `--detect-node-failure` (default off): failure stores on a failed host are
   * marked `hostDown` and, with the TidbCluster annotation `app.kubernetes.io/auto-failure-recovery`,
   * recovered (see `member/failure-recovery.ts`). Unset means off.
   */
  readonly detectNodeFailure?: boolean;
  readonly failoverPeriodMs: FailoverPeriods;
  readonly backoff: BackoffPolicy;
  /**
   * The image of each cluster's discovery Deployment unless its `spec.discovery.image` says otherwise
   * (TiDB Operator's `--tidb-discovery-image`); unset means the operator image the reconciler
   * mirrors (`DEFAULT_DISCOVERY_IMAGE` in `lib/reconcile/cluster/discovery.ts`).
   */
  readonly discoveryImage?: string;
};
