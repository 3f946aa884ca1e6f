/**
 * One pass of PD's region scheduling over a RegionBook, run on every PD tick: raft re-elects
 * leaders away from dead stores (even without a PD leader — that is TiKV's own raft), and, while PD
 * has a leader, the cluster's regions grow with its stores, evict-leader schedulers drain leaders,
 * Offline stores are emptied then buried, the replica checker repairs Down and missing replicas,
 * placement rules keep each region's TiFlash learners at the tables' TiFlash replica count, and the
 * balance schedulers spread regions and leaders over Up stores. Each kind of move has a per-tick
 * budget derived from the knobs: leaders drain in `leaderEvictionMs`; a removing store hands off
 * `storeDrainPerMinute` replicas a minute, so its removal takes as long as its region count says.
 */
import type { TidbSimKnobs } from './knobs.js';
import type { Region, RegionBook } from './regions.js';
import type { PdStore, StoreStateName } from './pd-stores.js';
import { balanceLearners, learnerTargetFor, placeLearners } from './scheduling-learners.js';

/** What one scheduling pass sees of the cluster. */
export type SchedulingView = {
  readonly book: RegionBook;
  readonly stores: ReadonlyMap<string, PdStore>;
  stateName(store: PdStore): StoreStateName;
  readonly maxReplicas: number;
  /** The largest TiFlash replica count of any table: learners each region keeps on TiFlash stores. */
  readonly tiflashReplicas: number;
  /** Stores under an evict-leader scheduler, with their leader count when it was added. */
  readonly evicting: ReadonlyMap<string, { startLeaders: number }>;
  readonly pdHasLeader: boolean;
  readonly nowMs: number;
  readonly knobs: TidbSimKnobs;
  allocId(): string;
  bury(store: PdStore): void;
  onRegionLost(region: Region): void;
};

/** The raft peer on this store runs: a process serves its intact data. */
function isPeerAlive(store: PdStore | undefined): boolean {
  return store !== undefined && store.alive && !store.dataLost && store.meta !== 'Tombstone';
}

/** A store PD places new replicas on: an Up TiKV store with fresh heartbeats. */
function isTarget(v: SchedulingView, store: PdStore): boolean {
  return store.engine === 'tikv' && store.meta === 'Up' && !store.dataLost && v.stateName(store) === 'Up';
}

function canLead(v: SchedulingView, storeId: string): boolean {
  return isPeerAlive(v.stores.get(storeId)) && !v.evicting.has(storeId);
}

/** Sorts store IDs by `counts`, then by ID. */
export function byLoad(counts: (id: string) => number): (a: string, b: string) => number {
  return (a, b) => counts(a) - counts(b) || Number(a) - Number(b);
}

function perTick(total: number, v: SchedulingView, durationMs: number): number {
  return Math.max(1, Math.ceil((total * v.knobs.pdTickMs) / Math.max(1, durationMs)));
}

/** Replica moves one tick allows at the drain rate (at least one). */
export function perTickAtDrainRate(v: SchedulingView): number {
  return Math.max(1, Math.ceil((v.knobs.storeDrainPerMinute * v.knobs.pdTickMs) / 60_000));
}

/**
 * The replicas a removing store may hand off this tick: its credit grows by the drain rate each
 * tick, capped at one tick's worth (at least one move), so a blocked drain does not bank a burst.
 */
function drainBudget(v: SchedulingView, removal: { credit: number }): number {
  const perTickRate = (v.knobs.storeDrainPerMinute * v.knobs.pdTickMs) / 60_000;
  removal.credit = Math.min(removal.credit + perTickRate, Math.max(1, perTickRate));
  return Math.floor(removal.credit);
}

/** Runs one scheduling pass. */
export function schedule(v: SchedulingView): void {
  markLost(v);
  electLeaders(v);
  if (!v.pdHasLeader) return;
  grow(v);
  evictLeaders(v);
  drainOffline(v);
  repairReplicas(v);
  placeLearners(v);
  balanceRegions(v);
  balanceLearners(v);
  balanceLeaders(v);
}

/** Regions whose every replica's data is gone are lost for good. */
function markLost(v: SchedulingView): void {
  for (const region of [...v.book.all()]) {
    const intact = region.peers.some((p) => {
      const s = v.stores.get(p);
      return s !== undefined && !s.dataLost;
    });
    if (region.peers.length > 0 && !intact) {
      v.onRegionLost({ id: region.id, peers: [...region.peers], leader: region.leader });
      v.book.markLost(region);
    }
  }
}

