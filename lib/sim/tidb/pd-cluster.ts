/**
 * One simulated PD cluster (one per TidbCluster, keyed by namespace and the pods'
 * `app.kubernetes.io/instance`): its members and raft quorum, its stores and their state machine,
 * its regions, its evict-leader schedulers and its configuration, advanced by a tick on the
 * simulator's clock while any member exists. Processes and the HTTP API (pd-api.ts) act on it;
 * monitors subscribe to its changes.
 */
import { PdMicroservices } from './pd-microservices.js';
import type { Clock, TimerHandle } from '../../platform/clock.js';
import type { TidbSimKnobs } from './knobs.js';
import { type PdConfig, applyToml, defaultPdConfig } from './pd-config.js';
import { type PdContext, type PdResult, refuse } from './pd-context.js';
import { type PdMember, type PdMemberInfo, PdMembers } from './pd-members.js';
import { type PdStore, PdStores, type StoreInfo, type StoreStateName } from './pd-stores.js';
import { type Region, RegionBook } from './regions.js';
import type { Rng } from './rng.js';
import { schedule } from './scheduling.js';
import { EtcdKv } from './pd-etcd.js';

/** An evict-leader scheduler's entry for one store. */
export type EvictEntry = { startLeaders: number; sinceMs: number };

/** Shared services a cluster is built with. */
export type PdClusterDeps = { clock: Clock; rng: Rng; knobs: TidbSimKnobs };

/** The state of one TiDB cluster's PD. */
export class PdCluster {
  readonly members: PdMembers;
  readonly stores: PdStores;
  readonly book = new RegionBook();
  /** The PD microservices registered in this PD's etcd (tso, scheduling). */
  readonly microservices = new PdMicroservices(() => this.changed());
  /** The schedulers PD runs by default (balance-*, evict-slow-store); the API can remove and re-add them. */
  readonly builtinSchedulers = new Set(['balance-hot-region-scheduler', 'balance-leader-scheduler', 'balance-region-scheduler', 'evict-slow-store-scheduler']);
  /** Stores under the evict-leader scheduler, in the order they were added. */
  readonly evicting = new Map<string, EvictEntry>();
  /** The keys others keep in PD's etcd (BR's log-backup tasks), served at `/v3/kv/range`. */
  readonly etcd = new EtcdKv();
  config: PdConfig;
  /** Set when the first member bootstraps (a uint64 above 2^53, as decimal digits). */
  clusterId: string | undefined;
  /** The raft cluster was bootstrapped by the first TiKV store. */
  bootstrapped = false;
  /** Every PD HTTP call fails until this time (the `pd-api-down` fault). */
  apiDownUntilMs = 0;
  /** Evict-leader schedulers do not survive a tick until this time (the `pd-schedulers-lost` fault). */
  schedulersLostUntilMs = 0;
  /** The largest TiFlash replica count of any table (`ALTER TABLE … SET TIFLASH REPLICA`), from the knob until changed. */
  tiflashReplicas: number;
  private readonly ctx: PdContext;
  private readonly listeners = new Set<() => void>();
  private readonly lostListeners = new Set<(region: Region) => void>();
  private readonly lastStateNames = new Map<string, StoreStateName>();
  /** PD pods whose next join is interrupted after MemberAdd (the `pd-join-interrupted` fault). */
  private readonly interruptedJoins = new Set<string>();
  private nextId = 1;
  private tickTimer: TimerHandle | undefined;
  private notifying = false;
  /** The leader the stores were last loaded by (a new leader reloads them from storage). */
  private storesLeader: string | undefined;
  private leaderGap = false;
  private dirty = false;
  private stopped = false;

