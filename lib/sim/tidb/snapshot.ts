/**
 * The PD part of a scenario report's `final`: members with health, the leader, stores with state,
 * leader and region counts and labels, and the evict-leader schedulers — read straight from the
 * model, so it shows the world even when PD's API could not answer.
 */
import type { ClusterState } from './registry.js';

/** `final.pd` of the scenario report. */
export type PdSnapshot = {
  members: { name: string; id: string; health: boolean }[];
  leader: string | undefined;
  stores: { id: string; address: string; state: string; leaderCount: number; regionCount: number; labels: Record<string, string> }[];
  schedulers: string[];
};

/** The snapshot of one cluster. */
export function pdSnapshot(c: ClusterState): PdSnapshot {
  const pd = c.pd;
  return {
    members: pd.members.list().map((m) => ({ name: m.name, id: m.id, health: m.serving && pd.members.hasQuorum() })),
    leader: pd.members.leader()?.name,
    stores: pd.stores.list().map((s) => ({
      id: s.id,
      address: s.address,
      state: pd.stores.stateName(s),
      leaderCount: pd.book.leaderCount(s.id),
      regionCount: pd.book.regionCount(s.id),
      labels: Object.fromEntries(s.labels.map((l) => [l.key, l.value])),
    })),
    schedulers: [...pd.evicting.keys()].map((id) => `evict-leader-scheduler-${id}`),
  };
}
