/**
 * An in-memory `StateStore` with the DynamoDB adapter's semantics (leases with fences, dirty flag,
 * one expiry wake-up per held lease, earlier-only wake-ups, deadlines and store ids fenced in the same write,
 * history), for engine unit tests and for measuring the
 * engine's own overhead without I/O. The conformance of the real adapter is tested against dynalite.
 * TTLs are recorded (`expiresAtSeconds`), not enforced, as on dynalite and DynamoDB Local.
 */

import { ConflictError, TerminalError } from '../../lib/platform/errors.js';
import { fitHistoryRecord } from '../../lib/state/history-fit.js';
import type {
  ClaimResult,
  ClusterKey,
  Deadline,
  HistoryRecord,
  ReleaseResult,
  ReleaseUpdate,
  StateRecord,
  StateStore,
  StoreIdRecord,
  StoredDeadline,
  StoredHistoryRecord,
} from '../../lib/state/port.js';

type DeadlineRef = Pick<Deadline, 'component' | 'member' | 'kind'>;

const deadlineId = (d: DeadlineRef): string => `${d.component}#${d.member}#${d.kind}`;

const UNCLAIMED_TTL_SECONDS = 7 * 24 * 3600;

/** `StateStore` in memory; see the module comment. `nowMs` dates items created for unclaimed keys. */
export class MemoryStateStore implements StateStore {
  constructor(private readonly nowMs: () => number = Date.now) {}

  private readonly states = new Map<ClusterKey, StateRecord>();
  private readonly deadlines = new Map<ClusterKey, Map<string, StoredDeadline>>();
  private readonly storeIds = new Map<ClusterKey, Map<string, StoreIdRecord>>();
  private readonly history = new Map<ClusterKey, StoredHistoryRecord[]>();
  private readonly checkpoints = new Map<string, string>();
  /** Per key, the fence whose lease-expiry wake-up has been armed. */
  private readonly wakeFences = new Map<ClusterKey, number>();

  async claim(key: ClusterKey, owner: string, nowMs: number, leaseForMs: number): Promise<ClaimResult> {
    const state = this.stateOf(key);
    if (state.lease && state.lease.untilMs > nowMs) {
      this.states.set(key, { ...state, dirty: true });
      const armExpiryWake = this.wakeFences.get(key) !== state.fence;
      this.wakeFences.set(key, state.fence);
      const { owner: heldBy, untilMs: leaseUntilMs } = state.lease;
      return { claimed: false, heldBy, leaseUntilMs, fence: state.fence, armExpiryWake };
    }
    const { expiresAtSeconds: _live, ...kept } = state;
    const next = { ...kept, fence: state.fence + 1, lease: { owner, untilMs: nowMs + leaseForMs }, dirty: false };
    this.states.set(key, next);
    const storeIds = [...(this.storeIds.get(key)?.entries() ?? [])].sort(([a], [b]) => a.localeCompare(b)).map(([, r]) => ({ ...r }));
    return { claimed: true, fence: next.fence, state: { ...next }, deadlines: await this.listDeadlines(key), storeIds };
  }

  async release(key: ClusterKey, owner: string, fence: number, update: ReleaseUpdate): Promise<ReleaseResult> {
    const state = this.stateOf(key);
    if (state.lease?.owner !== owner || state.fence !== fence) {
      throw new ConflictError(`release ${key}: not held by ${owner}/${fence}`);
    }
    this.states.set(key, { ...state, ...update, lease: undefined, dirty: false });
    return { wasDirty: state.dirty };
  }

  async markDirty(key: ClusterKey): Promise<void> {
    this.states.set(key, { ...this.stateOrUnclaimed(key), dirty: true });
  }

  async get(key: ClusterKey): Promise<StateRecord | undefined> {
    const state = this.states.get(key);
    return state ? { ...state } : undefined;
  }

  async getMany(keys: readonly ClusterKey[]): Promise<Map<ClusterKey, StateRecord>> {
    const out = new Map<ClusterKey, StateRecord>();
    for (const key of keys) {
      const state = await this.get(key);
      if (state) out.set(key, state);
    }
    return out;
  }

  async setNextWake(key: ClusterKey, atMs: number): Promise<boolean> {
    const state = this.stateOrUnclaimed(key);
    if (state.nextWakeAtMs !== undefined && state.nextWakeAtMs <= atMs) return false;
    this.states.set(key, { ...state, nextWakeAtMs: atMs });
    return true;
  }

