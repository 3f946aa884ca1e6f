/**
 * Reading PD into the snapshot's `PdView` (reference §3.1): members with their health, the leader,
 * every store including Tombstones, the replication config, the evict-leader schedulers and the
 * cluster id — seven independent GETs through the `<tc>-pd` service, sent together — then each
 * member's readiness from its own pod. The mapping is
 * pure: ids stay decimal strings, store labels become a record, `state_name` becomes the
 * `PdStoreState` union (a state PD never defined is refused rather than guessed).
 */

import { ComponentStatusError } from '../components/caller.js';
import type { PdMember, PdStore, PdStoreState, PdView } from '../model/pd.js';
import type { PdReadFailure } from '../model/snapshot.js';
import { TransientError } from '../platform/errors.js';
import type { PdMemberHealth, PdMembers, PdPort, PdStore as PdApiStore, PdConfig as PdApiConfig } from '../pd/port.js';

const STORE_STATES: ReadonlySet<string> = new Set<PdStoreState>([
  'Up',
  'Disconnected',
  'Down',
  'Offline',
  'Tombstone',
  'Preparing',
  'Serving',
  'Removing',
  'Removed',
]);

/** Every PD answer the view is built from. */
export type PdAnswers = {
  readonly members: PdMembers;
  readonly health: readonly PdMemberHealth[];
  readonly stores: readonly PdApiStore[];
  readonly bootstrapped: boolean;
  readonly tombstones: readonly PdApiStore[];
  readonly config: PdApiConfig;
  readonly evictLeaderSchedulers: readonly string[];
  readonly clusterId: string;
};

/**
 * Reads PD. Throws the client's typed errors; the observer turns any of them into `pdError`. A PD
 * that has never seen a store ("not bootstrapped") has no stores, which is a state, not an error.
 */
export async function readPd(pd: PdPort): Promise<PdAnswers> {
  const [members, health, stores, tombstones, config, evictLeaderSchedulers, cluster] = await Promise.all([
    pd.getMembers(),
    pd.getHealth(),
    pd.getStores(),
    pd.getTombstoneStores(),
    pd.getConfig(),
    pd.getEvictLeaderSchedulers(),
    pd.getCluster(),
  ]);
  return { members, health, stores: stores.stores, bootstrapped: stores.bootstrapped, tombstones: tombstones.stores, config, evictLeaderSchedulers, clusterId: cluster.id };
}

/** The snapshot's view of PD's answers (see the module comment). */
export function toPdView(answers: PdAnswers): PdView {
  const healthByName = new Map(answers.health.map((h) => [h.name, h.health]));
  const members: PdMember[] = answers.members.members.map((m) => ({
    name: m.name,
    id: m.memberId,
    clientUrls: [...m.clientUrls],
    peerUrls: [...m.peerUrls],
    health: healthByName.get(m.name) ?? false,
  }));
  const leader = answers.members.leader;
  // PD lists Tombstones only when asked for them; a store in both answers is counted once.
  const byId = new Map<string, PdStore>();
  for (const store of [...answers.stores, ...answers.tombstones]) if (!byId.has(store.id)) byId.set(store.id, toStore(store));
  const { replication } = answers.config;
  return {
    clusterId: answers.clusterId,
    members,
    leader: leader ? { name: leader.name, id: leader.memberId } : undefined,
    stores: [...byId.values()],
    bootstrapped: answers.bootstrapped,
    schedulers: [...answers.evictLeaderSchedulers],
    config: {
      replication: {
        maxReplicas: replication.maxReplicas,
        locationLabels: [...replication.locationLabels],
        enablePlacementRules: replication.enablePlacementRules,
      },
    },
  };
}

/**
 * The view with each member's readiness (`GET /pd/api/v2/ready` on the member's own pod), asked only
 * of members that are pods of this cluster (`podNames`): for any other name the API server itself
 * would answer 404, which the PD client must read as "ready" (PD before 8.5.2 has no such endpoint).
 * A member that does not answer is not ready; readiness never fails the PD read.
 */
export async function withMemberReadiness(view: PdView, pd: PdPort, podNames: ReadonlySet<string>): Promise<PdView> {
  const members = await Promise.all(
    view.members.map(async (m): Promise<PdMember> => {
      if (!podNames.has(m.name)) return m;
      const ready = await pd.isMemberReady(m.name).catch(() => false);
      return { ...m, ready };
    }),
  );
  return { ...view, members };
}

/**
 * What kind of failure a PD read threw: `noLeader` when PD itself answered 503 saying it has no
 * leader (PD's redirector: "no leader", or "redirect finds no leader" in newer versions) — the API
 * server's own 503s carry a `Status` object and are `unreachable`, like every other failure.
 */
export function pdReadFailureOf(err: unknown): PdReadFailure {
  const cause = err instanceof Error ? err.cause : undefined;
  if (!(cause instanceof ComponentStatusError) || cause.status !== 503) return 'unreachable';
  const fromApiServer = /^\s*\{[\s\S]*"kind"\s*:\s*"Status"/.test(cause.body);
  return !fromApiServer && /no leader/i.test(cause.body) ? 'noLeader' : 'unreachable';
}

/** One store: labels as a record (a repeated key keeps its last value, as PD applies them). */
export function toStore(store: PdApiStore): PdStore {
  const lastHeartbeatAtMs = Date.parse(store.lastHeartbeatTs);
  return {
    id: store.id,
    address: store.address,
    state: toStoreState(store.stateName, store.id),
    leaderCount: store.leaderCount,
    regionCount: store.regionCount,
    labels: Object.fromEntries(store.labels.map((l) => [l.key, l.value])),
    // PD writes Go's zero time (year 1) for a store that never sent a heartbeat.
    ...(Number.isFinite(lastHeartbeatAtMs) && lastHeartbeatAtMs > 0 ? { lastHeartbeatAtMs } : {}),
  };
}

function isStoreState(name: string): name is PdStoreState {
  return STORE_STATES.has(name);
}

/** PD's `state_name` as the union; an unknown name means we do not understand this PD. */
export function toStoreState(stateName: string, storeId: string): PdStoreState {
  if (isStoreState(stateName)) return stateName;
  throw new TransientError(`PD store ${storeId} has state ${JSON.stringify(stateName)}, which is not a known store state`);
}
