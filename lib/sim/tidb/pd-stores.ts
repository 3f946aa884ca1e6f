/**
 * The stores of one PD cluster and PD's store state machine: a store registers Up; without
 * heartbeats it reads Disconnected after 20 s and Down after max-store-down-time; DELETE makes it
 * Offline (refused when the stores left whose stored state is Up would fall below max-replicas, or
 * would all be evicting leaders), and it becomes Tombstone once the region scheduler has moved its
 * last replica away. `POST …/state?state=Up`
 * cancels a removal. A tombstoned store never comes back.
 */
import { type PdContext, type PdResult, refuse } from './pd-context.js';

/** The state PD persists for a store (metapb.StoreState). */
export type StoreMetaState = 'Up' | 'Offline' | 'Tombstone';

/** The `state_name` PD reports: the persisted state, with Up refined by heartbeat age. */
export type StoreStateName = 'Up' | 'Disconnected' | 'Down' | 'Offline' | 'Tombstone';

/** PD's `storePersistInterval` (pkg/core/store.go): how often the leader writes a store's heartbeat to storage. */
export const STORE_PERSIST_INTERVAL_MS = 5 * 60_000;

/** metapb.StoreState numbers, as `?state=` and the `state` field use them. */
export const STORE_STATE_NUMBER: Record<StoreMetaState, number> = { Up: 0, Offline: 1, Tombstone: 2 };

/** One store (a TiKV or TiFlash instance's data directory) as PD knows it. */
export type PdStore = {
  readonly id: string;
  address: string;
  statusAddress: string;
  version: string;
  readonly engine: 'tikv' | 'tiflash';
  readonly dataUid: string;
  podName: string;
  labels: { key: string; value: string }[];
  meta: StoreMetaState;
  startMs: number;
  /** The last heartbeat as the PD leader knows it (what `state_name` is judged by). */
  lastHeartbeatMs: number;
  /** The last heartbeat written to PD's storage (a new leader starts from it) and when the leader last wrote it. */
  persistedHeartbeatMs: number;
  persistedByLeader: boolean;
  /** A process runs on this store's data right now. */
  alive: boolean;
  aliveChangedMs: number;
  /** The volume was deleted: its replicas are gone even if PD does not know yet. */
  dataLost: boolean;
  capacityBytes: number;
  /** Set while Offline: replicas held when the removal began and when, and the drain's move credit (scheduling.ts). */
  removal: { startMs: number; startPeers: number; credit: number } | undefined;
};

/** What a TiKV/TiFlash process tells PD when it starts (PutStore). */
export type StoreInfo = {
  dataUid: string;
  podName: string;
  address: string;
  statusAddress: string;
  version: string;
  engine: 'tikv' | 'tiflash';
  labels: { key: string; value: string }[];
  capacityBytes: number;
};

/** Registry and state machine of the stores of one cluster. */
export class PdStores {
  private readonly byId = new Map<string, PdStore>();

  constructor(
    private readonly ctx: PdContext,
    private readonly allocId: () => string,
    private readonly maxReplicas: () => number,
    private readonly maxStoreDownTimeMs: () => number,
  ) {}

  /** All stores, Tombstones included, in registration order. */
  list(): PdStore[] {
    return [...this.byId.values()];
  }

  /** A store by ID. */
  get(id: string): PdStore | undefined {
    return this.byId.get(id);
  }

  /** The store whose data lives on `dataUid`. */
  byData(dataUid: string): PdStore | undefined {
    return this.list().find((s) => s.dataUid === dataUid);
  }

  /** PD's `state_name` for the store now. */
  stateName(store: PdStore): StoreStateName {
    if (store.meta !== 'Up') return store.meta;
    const silentMs = this.ctx.clock.nowMs() - store.lastHeartbeatMs;
    // As PD's newStoreInfo: Down after max-store-down-time, Disconnected after 20 s without heartbeat.
    if (silentMs > this.maxStoreDownTimeMs()) return 'Down';
    if (silentMs > this.ctx.knobs.storeDisconnectMs) return 'Disconnected';
    return 'Up';
  }

  /**
   * PutStore from a starting process: the same data directory gets its store back (refused once
   * Tombstone, as TiKV exits "store has been removed"); a new one gets a new ID, refused when a
   * live store already has that address, as PD does ("duplicated store address").
   */
  register(info: StoreInfo): PdResult<PdStore> {
    const nowMs = this.ctx.clock.nowMs();
    const existing = this.byData(info.dataUid);
    if (existing) {
      if (existing.meta === 'Tombstone') return refuse(500, `[PD:cluster:ErrStoreRemoved]store ${existing.id} has been removed`);
      Object.assign(existing, { address: info.address, statusAddress: info.statusAddress, version: info.version, podName: info.podName, startMs: nowMs, lastHeartbeatMs: nowMs });
      this.setAlive(existing, true);
      return { ok: existing };
    }
    const clash = this.list().find((s) => s.meta !== 'Tombstone' && s.address === info.address);
    if (clash) return refuse(500, `duplicated store address: ${info.address}, already registered by store ${clash.id}`);
    const store: PdStore = { ...info, id: this.allocId(), meta: 'Up', startMs: nowMs, lastHeartbeatMs: nowMs, persistedHeartbeatMs: nowMs, persistedByLeader: false, alive: true, aliveChangedMs: nowMs, dataLost: false, removal: undefined };
    this.byId.set(store.id, store);
    this.ctx.changed();
    return { ok: store };
  }