  constructor(
    readonly namespace: string,
    readonly name: string,
    private readonly deps: PdClusterDeps,
  ) {
    this.ctx = { clock: deps.clock, rng: deps.rng, knobs: deps.knobs, changed: () => this.changed() };
    this.config = defaultPdConfig(deps.knobs.maxStoreDownTimeMs);
    this.tiflashReplicas = deps.knobs.tiflashReplicas;
    this.members = new PdMembers(this.ctx);
    this.stores = new PdStores(this.ctx, () => this.allocId(), () => this.config.maxReplicas, () => this.config.maxStoreDownTimeMs);
  }

  /** The simulator's clock. */
  get clock(): Clock {
    return this.deps.clock;
  }

  /** The knobs in force. */
  get knobs(): TidbSimKnobs {
    return this.deps.knobs;
  }

  /**
   * Whether clients can get timestamps: always from a plain PD; from PD running as the API service
   * (its leader started with `services api`) only while the tso service has a primary to forward to.
   */
  isTsoServed(): boolean {
    const leader = this.members.leader();
    if (leader === undefined) return false;
    return leader.apiService !== true || this.microservices.primary('tso') !== undefined;
  }

  /** PD answers API calls and schedules only while it has a leader. */
  hasLeader(): boolean {
    return this.members.leader() !== undefined;
  }

  /** Whether the PD HTTP API is failing because of an injected fault. */
  isApiDown(): boolean {
    return this.clock.nowMs() < this.apiDownUntilMs;
  }

  /** `--initial-cluster`: the first member creates the cluster with its pd.toml's configuration. */
  bootstrapMember(info: PdMemberInfo, toml: Record<string, unknown>): PdMember {
    if (this.clusterId === undefined) {
      this.clusterId = this.deps.rng.uint64AboveSafe();
      this.config = applyToml(this.config, toml);
    }
    const member = this.members.bootstrap(info);
    this.startTicking();
    return member;
  }

  /**
   * `--join` from `podName`. Under the `pd-join-interrupted` fault the member is added and its
   * process dies before etcd starts (`interrupted: true`); the fault ends once a member was added.
   */
  joinMember(info: PdMemberInfo, podName: string): PdResult<{ member: PdMember; interrupted: boolean }> {
    if (!this.interruptedJoins.has(podName)) {
      const joined = this.members.join(info);
      return 'ok' in joined ? { ok: { member: joined.ok, interrupted: false } } : joined;
    }
    const added = this.members.joinInterrupted(info);
    if ('refused' in added) return added;
    this.interruptedJoins.delete(podName);
    return { ok: { member: added.ok, interrupted: true } };
  }

  /** The next join of `podName` adds its member and dies before etcd starts (`joinMember`). */
  interruptNextJoin(podName: string): void {
    this.interruptedJoins.add(podName);
  }

  /**
   * PutStore. The first TiKV store bootstraps the raft cluster; TiFlash waits for that. Needs a PD
   * leader (the real store retries until PD answers).
   */
  registerStore(info: StoreInfo): PdResult<PdStore> {
    if (!this.hasLeader()) return refuse(503, 'no leader');
    if (!this.bootstrapped && info.engine === 'tiflash') return refuse(500, '[PD:cluster:ErrNotBootstrapped]TiKV cluster not bootstrapped, please start TiKV first');
    const result = this.stores.register(info);
    if ('ok' in result && !this.bootstrapped) {
      this.bootstrapped = true;
      this.changed();
    }
    return result;
  }

  /** DELETE /store/{id}. */
  deleteStore(id: string): PdResult {
    return this.stores.remove(id, this.book.regionCount(id), this.evicting);
  }

  /** Adds `store` to the evict-leader scheduler (idempotent). Unknown stores are refused (PauseLeaderTransfer). */
  addEvictLeader(storeId: string): PdResult {
    if (!this.stores.get(storeId)) return refuse(500, `[PD:core:ErrStoreNotFound]store id ${storeId} not found`);
    if (!this.evicting.has(storeId)) {
      this.evicting.set(storeId, { startLeaders: this.book.leaderCount(storeId), sinceMs: this.clock.nowMs() });
      this.changed();
    }
    return { ok: true };
  }

