/**
 * The regions of one cluster: each with its peers (store IDs) and its raft leader, plus per-store
 * region and leader counts kept in step with every change. The schedulers (scheduling.ts) only
 * change regions through this book, so the counts PD reports never drift from the placement.
 * A region may also have learner replicas on TiFlash stores (TiFlash replicas of a table, placed
 * by PD's placement rules): they count in their store's region count, never vote and never lead.
 */

/** One region: its voters' store IDs (`peers`) and the store of its leader. */
export type Region = { readonly id: string; peers: string[]; leader: string | undefined };

/** Regions plus their per-store counts. */
export class RegionBook {
  private readonly regions: Region[] = [];
  private readonly regionCounts = new Map<string, number>();
  private readonly leaderCounts = new Map<string, number>();
  private readonly learnersById = new Map<string, string[]>();
  /** Regions whose every replica was lost (all their stores' data is gone). */
  readonly lost: Region[] = [];

  /** Live regions in creation order. */
  all(): readonly Region[] {
    return this.regions;
  }

  /** Region replicas on a store, learners included. */
  regionCount(storeId: string): number {
    return this.regionCounts.get(storeId) ?? 0;
  }

  /** Raft leaders on a store. */
  leaderCount(storeId: string): number {
    return this.leaderCounts.get(storeId) ?? 0;
  }

  /** Regions with a peer (voter) on the store. */
  regionsOn(storeId: string): Region[] {
    return this.regions.filter((r) => r.peers.includes(storeId));
  }

  /** The stores holding a learner replica of `region` (TiFlash). */
  learners(region: Region): readonly string[] {
    return this.learnersById.get(region.id) ?? [];
  }

  /** Regions with a learner replica on the store. */
  learnerRegionsOn(storeId: string): Region[] {
    return this.regions.filter((r) => this.learners(r).includes(storeId));
  }

  /** Adds a learner replica of `region` on `storeId`. */
  addLearner(region: Region, storeId: string): void {
    const learners = this.learnersById.get(region.id) ?? [];
    if (learners.includes(storeId) || region.peers.includes(storeId)) return;
    this.learnersById.set(region.id, [...learners, storeId]);
    bump(this.regionCounts, storeId, 1);
  }

  /** Removes the learner replica of `region` on `storeId`. */
  removeLearner(region: Region, storeId: string): void {
    const learners = this.learnersById.get(region.id) ?? [];
    if (!learners.includes(storeId)) return;
    const rest = learners.filter((l) => l !== storeId);
    if (rest.length === 0) this.learnersById.delete(region.id);
    else this.learnersById.set(region.id, rest);
    bump(this.regionCounts, storeId, -1);
  }

  /** Adds a region. */
  create(id: string, peers: string[], leader: string | undefined): Region {
    const region: Region = { id, peers: [], leader: undefined };
    this.regions.push(region);
    for (const p of peers) this.addPeer(region, p);
    this.setLeader(region, leader);
    return region;
  }

  /** Adds a replica on `storeId`. */
  addPeer(region: Region, storeId: string): void {
    if (region.peers.includes(storeId)) return;
    region.peers.push(storeId);
    bump(this.regionCounts, storeId, 1);
  }

  /** Removes the replica on `storeId` (its leadership goes with it). */
  removePeer(region: Region, storeId: string): void {
    const at = region.peers.indexOf(storeId);
    if (at < 0) return;
    if (region.leader === storeId) this.setLeader(region, undefined);
    region.peers.splice(at, 1);
    bump(this.regionCounts, storeId, -1);
  }

  /** Moves leadership to `storeId` (which must hold a peer), or clears it. */
  setLeader(region: Region, storeId: string | undefined): void {
    if (region.leader === storeId) return;
    if (storeId !== undefined && !region.peers.includes(storeId)) return;
    if (region.leader !== undefined) bump(this.leaderCounts, region.leader, -1);
    region.leader = storeId;
    if (storeId !== undefined) bump(this.leaderCounts, storeId, 1);
  }

  /** Marks a region lost and drops it from placement. */
  markLost(region: Region): void {
    const at = this.regions.indexOf(region);
    if (at < 0) return;
    this.lost.push({ id: region.id, peers: [...region.peers], leader: region.leader });
    for (const p of [...region.peers]) this.removePeer(region, p);
    for (const l of [...this.learners(region)]) this.removeLearner(region, l);
    this.regions.splice(at, 1);
  }
}

function bump(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
