/**
 * The `region-majority` invariant: no region may lose the majority of its replicas on live stores
 * because of the reconciler. A region's raft group serves only while more than half of its peers
 * run (raft needs a quorum of voters to elect a leader and commit); when a change in the stores'
 * processes leaves a region with half or fewer, the stores down without an injected fault — pods
 * the reconciler restarted, deleted or left down — are what tipped it if the region would still
 * have had its majority without them. A fault alone (a process killed, a node lost, a crash-looping
 * image) is not blamed. Each region is reported once per loss.
 */

import type { ClusterState } from './registry.js';

/** Reports a violation of `region-majority`. */
type Violate = (message: string) => void;

/** Watches the regions of each cluster as its stores' processes stop and start. */
export class RegionMajorityWatch {
  /** `namespace/name/regionId` of regions that are without their majority now (reported once). */
  private readonly lacking = new Set<string>();

  constructor(
    private readonly isExcused: (namespace: string, podName: string) => boolean,
    private readonly violate: Violate,
  ) {}

  /** Checks `c`'s regions against its stores; call on every change of PD's state. */
  check(c: ClusterState): void {
    const stores = new Map(c.pd.stores.list().map((s) => [s.id, s]));
    for (const region of c.pd.book.all()) {
      const key = `${c.namespace}/${c.name}/${region.id}`;
      const peers = region.peers.flatMap((id) => {
        const store = stores.get(id);
        return store !== undefined && store.engine === 'tikv' ? [store] : [];
      });
      const alive = peers.filter((s) => s.alive && !s.dataLost);
      const hasMajority = alive.length * 2 > peers.length;
      if (hasMajority) {
        this.lacking.delete(key);
        continue;
      }
      if (this.lacking.has(key)) continue;
      this.lacking.add(key);
      const byReconciler = peers.filter((s) => !(s.alive && !s.dataLost) && !this.isExcused(c.namespace, s.podName));
      if ((alive.length + byReconciler.length) * 2 <= peers.length) continue;
      this.violate(
        `region ${region.id} of ${c.namespace}/${c.name} lost the majority of its ${peers.length} replicas: ${alive.length} live; ` +
          `down without an injected fault: ${byReconciler.map((s) => `store ${s.id} (${s.podName})`).join(', ')}`,
      );
    }
  }
}