/** As raft: a region whose leader's store died elects a live peer once a majority of peers is alive. */
function electLeaders(v: SchedulingView): void {
  for (const region of v.book.all()) {
    const leader = region.leader === undefined ? undefined : v.stores.get(region.leader);
    if (isPeerAlive(leader)) continue;
    const deadForMs = leader ? v.nowMs - leader.aliveChangedMs : Infinity;
    if (leader && !leader.dataLost && deadForMs < v.knobs.raftElectionMs) continue;
    const alive = region.peers.filter((p) => isPeerAlive(v.stores.get(p)));
    if (alive.length <= region.peers.length / 2) continue;
    const preferred = alive.filter((p) => !v.evicting.has(p));
    const next = (preferred.length > 0 ? preferred : alive).sort(byLoad((id) => v.book.leaderCount(id)))[0];
    v.book.setLeader(region, next);
  }
}

/** Data grows to fill the largest set of Up stores the cluster has had (regions split). */
function grow(v: SchedulingView): void {
  const targets = [...v.stores.values()].filter((s) => isTarget(v, s)).map((s) => s.id);
  if (targets.length === 0) return;
  const wanted = Math.ceil((v.knobs.regionsPerStore * targets.length) / Math.max(1, v.maxReplicas));
  // Lost regions stay lost: they count towards the data the cluster holds.
  let missing = wanted - v.book.all().length - v.book.lost.length;
  while (missing-- > 0) {
    const peers = [...targets].sort(byLoad((id) => v.book.regionCount(id))).slice(0, v.maxReplicas);
    const leader = peers.filter((p) => canLead(v, p)).sort(byLoad((id) => v.book.leaderCount(id)))[0];
    v.book.create(v.allocId(), peers, leader);
  }
}

/** The evict-leader scheduler: leaders leave each evicted store at the rate that drains it in leaderEvictionMs. */
function evictLeaders(v: SchedulingView): void {
  for (const [storeId, { startLeaders }] of v.evicting) {
    let budget = perTick(startLeaders, v, v.knobs.leaderEvictionMs);
    for (const region of v.book.all()) {
      if (budget <= 0) break;
      if (region.leader !== storeId) continue;
      const to = region.peers.filter((p) => p !== storeId && canLead(v, p)).sort(byLoad((id) => v.book.leaderCount(id)))[0];
      if (to === undefined) continue;
      v.book.setLeader(region, to);
      budget--;
    }
  }
}

/** Replaces `from` in `region` by a new replica on `to`, moving leadership off `from` first. */
function movePeer(v: SchedulingView, region: Region, from: string, to: string): void {
  v.book.addPeer(region, to);
  if (region.leader === from) {
    const next = region.peers.filter((p) => p !== from && canLead(v, p)).sort(byLoad((id) => v.book.leaderCount(id)))[0];
    v.book.setLeader(region, next);
  }
  v.book.removePeer(region, from);
}

/** The target for a new replica of `region`: the least-loaded Up store without one. */
function targetFor(v: SchedulingView, region: Region): string | undefined {
  return [...v.stores.values()]
    .filter((s) => isTarget(v, s) && !region.peers.includes(s.id))
    .map((s) => s.id)
    .sort(byLoad((id) => v.book.regionCount(id)))[0];
}

/**
 * Offline stores hand their replicas to Up stores at the drain rate; an empty one becomes Tombstone
 * (PD's checkStore buries a removing store once its region size is 0). A TiFlash learner moves only
 * to another Up TiFlash store without one of that region — with too few TiFlash stores left for the
 * tables' replica count there is none, and the store stays Offline — or is dropped when the region
 * has more learners than the replica count asks.
 */
function drainOffline(v: SchedulingView): void {
  for (const store of v.stores.values()) {
    if (store.meta !== 'Offline' || !store.removal) continue;
    const removal = store.removal;
    let budget = drainBudget(v, removal);
    const use = (): void => {
      budget--;
      removal.credit--;
    };
    for (const region of v.book.regionsOn(store.id)) {
      if (budget <= 0) break;
      const to = targetFor(v, region);
      if (to === undefined) continue;
      movePeer(v, region, store.id, to);
      use();
    }
    for (const region of v.book.learnerRegionsOn(store.id)) {
      if (budget <= 0) break;
      if (v.book.learners(region).length > v.tiflashReplicas) {
        v.book.removeLearner(region, store.id);
        use();
        continue;
      }
      const to = learnerTargetFor(v, region);
      if (to === undefined) continue;
      v.book.addLearner(region, to);
      v.book.removeLearner(region, store.id);
      use();
    }
    if (v.book.regionCount(store.id) === 0) v.bury(store);
  }
}

