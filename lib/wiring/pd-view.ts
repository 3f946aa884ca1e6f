/**
 * Reading PD into the snapshot's `PdView` (reference §3.1), through the `<tc>-pd` service: members
 * with their health and the leader on every step; every store including Tombstones, the replication
 * config and the evict-leader schedulers only when the cluster has a store component (or scales PD to
 * 0, which must see whether stores still use it); the cluster id once per PD cluster (it never
 * changes for a set of member ids; a bounded cache keeps it); then each member's readiness from its
 * own pod, only while a PD rollout is under way (the upgrade is its one reader). The mapping is
 * pure: ids stay decimal strings, store labels become a record, `state_name` becomes the
 * `PdStoreState` union (a state PD never defined is refused rather than guessed).
 */

import { ComponentStatusError } from '../components/caller.js';
import { ClientCertificateRefusedError } from '../components/reach-errors.js';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import { LABEL } from '../model/labels.js';
import type { PdMember, PdStore, PdStoreState, PdView } from '../model/pd.js';
import type { PdReadFailure } from '../model/snapshot.js';
import { TransientError } from '../platform/errors.js';
import { LruMap } from '../platform/lru.js';
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

/** PD's answers about stores: the stores, the Tombstones, the replication config, the evict-leader schedulers. */
export type PdStoreAnswers = {
  readonly stores: readonly PdApiStore[];
  readonly bootstrapped: boolean;
  readonly tombstones: readonly PdApiStore[];
  readonly config: PdApiConfig;
  readonly evictLeaderSchedulers: readonly string[];
};

/** Every PD answer the view is built from; `storeAnswers` only when they were asked for. */
export type PdAnswers = {
  readonly members: PdMembers;
  readonly health: readonly PdMemberHealth[];
  readonly storeAnswers?: PdStoreAnswers;
  readonly clusterId: string;
};

/** The components whose rules read PD's stores, config and schedulers. */
const STORE_USERS = ['tikv', 'tiflash'] as const;

/**
 * Whether a step reads PD's stores, replication config and evict-leader schedulers: when the cluster
 * has a store component, or scales PD to 0 (the scale-in checks that no store of the cluster still
 * uses PD). A PD-only cluster's rules read none of them.
 */
export function readsPdStores(cluster: TidbCluster): boolean {
  const spec = cluster.spec as Record<string, unknown> & { pd?: { replicas?: number } | null };
  return STORE_USERS.some((name) => spec[name] !== undefined && spec[name] !== null) || spec.pd?.replicas === 0;
}

/** How many PD clusters' ids a warm container keeps (least recently used first out). */
export const CLUSTER_ID_CACHE_SIZE = 1_000;

/**
 * PD cluster ids by the PD they were read from: `<namespace>/<tc>` with the member ids PD listed. A
 * PD cluster's id never changes; a PD bootstrapped again (its data gone) has new member ids, so it is
 * a new key and its id is read again. Bounded, least recently used first out.
 */
export class ClusterIdCache extends LruMap<string, string> {
  constructor(maxEntries: number = CLUSTER_ID_CACHE_SIZE) {
    super(maxEntries);
  }
}

/** What `readPd` reads: the stores or not, the cache of cluster ids, and the PD's name in it (`<namespace>/<tc>`). */
export type PdReadOptions = { readonly stores: boolean; readonly clusterIds: ClusterIdCache; readonly pdName: string };

/**
 * Reads PD. Throws the client's typed errors; the observer turns any of them into `pdError`. A PD
 * that has never seen a store ("not bootstrapped") has no stores, which is a state, not an error.
 */
export async function readPd(pd: PdPort, options: PdReadOptions): Promise<PdAnswers> {
  const [members, health, storeAnswers] = await Promise.all([pd.getMembers(), pd.getHealth(), options.stores ? readStores(pd) : undefined]);
  const idKey = `${options.pdName}|${members.members.map((m) => m.memberId).sort().join(',')}`;
  let clusterId = options.clusterIds.get(idKey);
  if (clusterId === undefined) {
    clusterId = (await pd.getCluster()).id;
    options.clusterIds.set(idKey, clusterId);
  }
  return { members, health, ...(storeAnswers === undefined ? {} : { storeAnswers }), clusterId };
}

async function readStores(pd: PdPort): Promise<PdStoreAnswers> {
  const [stores, tombstones, config, evictLeaderSchedulers] = await Promise.all([pd.getStores(), pd.getTombstoneStores(), pd.getConfig(), pd.getEvictLeaderSchedulers()]);
  return { stores: stores.stores, bootstrapped: stores.bootstrapped, tombstones: tombstones.stores, config, evictLeaderSchedulers };
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
  const base = { clusterId: answers.clusterId, members, leader: leader ? { name: leader.name, id: leader.memberId } : undefined };
  const read = answers.storeAnswers;
  if (read === undefined) return { ...base, stores: [], bootstrapped: false, schedulers: [], storesRead: false };
  // PD lists Tombstones only when asked for them; a store in both answers is counted once.
  const byId = new Map<string, PdStore>();
  for (const store of [...read.stores, ...read.tombstones]) if (!byId.has(store.id)) byId.set(store.id, toStore(store));
  const { replication, schedule } = read.config;
  return {
    ...base,
    stores: [...byId.values()],
    bootstrapped: read.bootstrapped,
    schedulers: [...read.evictLeaderSchedulers],
    storesRead: true,
    config: {
      replication: {
        maxReplicas: replication.maxReplicas,
        locationLabels: [...replication.locationLabels],
        enablePlacementRules: replication.enablePlacementRules,
      },
      ...(schedule?.maxStoreDownTimeMs === undefined ? {} : { schedule: { maxStoreDownTimeMs: schedule.maxStoreDownTimeMs } }),
    },
  };
}

/**
 * Whether PD's StatefulSet is rolling out (the only time a rule reads member readiness): its update
 * revision differs from the current one, a PD pod runs another revision, or the status still says
 * `Upgrade`.
 */
export function isPdRollingOut(cluster: TidbCluster, objects: OwnedObjects): boolean {
  if (cluster.status?.pd?.phase === 'Upgrade') return true;
  const setName = `${cluster.metadata.name ?? ''}-pd`;
  const set = objects.StatefulSet.find((s) => s.metadata?.name === setName);
  const update = set?.status?.updateRevision;
  if (set === undefined || update === undefined) return false;
  if (set.status?.currentRevision !== update) return true;
  const pods: readonly IPod[] = objects.Pod;
  return pods.some((p) => p.metadata?.labels?.[LABEL.component] === 'pd' && p.metadata.labels['controller-revision-hash'] !== update);
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
 * server's own 503s carry a `Status` object and are `unreachable`, like every other failure;
 * `clientRefused` when PD's TLS handshake refused our client certificate (or the lack of one).
 */
export function pdReadFailureOf(err: unknown): PdReadFailure {
  if (err instanceof ClientCertificateRefusedError) return 'clientRefused';
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
