/**
 * PD's placement of TiFlash replicas in the simulator: a table with TiFlash replicas has, for each
 * of its regions, that many learner replicas on TiFlash stores (PD's placement rules with the
 * `engine=tiflash` label constraint). Learners never vote or lead; the rule checker adds missing
 * ones on Up TiFlash stores, replaces Down ones and removes extra ones, and balance-region spreads
 * them over the TiFlash stores — each at the drain rate, as every other replica move.
 */
import type { Region } from './regions.js';
import type { PdStore } from './pd-stores.js';
import { type SchedulingView, balanceAtDrainRate, byLoad, perTickAtDrainRate } from './scheduling.js';

/** A store PD places TiFlash learners on: an Up TiFlash store with fresh heartbeats. */
function isLearnerTarget(v: SchedulingView, store: PdStore): boolean {
  return store.engine === 'tiflash' && store.meta === 'Up' && !store.dataLost && v.stateName(store) === 'Up';
}

/** The target for a new learner of `region`: the least-loaded Up TiFlash store without a replica of it. */
export function learnerTargetFor(v: SchedulingView, region: Region): string | undefined {
  const learners = v.book.learners(region);
  return [...v.stores.values()]
    .filter((s) => isLearnerTarget(v, s) && !learners.includes(s.id))
    .map((s) => s.id)
    .sort(byLoad((id) => v.book.regionCount(id)))[0];
}

/**
 * The placement rules of tables with TiFlash replicas: learners on vanished or Tombstone stores
 * are dropped, extra ones removed (those on stores leaving or unhealthy first), a Down one replaced,
 * and missing ones added on Up TiFlash stores — as many as there are, up to the replica count.
 */
export function placeLearners(v: SchedulingView): void {
  let budget = perTickAtDrainRate(v);
  for (const region of v.book.all()) {
    for (const l of [...v.book.learners(region)]) if (!v.stores.has(l) || v.stores.get(l)?.meta === 'Tombstone') v.book.removeLearner(region, l);
    const learners = v.book.learners(region);
    if (budget <= 0 || (learners.length === 0 && v.tiflashReplicas === 0)) continue;
    if (learners.length > v.tiflashReplicas) {
      const worst = [...learners].sort((a, b) => learnerScore(v, b) - learnerScore(v, a) || Number(b) - Number(a))[0];
      if (worst !== undefined) v.book.removeLearner(region, worst);
      budget--;
      continue;
    }
    const down = learners.find((l) => {
      const s = v.stores.get(l);
      return s !== undefined && v.stateName(s) === 'Down';
    });
    if (down === undefined && learners.length >= v.tiflashReplicas) continue;
    const to = learnerTargetFor(v, region);
    if (to === undefined) continue;
    v.book.addLearner(region, to);
    if (down !== undefined) v.book.removeLearner(region, down);
    budget--;
  }
}

function learnerScore(v: SchedulingView, storeId: string): number {
  const s = v.stores.get(storeId);
  const unhealthy = s === undefined || !isLearnerTarget(v, s) ? 1_000_000 : 0;
  return unhealthy + v.book.regionCount(storeId);
}

/** balance-region over TiFlash stores: learners move from the fullest Up TiFlash store to the emptiest. */
export function balanceLearners(v: SchedulingView): void {
  const targets = [...v.stores.values()].filter((s) => isLearnerTarget(v, s)).map((s) => s.id);
  balanceAtDrainRate(v, targets, (max, min) => {
    const region = v.book.learnerRegionsOn(max).find((r) => !v.book.learners(r).includes(min));
    if (!region) return false;
    v.book.addLearner(region, min);
    v.book.removeLearner(region, max);
    return true;
  });
}
