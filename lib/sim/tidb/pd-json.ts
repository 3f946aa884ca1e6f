/**
 * The JSON bodies PD's API returns, field for field as the Go structs marshal them (pdpb.Member,
 * the health list, metapb.Store plus StoreStatus, the config sections). uint64 IDs are bigint so
 * they are written as raw digits; protobuf enums are numbers and omitted when zero (omitempty).
 */
import type { PdCluster } from './pd-cluster.js';
import type { PdMember } from './pd-members.js';
import { type PdStore, STORE_STATE_NUMBER } from './pd-stores.js';
import { goDuration, goTime, uint64 } from './http.js';

const GIT_HASH = '5c6a7f2e9b1d4c8a3e0f7b6d2c1a9e8f4b3d2c1a';

/**
 * pdpb.Member. Its fields are `omitempty`: a member that never started (no name, no client URL, no
 * binary version PD stored) shows only its id and peer URL.
 */
export function memberJson(m: PdMember): Record<string, unknown> {
  if (m.name === '') return { member_id: uint64(m.id), peer_urls: [m.peerUrl] };
  return {
    name: m.name,
    member_id: uint64(m.id),
    peer_urls: [m.peerUrl],
    client_urls: [m.clientUrl],
    deploy_path: '/',
    binary_version: m.version,
    git_hash: GIT_HASH,
  };
}

/**
 * One entry of `GET /pd/api/v1/health` (server/api/health.go's Health, no `omitempty`): healthy
 * while its process serves; a member that never started has `""` and `null` client URLs.
 */
export function healthJson(m: PdMember): Record<string, unknown> {
  return { name: m.name, member_id: uint64(m.id), client_urls: m.clientUrl === '' ? null : [m.clientUrl], health: m.serving };
}

/** `GET /pd/api/v1/members` (pdpb.GetMembersResponse). */
export function membersJson(cluster: PdCluster): Record<string, unknown> {
  const leader = cluster.members.leader();
  return {
    header: { cluster_id: uint64(cluster.clusterId ?? '0') },
    members: cluster.members.list().map(memberJson),
    ...(leader ? { leader: memberJson(leader), etcd_leader: memberJson(leader) } : {}),
  };
}

/** PD's node_state for a store's persisted state. */
function nodeState(store: PdStore): number {
  return store.meta === 'Up' ? 2 : store.meta === 'Offline' ? 3 : 4;
}

/** typeutil.ByteSize as PD prints it (`100GiB`, `1.5GiB`, `512MiB`). */
export function byteSize(bytes: number): string {
  const units: [string, number][] = [['TiB', 2 ** 40], ['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]];
  for (const [unit, size] of units) {
    if (bytes >= size) return `${Math.round((bytes / size) * 100) / 100}${unit}`;
  }
  return `${bytes}B`;
}

/** One item of `GET /pd/api/v1/stores` (StoreInfo: metapb.Store plus state_name, and StoreStatus). */
export function storeJson(cluster: PdCluster, s: PdStore): Record<string, unknown> {
  const state = STORE_STATE_NUMBER[s.meta];
  const leaders = cluster.book.leaderCount(s.id);
  const regions = cluster.book.regionCount(s.id);
  const usedBytes = regions * 96 * 2 ** 20;
  const nowMs = cluster.clock.nowMs();
  const store = {
    id: uint64(s.id),
    address: s.address,
    ...(state !== 0 ? { state } : {}),
    ...(s.labels.length > 0 ? { labels: s.labels.map((l) => ({ key: l.key, value: l.value })) } : {}),
    version: s.version,
    peer_address: s.address,
    status_address: s.statusAddress,
    git_hash: GIT_HASH,
    start_timestamp: Math.floor(s.startMs / 1000),
    deploy_path: '/',
    last_heartbeat: BigInt(s.lastHeartbeatMs) * 1_000_000n,
    node_state: nodeState(s),
    state_name: cluster.stores.stateName(s),
  };
  const status = {
    capacity: byteSize(s.capacityBytes),
    available: byteSize(Math.max(0, s.capacityBytes - usedBytes)),
    used_size: byteSize(usedBytes),
    leader_count: leaders,
    leader_weight: 1,
    leader_score: leaders,
    leader_size: leaders * 96,
    region_count: regions,
    region_weight: 1,
    region_score: regions * 96,
    region_size: regions * 96,
    slow_score: 1,
    start_ts: goTime(s.startMs),
    last_heartbeat_ts: goTime(s.lastHeartbeatMs),
    ...(s.alive ? { uptime: goDuration(nowMs - s.startMs) } : {}),
  };
  return { store, status };
}

/** The `replication` section of PD's config (`location-labels` as a comma string, booleans as strings). */
export function replicationJson(cluster: PdCluster): Record<string, unknown> {
  const c = cluster.config;
  return {
    'max-replicas': c.maxReplicas,
    'location-labels': c.locationLabels.join(','),
    'strictly-match-label': String(c.strictlyMatchLabel),
    'enable-placement-rules': String(c.enablePlacementRules),
    'enable-placement-rules-cache': 'false',
    'isolation-level': c.isolationLevel,
  };
}

/** `GET /pd/api/v1/config`: the sections the simulator models, with PD's defaults elsewhere. */
export function configJson(cluster: PdCluster): Record<string, unknown> {
  return {
    'cluster-version': cluster.members.leader()?.version.replace(/^v/, '') ?? '0.0.0',
    schedule: {
      'max-store-down-time': goDuration(cluster.config.maxStoreDownTimeMs),
      'leader-schedule-limit': 4,
      'region-schedule-limit': 2048,
      'replica-schedule-limit': 64,
      'max-pending-peer-count': 64,
      'max-snapshot-count': 64,
      'split-merge-interval': '1h0m0s',
      'patrol-region-interval': '10ms',
      'enable-remove-down-replica': 'true',
      'enable-replace-offline-replica': 'true',
      'enable-make-up-replica': 'true',
      'enable-location-replacement': 'true',
    },
    replication: replicationJson(cluster),
    'pd-server': { 'use-region-storage': 'true', 'max-gap-reset-ts': '24h0m0s', 'key-type': 'table', 'runtime-services': '', 'metric-storage': '', 'dashboard-address': 'auto', 'flow-round-by-digit': 3, 'min-resolved-ts-persistence-interval': '1s', 'server-memory-limit': 0 },
  };
}