/** The replica checker: drops replicas on vanished stores, replaces Down ones, fixes the replica count. */
function repairReplicas(v: SchedulingView): void {
  let budget = perTickAtDrainRate(v);
  for (const region of v.book.all()) {
    for (const p of [...region.peers]) if (!v.stores.has(p) || v.stores.get(p)?.meta === 'Tombstone') v.book.removePeer(region, p);
    if (budget <= 0) continue;
    const down = region.peers.find((p) => {
      const s = v.stores.get(p);
      return s !== undefined && v.stateName(s) === 'Down';
    });
    const to = down !== undefined || region.peers.length < v.maxReplicas ? targetFor(v, region) : undefined;
    if (down !== undefined && to !== undefined) movePeer(v, region, down, to);
    else if (region.peers.length < v.maxReplicas && to !== undefined) v.book.addPeer(region, to);
    else if (region.peers.length > v.maxReplicas) removeExtra(v, region);
    else continue;
    if (region.leader === undefined) v.book.setLeader(region, region.peers.find((p) => canLead(v, p)));
    budget--;
  }
}

function removeExtra(v: SchedulingView, region: Region): void {
  const worst = [...region.peers].sort((a, b) => extraScore(v, b) - extraScore(v, a) || Number(b) - Number(a))[0];
  if (worst === undefined) return;
  if (region.leader === worst) v.book.setLeader(region, region.peers.find((p) => p !== worst && canLead(v, p)));
  v.book.removePeer(region, worst);
}

function extraScore(v: SchedulingView, storeId: string): number {
  const s = v.stores.get(storeId);
  const unhealthy = s === undefined || !isTarget(v, s) ? 1_000_000 : 0;
  return unhealthy + v.book.regionCount(storeId);
}

/** balance-region: move replicas from the fullest Up store to the emptiest until they differ by one. */
function balanceRegions(v: SchedulingView): void {
  const targets = [...v.stores.values()].filter((s) => isTarget(v, s)).map((s) => s.id);
  balanceAtDrainRate(v, targets, (max, min) => {
    const region = v.book.regionsOn(max).find((r) => !r.peers.includes(min));
    if (region) movePeer(v, region, max, min);
    return region !== undefined;
  });
}

/**
 * PD's balance-region loop at the drain rate: while the fullest of `targets` holds more than one
 * region more than the emptiest, `move(max, min)` moves one (false: nothing could move, stop).
 */
export function balanceAtDrainRate(v: SchedulingView, targets: readonly string[], move: (max: string, min: string) => boolean): void {
  let budget = perTickAtDrainRate(v);
  while (budget-- > 0 && targets.length > 1) {
    const sorted = [...targets].sort(byLoad((id) => v.book.regionCount(id)));
    const min = sorted[0];
    const max = sorted[sorted.length - 1];
    if (min === undefined || max === undefined || v.book.regionCount(max) - v.book.regionCount(min) <= 1) return;
    if (!move(max, min)) return;
  }
}

/** balance-leader: move leaders from the Up store with most to the one with fewest. */
function balanceLeaders(v: SchedulingView): void {
  const eligible = [...v.stores.values()].filter((s) => isTarget(v, s) && canLead(v, s.id)).map((s) => s.id);
  let budget = perTick(Math.ceil(v.knobs.regionsPerStore / 3), v, v.knobs.leaderEvictionMs);
  while (budget-- > 0 && eligible.length > 1) {
    const sorted = [...eligible].sort(byLoad((id) => v.book.leaderCount(id)));
    const min = sorted[0];
    const max = sorted[sorted.length - 1];
    if (min === undefined || max === undefined || v.book.leaderCount(max) - v.book.leaderCount(min) <= 1) return;
    const region = v.book.all().find((r) => r.leader === max && r.peers.includes(min));
    if (!region) return;
    v.book.setLeader(region, min);
  }
}