  /** Removes `store` from the evict-leader scheduler; 404 when it is not there. */
  removeEvictLeader(storeId: string): PdResult {
    if (!this.evicting.delete(storeId)) return refuse(404, '[PD:scheduler:ErrScheduleConfigNotExist]the config does not exist');
    this.changed();
    return { ok: true };
  }

  /** Subscribes to changes of members, leadership, stores and schedulers; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Subscribes to regions whose every replica was lost. */
  onRegionLost(listener: (region: Region) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Tells listeners something changed; re-entrant changes are folded into one more round. */
  changed(): void {
    this.followLeader();
    if (this.notifying) {
      this.dirty = true;
      return;
    }
    this.notifying = true;
    try {
      do {
        this.dirty = false;
        for (const listener of [...this.listeners]) listener();
      } while (this.dirty);
    } finally {
      this.notifying = false;
    }
  }

  /**
   * The first leader bootstraps; every later leadership — another member, or the same one after a
   * leaderless gap — starts a new RaftCluster, which loads the stores from storage.
   */
  private followLeader(): void {
    const leader = this.members.leader()?.name;
    if (leader === undefined) {
      this.leaderGap = this.storesLeader !== undefined;
      return;
    }
    if (leader === this.storesLeader && !this.leaderGap) return;
    const reload = this.storesLeader !== undefined;
    this.storesLeader = leader;
    this.leaderGap = false;
    if (reload) this.stores.reloadFromStorage();
  }

  /** Stops ticking and pending elections. */
  stop(): void {
    this.stopped = true;
    if (this.tickTimer) this.clock.clearTimer(this.tickTimer);
    this.tickTimer = undefined;
    this.members.stop();
  }

  /**
   * Drops every evict-leader scheduler now, and keeps dropping those added (each POST still answers
   * 200) at every tick until `untilMs` — as a PD whose leader changed without the scheduler config
   * persisted: the scheduler a client added is simply gone.
   */
  loseSchedulers(untilMs: number): void {
    this.schedulersLostUntilMs = Math.max(this.schedulersLostUntilMs, untilMs);
    this.dropSchedulers();
  }

  private dropSchedulers(): void {
    if (this.evicting.size === 0) return;
    this.evicting.clear();
    this.changed();
  }

  /** Runs one PD tick now (scheduling plus state-change detection). */
  tick(): void {
    if (this.clock.nowMs() < this.schedulersLostUntilMs) this.dropSchedulers();
    const stores = new Map(this.stores.list().map((s) => [s.id, s]));
    schedule({
      book: this.book,
      stores,
      stateName: (s) => this.stores.stateName(s),
      maxReplicas: this.config.maxReplicas,
      tiflashReplicas: this.tiflashReplicas,
      evicting: this.evicting,
      pdHasLeader: this.hasLeader(),
      nowMs: this.clock.nowMs(),
      knobs: this.knobs,
      allocId: () => this.allocId(),
      bury: (s) => this.stores.bury(s),
      onRegionLost: (r) => this.lostListeners.forEach((l) => l(r)),
    });
    this.detectStateChanges();
  }

  private detectStateChanges(): void {
    let changed = false;
    for (const store of this.stores.list()) {
      const name = this.stores.stateName(store);
      if (this.lastStateNames.get(store.id) !== name) changed = true;
      this.lastStateNames.set(store.id, name);
    }
    if (changed) this.changed();
  }

  private startTicking(): void {
    if (this.tickTimer || this.stopped) return;
    const loop = (): void => {
      this.tickTimer = undefined;
      if (this.stopped) return;
      this.tick();
      this.tickTimer = this.clock.setTimer(loop, this.knobs.pdTickMs);
    };
    this.tickTimer = this.clock.setTimer(loop, this.knobs.pdTickMs);
  }

  /** PD's ID allocator (stores and regions share it, so store IDs are not dense). */
  private allocId(): string {
    return String(this.nextId++);
  }
}
