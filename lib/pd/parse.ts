/**
 * PD answers (parsed losslessly) to the port's types. Field names follow PD's JSON exactly
 * (`member_id`, `state_name`, `max-replicas`, …) so a reader can check them against pdapi.go.
 */
import { asArray, asBoolean, asId, asNumber, asRecord, asString, asStringList } from '../components/json.js';
import type { PdCluster, PdConfig, PdMember, PdMemberHealth, PdMembers, PdStore } from './port.js';

/** A pdpb.Member object. */
export function toMember(v: unknown): PdMember {
  const m = asRecord(v);
  return {
    name: asString(m.name),
    memberId: asId(m.member_id, `PD member ${asString(m.name)}`),
    peerUrls: asStringList(m.peer_urls),
    clientUrls: asStringList(m.client_urls),
  };
}

/** GET /pd/api/v1/members. An absent or empty leader object means there is none. */
export function toMembers(v: unknown): PdMembers {
  const body = asRecord(v);
  const leader = optionalMember(body.leader);
  const etcdLeader = optionalMember(body.etcd_leader);
  return {
    members: asArray(body.members).map(toMember),
    ...(leader ? { leader } : {}),
    ...(etcdLeader ? { etcdLeader } : {}),
  };
}

function optionalMember(v: unknown): PdMember | undefined {
  const m = asRecord(v);
  return m.member_id === undefined ? undefined : toMember(m);
}

/** GET /pd/api/v1/health: an array of members with a `health` flag. */
export function toHealth(v: unknown): PdMemberHealth[] {
  return asArray(v).map((item) => {
    const h = asRecord(item);
    return { name: asString(h.name), memberId: asId(h.member_id, `PD health of ${asString(h.name)}`), clientUrls: asStringList(h.client_urls), health: asBoolean(h.health) };
  });
}

/** GET /pd/api/v1/cluster (metapb.Cluster). */
export function toCluster(v: unknown): PdCluster {
  const c = asRecord(v);
  return { id: asId(c.id, 'PD cluster'), maxPeerCount: asNumber(c.max_peer_count) };
}

/** One `{store, status}` item of GET /pd/api/v1/stores. */
export function toStore(v: unknown): PdStore {
  const item = asRecord(v);
  const store = asRecord(item.store);
  const status = asRecord(item.status);
  return {
    id: asId(store.id, 'PD store'),
    address: asString(store.address),
    stateName: asString(store.state_name),
    labels: asArray(store.labels).map((l) => ({ key: asString(asRecord(l).key), value: asString(asRecord(l).value) })),
    version: asString(store.version),
    leaderCount: asNumber(status.leader_count),
    regionCount: asNumber(status.region_count),
    capacity: asString(status.capacity),
    available: asString(status.available),
    lastHeartbeatTs: asString(status.last_heartbeat_ts),
  };
}

/** GET /pd/api/v1/config; `location-labels` may be a list or a comma string, booleans may be strings. */
export function toConfig(v: unknown): PdConfig {
  const r = asRecord(asRecord(v).replication);
  const downTime = asRecord(asRecord(v).schedule)['max-store-down-time'];
  const maxStoreDownTimeMs = typeof downTime === 'string' ? goDurationMs(downTime) : undefined;
  return {
    replication: {
      maxReplicas: asNumber(r['max-replicas']),
      locationLabels: asStringList(r['location-labels']),
      enablePlacementRules: asBoolean(r['enable-placement-rules']),
    },
    ...(maxStoreDownTimeMs === undefined ? {} : { schedule: { maxStoreDownTimeMs } }),
  };
}

const GO_DURATION_UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };

/** A Go `time.Duration` string as PD writes it (`30m0s`, `1h30m0s`, `500ms`) in ms; undefined when it is not one. */
export function goDurationMs(value: string): number | undefined {
  let total = 0;
  let consumed = 0;
  for (const match of value.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) {
    total += Number(match[1]) * (GO_DURATION_UNIT_MS[match[2] ?? ''] ?? Number.NaN);
    consumed += match[0].length;
  }
  return consumed > 0 && consumed === value.length && Number.isFinite(total) ? total : undefined;
}

/**
 * The store ids of a merged evict-leader scheduler: the keys of `store-id-ranges` in
 * GET /pd/api/v1/scheduler-config/evict-leader-scheduler/list.
 */
export function toEvictLeaderStoreIds(v: unknown): string[] {
  return Object.keys(asRecord(asRecord(v)['store-id-ranges'])).filter((k) => /^\d+$/.test(k));
}
