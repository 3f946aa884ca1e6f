/**
 * What a step knows about PD, read through its HTTP API. IDs are strings throughout: PD member IDs
 * exceed 2^53, so the adapter parses PD's JSON losslessly and never hands a rule a rounded number.
 */

/** One PD member as `GET /pd/api/v1/members` and `/health` report it. */
export type PdMember = {
  readonly name: string;
  readonly id: string;
  readonly clientUrls: readonly string[];
  readonly peerUrls: readonly string[];
  readonly health: boolean;
  /**
   * `GET /pd/api/v2/ready` on the member itself: true on 200 and on 404 (PD before 8.5.2 lacks the
   * endpoint), false otherwise; undefined when it was not asked. Rules that need it (the PD upgrade)
   * treat undefined as not ready.
   */
  readonly ready?: boolean;
};

/** PD store states (`state_name`), including the node-state names of newer PD versions. */
export type PdStoreState =
  | 'Up'
  | 'Disconnected'
  | 'Down'
  | 'Offline'
  | 'Tombstone'
  | 'Preparing'
  | 'Serving'
  | 'Removing'
  | 'Removed';

/** One TiKV or TiFlash store as `GET /pd/api/v1/stores` reports it. */
export type PdStore = {
  readonly id: string;
  readonly address: string;
  readonly state: PdStoreState;
  readonly leaderCount: number;
  readonly regionCount: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly lastHeartbeatAtMs?: number;
};

/** PD's replication settings (`GET /pd/api/v1/config`, `replication`; `POST /pd/api/v1/config/replicate`). */
export type PdReplicationConfig = {
  readonly maxReplicas: number;
  readonly locationLabels: readonly string[];
  readonly enablePlacementRules?: boolean;
  readonly isolationLevel?: string;
};

/** The parts of PD's configuration rules read; `schedule.maxStoreDownTimeMs` when PD reported `max-store-down-time`. */
export type PdConfig = {
  readonly replication: PdReplicationConfig;
  readonly schedule?: { readonly maxStoreDownTimeMs?: number };
};

/**
 * One PD microservice as PD in API mode reported it: its registered servers (name and advertised
 * address) and, when it was asked (a rollout of the service), its primary's address (`""`: none
 * known); or why PD could not say (not in API mode: 404, or unreachable).
 */
export type PdMsView =
  | { readonly members: readonly { readonly name: string; readonly serviceAddr: string }[]; readonly primary?: string }
  | { readonly error: string };

/**
 * PD as observed in one step. `schedulers` are PD's scheduler names (e.g.
 * `evict-leader-scheduler-4`); `leader` is undefined while PD has no elected leader. Stores,
 * schedulers and the replication `config` are read only for a cluster whose rules use them (a store
 * component, or PD scaled to 0): `storesRead` says whether they were, and without it `stores` and
 * `schedulers` are empty, `bootstrapped` is false and `config` is absent.
 */
export type PdView = {
  readonly clusterId?: string;
  readonly members: readonly PdMember[];
  readonly leader: { readonly name: string; readonly id: string } | undefined;
  readonly stores: readonly PdStore[];
  /**
   * False when PD answered that no TiKV has ever joined ("TiKV cluster not bootstrapped, please
   * start TiKV first"): then there are no stores, which is a state, not a read failure.
   */
  readonly bootstrapped: boolean;
  readonly schedulers: readonly string[];
  readonly storesRead: boolean;
  readonly config?: PdConfig;
  /** The PD microservices of `spec.pdms` (PD in `mode: ms`), by service name; absent when the cluster runs none. */
  readonly microservices?: Readonly<Record<string, PdMsView>>;
};