  /**
   * A store heartbeat reached the PD leader. As PD's `StoreInfo.NeedPersist` (pkg/core/store.go,
   * release-7.1 … v8.5): the leader writes the store, with this heartbeat, to storage at its first
   * heartbeat and then only once `storePersistInterval` (5 min) has passed since it last did.
   */
  heartbeat(store: PdStore): void {
    const before = this.stateName(store);
    const nowMs = this.ctx.clock.nowMs();
    store.lastHeartbeatMs = nowMs;
    if (!store.persistedByLeader || nowMs - store.persistedHeartbeatMs > STORE_PERSIST_INTERVAL_MS) {
      store.persistedHeartbeatMs = nowMs;
      store.persistedByLeader = true;
    }
    if (this.stateName(store) !== before) this.ctx.changed();
  }

  /**
   * A new PD leader loads the stores from storage (`RaftCluster.LoadClusterInfo`, server/cluster/
   * cluster.go): each store's last heartbeat is the one last persisted, up to 5 min old, so PD
   * reports the store Disconnected (or Down, for one long silent) until its next heartbeat reaches
   * the new leader — within TiKV's 10 s heartbeat interval.
   */
  reloadFromStorage(): void {
    for (const store of this.list()) {
      store.lastHeartbeatMs = store.persistedHeartbeatMs;
      store.persistedByLeader = false;
    }
    this.ctx.changed();
  }

  /** The store's process started or stopped. */
  setAlive(store: PdStore, alive: boolean): void {
    if (store.alive === alive) return;
    store.alive = alive;
    store.aliveChangedMs = this.ctx.clock.nowMs();
    this.ctx.changed();
  }

  /**
   * DELETE /store/{id}, as RaftCluster.RemoveStore in PD v7.1–v8.5 (server/cluster/cluster.go,
   * `RemoveStore` → `checkReplicaBeforeOfflineStore`; server/api/store.go `responseStoreErr`):
   * 404 unknown, 410 already Tombstone, no-op when already Offline. Otherwise, for a store of any
   * engine, the other stores whose *stored* state is Up — TiKV and TiFlash alike, Disconnected and
   * Down ones included (`getUpStores` checks `IsUp()`, the node state, not heartbeats) — must be at
   * least max-replicas (400 `ErrStoresNotEnough`), and when every one of them is under the
   * evict-leader scheduler the removal is refused too (400 `ErrNoStoreForRegionLeader`).
   * (PD v26.3 restricts the check to TiKV stores, #10349; the simulated versions predate it.)
   */
  remove(id: string, peerCount: number, evicting: ReadonlySet<string> | ReadonlyMap<string, unknown>): PdResult {
    const store = this.byId.get(id);
    if (!store) return refuse(404, `[PD:core:ErrStoreNotFound]store id ${id} not found`);
    if (store.meta === 'Tombstone') return refuse(410, `[PD:core:ErrStoreRemoved]store ${id} has been removed`);
    if (store.meta === 'Offline') return { ok: true };
    const upAfter = this.list().filter((s) => s.meta === 'Up' && s !== store);
    if (upAfter.length < this.maxReplicas()) {
      return refuse(400, `[PD:core:ErrStoresNotEnough]can not remove store ${id} since the number of up stores would be ${upAfter.length} while need ${this.maxReplicas()}`);
    }
    // As PD: only when the evict-leader scheduler lists at least as many stores as would stay Up.
    if (evicting.size >= upAfter.length && upAfter.every((s) => evicting.has(s.id))) {
      return refuse(400, `[PD:core:ErrNoStoreForRegionLeader]can not remove store ${id} since there are no extra up store to store the leader`);
    }
    store.meta = 'Offline';
    store.removal = { startMs: this.ctx.clock.nowMs(), startPeers: peerCount, credit: 0 };
    this.ctx.changed();
    return { ok: true };
  }

  /**
   * `POST /store/{id}/state?state=Up`: cancels an Offline; a Tombstone cannot come back. As PD's
   * `UpStore` and `responseStoreErr` (server/cluster/cluster.go, server/api/store.go, release-7.1 …
   * v8.5): unknown 404, Tombstone 410 (ErrStoreRemoved), already Up a no-op.
   */
  setUp(id: string): PdResult {
    const store = this.byId.get(id);
    if (!store) return refuse(404, `[PD:core:ErrStoreNotFound]store id ${id} not found`);
    if (store.meta === 'Tombstone') return refuse(410, `[PD:core:ErrStoreRemoved]store ${id} has been removed`);
    if (store.meta === 'Offline') {
      store.meta = 'Up';
      store.removal = undefined;
      this.ctx.changed();
    }
    return { ok: true };
  }

  /** An Offline store without peers becomes Tombstone (PD's checkStores → BuryStore). */
  bury(store: PdStore): void {
    if (store.meta !== 'Offline') return;
    store.meta = 'Tombstone';
    store.removal = undefined;
    this.ctx.changed();
  }

  /**
   * Merges labels into the store's (`POST /store/{id}/label`); label order is kept, new keys last.
   * As PD's `UpdateStoreLabels` → `putStoreImpl` (server/cluster/cluster.go, release-7.1 … v8.5),
   * whose every error the handler answers 500: an unknown store is ErrInvalidStoreID, and a
   * Tombstone's labels are updated like any other store's (nothing checks its state).
   */
  setLabels(id: string, labels: Record<string, string>): PdResult {
    const store = this.byId.get(id);
    if (!store) return refuse(500, `[PD:cluster:ErrInvalidStoreID]invalid store id ${id}, not found`);
    for (const [key, value] of Object.entries(labels)) {
      const existing = store.labels.find((l) => l.key === key);
      if (existing) existing.value = value;
      else store.labels.push({ key, value });
    }
    this.ctx.changed();
    return { ok: true };
  }

  /** The volume holding `dataUid` was deleted. */
  dataDeleted(dataUid: string): PdStore | undefined {
    const store = this.byData(dataUid);
    if (store && !store.dataLost) {
      store.dataLost = true;
      this.ctx.changed();
    }
    return store;
  }
}