  async assertLease(key: ClusterKey, owner: string, fence: number, nowMs: number): Promise<void> {
    const { lease, fence: current } = this.stateOf(key);
    if (lease?.owner !== owner || current !== fence || lease.untilMs <= nowMs) {
      throw new ConflictError(`lease check ${key}: ${owner}/${fence} no longer holds a live lease`);
    }
  }

  async putDeadline(key: ClusterKey, deadline: Deadline, fence: number): Promise<void> {
    const map = this.fencedDeadlines(key, fence, deadline);
    map.set(deadlineId(deadline), { ...deadline, fence });
  }

  async putStoreId(key: ClusterKey, record: StoreIdRecord, fence: number): Promise<void> {
    const state = this.stateOf(key);
    if (state.fence !== fence || !state.lease) throw new ConflictError(`store id ${key}: fence ${fence} does not hold the lease`);
    const map = this.storeIds.get(key) ?? new Map<string, StoreIdRecord>();
    map.set(`${record.component}#${record.podName}`, { ...record });
    this.storeIds.set(key, map);
  }

  async deleteDeadline(key: ClusterKey, ref: DeadlineRef, fence: number): Promise<void> {
    this.fencedDeadlines(key, fence, ref).delete(deadlineId(ref));
  }

  async forget(key: ClusterKey, owner: string, fence: number, expiresAtSeconds: number): Promise<void> {
    if (!Number.isSafeInteger(expiresAtSeconds) || expiresAtSeconds <= 0) throw new TerminalError('expiresAtSeconds must be a positive integer');
    const state = this.stateOf(key);
    if (state.lease?.owner !== owner || state.fence !== fence) throw new ConflictError(`forget ${key}: not held by ${owner}/${fence}`);
    this.states.set(key, { ...state, failures: 0, nextWakeAtMs: undefined, expiresAtSeconds });
    // The deadlines and store ids live in the state item: they go in the same write.
    this.deadlines.delete(key);
    this.storeIds.delete(key);
  }

  async listDeadlines(key: ClusterKey): Promise<StoredDeadline[]> {
    const list = [...(this.deadlines.get(key)?.values() ?? [])];
    return list.sort((a, b) => deadlineId(a).localeCompare(deadlineId(b)));
  }

  async appendHistory(key: ClusterKey, record: HistoryRecord, ttlSeconds: number): Promise<void> {
    const list = this.history.get(key) ?? [];
    if (list.some((r) => r.atMs === record.atMs && r.fence === record.fence)) {
      throw new ConflictError('history record exists');
    }
    list.push({ ...fitHistoryRecord(record), expiresAtSeconds: Math.floor(record.atMs / 1000) + ttlSeconds });
    this.history.set(key, list);
  }

  async listHistory(key: ClusterKey, limit: number): Promise<StoredHistoryRecord[]> {
    const list = [...(this.history.get(key) ?? [])].sort((a, b) => b.atMs - a.atMs || b.fence - a.fence);
    return list.slice(0, Math.max(0, limit));
  }

  async getCheckpoint(k8sCluster: string, resource: string): Promise<string | undefined> {
    return this.checkpoints.get(`${k8sCluster}#${resource}`);
  }

  async putCheckpoint(k8sCluster: string, resource: string, resourceVersion: string): Promise<void> {
    this.checkpoints.set(`${k8sCluster}#${resource}`, resourceVersion);
  }

  private stateOf(key: ClusterKey): StateRecord {
    const existing = this.states.get(key);
    if (existing) return existing;
    return { key, fence: 0, lease: undefined, dirty: false, failures: 0, nextWakeAtMs: undefined, lastStep: undefined };
  }

  /** The key's state; a new one expires unless a claim follows (see `StateStore.markDirty`). */
  private stateOrUnclaimed(key: ClusterKey): StateRecord {
    const existing = this.states.get(key);
    return existing ?? { ...this.stateOf(key), expiresAtSeconds: Math.floor(this.nowMs() / 1000) + UNCLAIMED_TTL_SECONDS };
  }

  /** The key's deadlines, if `fence` still holds the lease (checked in the same write, as DynamoDB). */
  private fencedDeadlines(key: ClusterKey, fence: number, ref: DeadlineRef): Map<string, StoredDeadline> {
    const state = this.stateOf(key);
    if (state.fence !== fence || !state.lease) {
      throw new ConflictError(`deadline ${key} ${deadlineId(ref)}: fence ${fence} does not hold the lease`);
    }
    const map = this.deadlines.get(key) ?? new Map<string, StoredDeadline>();
    this.deadlines.set(key, map);
    return map;
  }
}
