/**
 * The State port: what the step engine needs from persistent storage to give one cluster key the
 * client-go workqueue contract (at most one step at a time, collapsed triggers, wake-ups that only
 * move earlier, a persisted failure counter) plus deadlines, history and exporter checkpoints.
 * The DynamoDB adapter (`dynamo.ts`) implements it; nothing here knows about DynamoDB.
 */

/** A cluster key `<k8sCluster>/<namespace>/<name>`, e.g. `eks-prod/tidb/basic`. */
export type ClusterKey = string;

/** The four step outcomes (complete, wait, retry, fail), as recorded in summaries and history. */
export type StepOutcomeKind = 'complete' | 'wait' | 'retry' | 'fail';

/**
 * Bounds one port call. Every call gets the adapter's default timeout; `timeoutMs` shortens or
 * lengthens it and `signal` ties it to the caller's own deadline (e.g. the Lambda's remaining
 * time). Whichever fires first aborts the call with a `TransientError`.
 */
export type CallOptions = { timeoutMs?: number; signal?: AbortSignal };

/** The small summary of the last step kept on the state item (the full record goes to history). */
export type StepSummary = {
  atMs: number;
  outcome: StepOutcomeKind;
  reconcileId?: string;
  message?: string;
  /**
   * The TidbCluster (uid, generation) a full observation verified every object of, kept while each
   * step since completed: the next step may read at rest (see `ObserveRequest.verified`).
   */
  verified?: VerifiedCluster;
  /** When the one pending health check of the key is due (docs/adr/0024); none is pending without it. */
  healthAtMs?: number;
  /**
   * The fence of the whole read kept in the state table (`RestReadStore`) that this step's
   * observation is, when the step wrote nothing to the API server since: a health step in any
   * process may take it instead of asking the API server (docs/adr/0024).
   */
  persistedRead?: number;
};

/**
 * A TidbCluster as one observation saw it: its uid and its spec's generation, and when the last full
 * observation (every kind listed) was made (`fullAtMs`; absent in items written before it was kept).
 */
export type VerifiedCluster = { uid: string; generation: number; fullAtMs?: number };

/** A step's lease on a key: who holds it and until when (epoch ms). */
export type Lease = { owner: string; untilMs: number };

/**
 * The persisted per-key state. `fence` counts successful claims and never goes down; `dirty` says
 * a trigger arrived while a step held the lease; `failures` drives the backoff.
 */
export type StateRecord = {
  key: ClusterKey;
  fence: number;
  lease: Lease | undefined;
  dirty: boolean;
  failures: number;
  nextWakeAtMs: number | undefined;
  lastStep: StepSummary | undefined;
  /**
   * Set when the item is to expire (epoch seconds, DynamoDB TTL): the key was forgotten, or the item
   * was only ever marked for a key no step has claimed. A claim removes it.
   */
  expiresAtSeconds?: number;
};

/**
 * The result of `claim`. On success the caller holds the lease with `fence` and gets the state and
 * the key's deadlines and store ids as of the claim. Otherwise another step holds the lease (with `fence`, until
 * `leaseUntilMs`); the key has been marked dirty, so a live holder re-enqueues it on release. A dead
 * holder never will: `armExpiryWake` is true for exactly one caller per held lease, and that caller
 * must make sure the key is stepped again once `leaseUntilMs` has passed.
 */
export type ClaimResult =
  | { claimed: true; fence: number; state: StateRecord; deadlines: StoredDeadline[]; storeIds: StoreIdRecord[] }
  | { claimed: false; heldBy: string; leaseUntilMs: number; fence: number; armExpiryWake: boolean };

/**
 * What a step commits when it releases the lease. `nextWakeAtMs` undefined clears the wake-up;
 * `failures` is the new counter value (the engine resets or increments it).
 */
export type ReleaseUpdate = {
  failures: number;
  nextWakeAtMs: number | undefined;
  lastStep: StepSummary;
};

/** The result of `release`: whether a trigger arrived during the step, so the caller re-enqueues. */
export type ReleaseResult = { wasDirty: boolean };

/** A persisted deadline (failover, eviction, drain, …) for one member of one component. */
export type Deadline = {
  component: string;
  member: string;
  kind: string;
  sinceMs: number;
  deadlineAtMs: number;
};

/** A deadline as read back, with the fence of the step that wrote it. */
export type StoredDeadline = Deadline & { fence: number };

/**
 * The store a pod of a store component (TiKV, TiFlash) was last seen running, persisted as soon as
 * it is seen, so a Tombstone is matched to its pod even when the pod never got its
 * `tidb.pingcap.com/store-id` label (TiDB Operator issue #4644).
 */
export type StoreIdRecord = { component: string; podName: string; storeId: string };

/**
 * One history record per step. `fence` is the step's fence and orders records written in the same
 * millisecond; `detail` is free-form but must stay small (DynamoDB items are at most 400 KB).
 */
export type HistoryRecord = {
  atMs: number;
  fence: number;
  trigger: string;
  outcome: StepOutcomeKind;
  actions: string[];
  durationMs: number;
  reconcileId?: string;
  /** Who asked for this step, when a person did (an admin action): see `Requester`. */
  requestedBy?: Requester;
  detail?: Record<string, unknown>;
};

/**
 * The person behind an admin action: the caller's IAM ARN as AWS verified it, and the Kubernetes
 * user name its EKS access entry maps it to (the name RBAC authorised).
 */
export type Requester = { readonly arn: string; readonly username: string };

