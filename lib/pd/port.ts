/**
 * PD's HTTP API as the step engine uses it (as TiDB Operator v1's `pkg/pdapi/pdapi.go` calls it). Every id — member,
 * store, cluster — is a decimal string: member ids exceed 2^53 and a double would change them.
 * One method is one HTTP request; the "verify first" and "404 means already done" decisions of
 * TiDB Operator (delete member only while listed, transfer leader 200-or-404, …) belong to the step,
 * which sees a `NotFoundError` for every 404.
 */

/** A PD member (pdpb.Member): name, id and URLs. */
export type PdMember = { name: string; memberId: string; peerUrls: string[]; clientUrls: string[] };

/** GET /pd/api/v1/members: the members, the PD leader and the etcd leader when there is one. */
export type PdMembers = { members: PdMember[]; leader?: PdMember; etcdLeader?: PdMember };

/** One entry of GET /pd/api/v1/health. */
export type PdMemberHealth = { name: string; memberId: string; clientUrls: string[]; health: boolean };

/** GET /pd/api/v1/cluster: the cluster id (→ status.clusterID) and max peer count. */
export type PdCluster = { id: string; maxPeerCount: number };

/** A TiKV/TiFlash store with the status fields the rules read. `labels` keeps PD's order. */
export type PdStore = {
  id: string;
  address: string;
  stateName: string;
  labels: { key: string; value: string }[];
  version: string;
  leaderCount: number;
  regionCount: number;
  capacity: string;
  available: string;
  lastHeartbeatTs: string;
};

/**
 * GET /pd/api/v1/stores. `bootstrapped` is false when PD answers "TiKV cluster not bootstrapped"
 * (no store has ever joined), which TiDB Operator also treats as a state, not a failure.
 */
export type PdStores = { stores: PdStore[]; bootstrapped: boolean };

/** The replication section of GET /pd/api/v1/config. */
export type PdReplicationConfig = { maxReplicas: number; locationLabels: string[]; enablePlacementRules: boolean };

/** The schedule section of GET /pd/api/v1/config: `max-store-down-time` (absent when PD did not say). */
export type PdScheduleConfig = { maxStoreDownTimeMs?: number };

/** GET /pd/api/v1/config, reduced to what the rules read. */
export type PdConfig = { replication: PdReplicationConfig; schedule?: PdScheduleConfig };

/** A change to POST /pd/api/v1/config/replicate; unset fields are left alone. */
export type PdReplicationChange = Partial<PdReplicationConfig>;

/**
 * One server of a PD microservice as PD in API mode lists it (`GET /pd/api/v2/ms/members/<svc>`,
 * PD's `ServiceRegistryEntry`): its name (`--name`, or its host before PD v8.3.0) and the address it
 * advertises (`service-addr`).
 */
export type PdMsMember = { name: string; serviceAddr: string };

/** The PD operations of one TidbCluster, through its `<tc>-pd` service (or one member for `isMemberReady`). */
export interface PdPort {
  /** GET /pd/api/v1/members. */
  getMembers(): Promise<PdMembers>;
  /** GET /pd/api/v1/health. */
  getHealth(): Promise<PdMemberHealth[]>;
  /** GET /pd/api/v1/cluster. */
  getCluster(): Promise<PdCluster>;
  /** GET /pd/api/v1/leader. */
  getLeader(): Promise<PdMember>;
  /** POST /pd/api/v1/leader/transfer/{name}. */
  transferLeader(memberName: string): Promise<void>;
  /** DELETE /pd/api/v1/members/name/{name}. */
  deleteMemberByName(memberName: string): Promise<void>;
  /** DELETE /pd/api/v1/members/id/{id}, the id exactly as listed. */
  deleteMemberById(memberId: string): Promise<void>;
  /** GET /pd/api/v1/stores (Up, Offline, Down, Disconnected stores). */
  getStores(): Promise<PdStores>;
  /** GET /pd/api/v1/stores?state=2: the Tombstone stores. */
  getTombstoneStores(): Promise<PdStores>;
  /** DELETE /pd/api/v1/store/{id}: starts taking the store offline. */
  deleteStore(storeId: string): Promise<void>;
  /** POST /pd/api/v1/store/{id}/state?state=Up: cancels the removal of an Offline store (a Tombstone cannot come back). */
  setStoreState(storeId: string, state: 'Up'): Promise<void>;
  /** POST /pd/api/v1/store/{id}/label with `{key: value}` (e.g. zone, host). */
  setStoreLabels(storeId: string, labels: Record<string, string>): Promise<void>;
  /** GET /pd/api/v1/config. */
  getConfig(): Promise<PdConfig>;
  /** POST /pd/api/v1/config/replicate. */
  setReplicationConfig(change: PdReplicationChange): Promise<void>;
  /** POST /pd/api/v1/schedulers `{name: "evict-leader-scheduler", store_id}`. */
  beginEvictLeader(storeId: string): Promise<void>;
  /** DELETE /pd/api/v1/schedulers/evict-leader-scheduler-{id}. */
  endEvictLeader(storeId: string): Promise<void>;
  /**
   * The evict-leader schedulers as `evict-leader-scheduler-<storeId>` names: GET /pd/api/v1/schedulers,
   * expanded through the scheduler's config when PD reports one merged scheduler (PD ≥ 3.1).
   */
  getEvictLeaderSchedulers(): Promise<string[]>;
  /** GET /pd/api/v2/ready on one member's pod: true on 200, and on 404 (PD < 8.5.2 lacks it). */
  isMemberReady(podName: string): Promise<boolean>;
  /** GET /pd/api/v2/ms/members/{service}: the registered servers of a microservice (PD in API mode only; 404 otherwise). */
  getMsMembers(service: string): Promise<PdMsMember[]>;
  /** GET /pd/api/v2/ms/primary/{service}: the primary's service address (`""` when PD knows none). */
  getMsPrimary(service: string): Promise<string>;
  /**
   * POST /{service}/api/v1/primary/transfer `{"new_primary": name}` on the microservice's own
   * `<tc>-<service>:2379` Service (as TiDB Operator's PDMS client).
   */
  transferMsPrimary(service: string, newPrimary: string): Promise<void>;
}