/** A history record as read back, with the epoch second after which DynamoDB TTL may delete it. */
export type StoredHistoryRecord = HistoryRecord & { expiresAtSeconds: number };

/**
 * Persistent state for the step engine. All writes are conditional where a race matters; a write
 * that loses a race throws `ConflictError`, a timeout/throttle/5xx throws `TransientError`, a bad
 * request or malformed key throws `TerminalError`.
 */
export interface StateStore {
  /**
   * Takes the lease when it is free (no owner, or `leaseUntilMs <= nowMs`), adds 1 to the fence and
   * clears `dirty`. When another step holds it, marks the key dirty, reports the holder and, in the
   * same write, elects the first such caller per held lease to arm its expiry wake-up.
   */
  claim(
    key: ClusterKey,
    owner: string,
    nowMs: number,
    leaseForMs: number,
    opts?: CallOptions,
  ): Promise<ClaimResult>;

  /**
   * Commits the step and drops the lease, only if `owner` still holds it with `fence`; otherwise
   * `ConflictError` and nothing changes. Reads and clears `dirty` in the same write.
   */
  release(
    key: ClusterKey,
    owner: string,
    fence: number,
    update: ReleaseUpdate,
    opts?: CallOptions,
  ): Promise<ReleaseResult>;

  /**
   * Records that a trigger arrived for `key`; the current or next step will pick it up. On a key with
   * no state item the item it creates expires (TTL) unless a claim follows: a trigger for a cluster
   * that does not exist leaves no permanent item.
   */
  markDirty(key: ClusterKey, opts?: CallOptions): Promise<void>;

  /** The state of `key`, read strongly consistent, or undefined if it was never claimed or marked. */
  get(key: ClusterKey, opts?: CallOptions): Promise<StateRecord | undefined>;

  /**
   * The states of up to 100 keys as `get` reads them, in one round trip where the store allows
   * (BatchGetItem); a key never claimed or marked is absent from the map.
   */
  getMany(keys: readonly ClusterKey[], opts?: CallOptions): Promise<Map<ClusterKey, StateRecord>>;

  /**
   * Moves the wake-up of `key` to `atMs` if none is set or the set one is later. Returns whether it
   * moved; a later `atMs` leaves the earlier wake-up in place (never later, as client-go AddAfter).
   * Like `markDirty`, an item it creates expires unless a claim follows.
   */
  setNextWake(key: ClusterKey, atMs: number, opts?: CallOptions): Promise<boolean>;

  /**
   * Succeeds only while `owner` holds the lease with `fence` and it has not expired at `nowMs`;
   * otherwise `ConflictError` and nothing changes. A step calls it right before a side effect that
   * no other precondition protects (a PD, TiCDC or Pump call), so a stale step does nothing more.
   */
  assertLease(key: ClusterKey, owner: string, fence: number, nowMs: number, opts?: CallOptions): Promise<void>;

  /**
   * Writes a deadline, only while the lease is held with `fence`; a stale step gets `ConflictError`.
   * The fence check and the write are one request, so no stale write can land after a newer claim.
   */
  putDeadline(key: ClusterKey, deadline: Deadline, fence: number, opts?: CallOptions): Promise<void>;

  /**
   * Records the store of one pod (replacing the one recorded before), under the same fence rule as
   * `putDeadline`: one conditional request, so a stale step never overwrites a newer one's record.
   */
  putStoreId(key: ClusterKey, record: StoreIdRecord, fence: number, opts?: CallOptions): Promise<void>;

  /** Deletes a deadline under the same fence rule as `putDeadline`; deleting a missing one is fine. */
  deleteDeadline(
    key: ClusterKey,
    ref: Pick<Deadline, 'component' | 'member' | 'kind'>,
    fence: number,
    opts?: CallOptions,
  ): Promise<void>;

  /**
   * Forgets `key` once its TidbCluster is gone, only while `owner` holds the lease with `fence`
   * (otherwise `ConflictError` and nothing changes): deletes every deadline and store id,
   * clears the wake-up and the failure counter, and gives the state item the TTL `expiresAtSeconds`.
   * The item is kept until DynamoDB expires it, so the fence never goes back to 0 while a stale step
   * may still hold an older one; a later claim removes the TTL. History keeps its own TTL.
   */
  forget(key: ClusterKey, owner: string, fence: number, expiresAtSeconds: number, opts?: CallOptions): Promise<void>;

  /** All deadlines of `key`, ordered by component, member, kind. */
  listDeadlines(key: ClusterKey, opts?: CallOptions): Promise<StoredDeadline[]>;

  /**
   * Appends one history record that DynamoDB TTL may delete `ttlSeconds` after `record.atMs`.
   * A second record with the same time and fence is a `ConflictError`, never a silent overwrite.
   * A record too large for one item is stored cut to fit (`fitHistoryRecord`), never refused.
   */
  appendHistory(key: ClusterKey, record: HistoryRecord, ttlSeconds: number, opts?: CallOptions): Promise<void>;

  /** Up to `limit` history records of `key`, newest first. */
  listHistory(key: ClusterKey, limit: number, opts?: CallOptions): Promise<StoredHistoryRecord[]>;

  /** The exporter's last watch resourceVersion for one resource of one Kubernetes cluster. */
  getCheckpoint(k8sCluster: string, resource: string, opts?: CallOptions): Promise<string | undefined>;

  /** Stores the exporter's watch resourceVersion (an opaque string; last writer wins). */
  putCheckpoint(k8sCluster: string, resource: string, resourceVersion: string, opts?: CallOptions): Promise<void>;
}
