/**
 * The DynamoDB adapter of the State port. It uses only GetItem, PutItem, UpdateItem, DeleteItem and
 * Query (what both dynalite and DynamoDB Local support): no transactions and no
 * ReturnValuesOnConditionCheckFailure. Everything a fence guards lives in the `state` item (lease,
 * fence, dirty flag, wake-ups and the deadlines map), so each fenced write is one conditional request.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError, TerminalError } from '../platform/errors.js';
import {
  and,
  fenceIs,
  heldByMe,
  itemAbsent,
  type Expr,
  leaseIsFree,
  leaseIsHeld,
  leaseIsOwned,
  leaseNotExpired,
  schemaKnown,
  wakeIsUnsetOrLater,
} from './conditions.js';
import { fitHistoryRecord } from './history-fit.js';
import { toDeadlines, toHistory, toStateRecord, toStoreIds, withoutUndefined } from './items.js';
import { CHECKPOINT_SK, HISTORY_PREFIX, STATE_SK, checkpointPk, clusterPk, deadlineId, historySk, storeIdEntry } from './keys.js';
import type {
  CallOptions,
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
} from './port.js';
import { StateTable, callSignal, conditionHeld, ifConditionHolds, type Ref } from './requests.js';
import { ATTR, STATE_SCHEMA_VERSION } from './table.js';

/**
 * Adapter settings. `callTimeoutMs` bounds each port call unless the caller passes its own bound.
 * `unclaimedTtlSeconds` (default 7 days) is how long an item that `markDirty` or `setNextWake`
 * created for a never-claimed key lives; `nowMs` (default the wall clock, which DynamoDB TTL reads)
 * dates it.
 */
export type DynamoStateStoreOptions = {
  tableName: string;
  callTimeoutMs?: number;
  maxClaimAttempts?: number;
  unclaimedTtlSeconds?: number;
  nowMs?: () => number;
};

const DEFAULT_CALL_TIMEOUT_MS = 3000;
const DEFAULT_MAX_CLAIM_ATTEMPTS = 3;
const DEFAULT_UNCLAIMED_TTL_SECONDS = 7 * 24 * 3600;

/**
 * `StateStore` on one DynamoDB table (layout in `keys.ts`/`table.ts`). Give it a DocumentClient, or
 * a DynamoDBClient which it wraps with `removeUndefinedValues`. Conditional failures become
 * `ConflictError`; the adapter never does a read-modify-write without a condition.
 */
export class DynamoStateStore implements StateStore {
  private readonly table: StateTable;
  private readonly callTimeoutMs: number;
  private readonly maxClaimAttempts: number;
  private readonly unclaimedTtlSeconds: number;
  private readonly nowMs: () => number;

  constructor(client: DynamoDBClient | DynamoDBDocumentClient, options: DynamoStateStoreOptions) {
    this.table = new StateTable(client, options.tableName);
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.maxClaimAttempts = options.maxClaimAttempts ?? DEFAULT_MAX_CLAIM_ATTEMPTS;
    this.unclaimedTtlSeconds = options.unclaimedTtlSeconds ?? DEFAULT_UNCLAIMED_TTL_SECONDS;
    this.nowMs = options.nowMs ?? Date.now;
  }

  async claim(
    key: ClusterKey,
    owner: string,
    nowMs: number,
    leaseForMs: number,
    opts?: CallOptions,
  ): Promise<ClaimResult> {
    if (owner === '' || !(leaseForMs > 0)) {
      throw new TerminalError(`claim ${key}: owner must be set and leaseForMs > 0`);
    }
    const signal = this.signal(opts);
    // Without ReturnValuesOnConditionCheckFailure a lost claim cannot say who won, so the loser
    // marks the key dirty *conditional on the lease being held*: that write returns the holder,
    // and if it fails the lease was freed in between and the claim is simply tried again.
    for (let attempt = 0; attempt < this.maxClaimAttempts; attempt++) {
      const taken = await this.takeLease(key, owner, nowMs, leaseForMs, signal);
      if (taken) return { claimed: true, fence: taken.state.fence, state: taken.state, deadlines: taken.deadlines, storeIds: taken.storeIds };
      const held = await this.markDirtyWhileHeld(key, nowMs, signal);
      if (held) return { claimed: false, ...held };
      await this.refuseNewerSchema(key, signal);
    }
    throw new ConflictError(`claim ${key}: the lease changed hands ${this.maxClaimAttempts} times during the claim`);
  }

  async release(
    key: ClusterKey,
    owner: string,
    fence: number,
    update: ReleaseUpdate,
    opts?: CallOptions,
  ): Promise<ReleaseResult> {
    const wake = update.nextWakeAtMs;
    const set = ['#failures = :failures', '#lastStep = :lastStep', '#dirty = :false'];
    const remove = ['#leaseOwner', '#leaseUntilMs'];
    if (wake === undefined) remove.push('#nextWakeAtMs');
    else set.push('#nextWakeAtMs = :wake');
    const values = { ':failures': update.failures, ':lastStep': withoutUndefined(update.lastStep), ':false': false };
    // ALL_OLD hands back the dirty flag as it was at the moment this write cleared it.
    const old = await this.table.update(
      `release ${key}`,
      this.signal(opts),
      stateRef(key),
      {
        update: `SET ${set.join(', ')} REMOVE ${remove.join(', ')}`,
        values: wake === undefined ? values : { ...values, ':wake': wake },
        condition: and(heldByMe(owner), fenceIs(fence)),
      },
      'ALL_OLD',
    );
    return { wasDirty: old?.[ATTR.dirty] === true };
  }

  async markDirty(key: ClusterKey, opts?: CallOptions): Promise<void> {
    const update = 'SET #key = :key, #dirty = :true';
    await this.updateOrCreateExpiring(`markDirty ${key}`, this.signal(opts), key, { update, values: { ':true': true } });
  }

  async get(key: ClusterKey, opts?: CallOptions): Promise<StateRecord | undefined> {
    const item = await this.table.get(`get ${key}`, this.signal(opts), stateRef(key));
    return item ? toStateRecord(key, item) : undefined;
  }

  async getMany(keys: readonly ClusterKey[], opts?: CallOptions): Promise<Map<ClusterKey, StateRecord>> {
    const byRef = new Map(keys.map((key) => {
      const ref = stateRef(key);
      return [`${ref.pk}\u0000${ref.sk}`, key] as const;
    }));
    const items = keys.length === 0 ? [] : await this.table.batchGet(`getMany ${keys[0]} (+${keys.length - 1})`, this.signal(opts), keys.map(stateRef));
    const out = new Map<ClusterKey, StateRecord>();
    for (const item of items) {
      const key = byRef.get(`${String(item[ATTR.pk])}\u0000${String(item[ATTR.sk])}`);
      if (key !== undefined) out.set(key, toStateRecord(key, item));
    }
    return out;
  }

  async setNextWake(key: ClusterKey, atMs: number, opts?: CallOptions): Promise<boolean> {
    // An earlier (or equal) wake-up already set is kept: that is the rule, not a failure.
    const update = 'SET #key = :key, #nextWakeAtMs = :atMs';
    const parts = { update, values: { ':atMs': atMs }, condition: wakeIsUnsetOrLater(atMs) };
    return conditionHeld(this.updateOrCreateExpiring(`setNextWake ${key}`, this.signal(opts), key, parts));
  }

  async forget(key: ClusterKey, owner: string, fence: number, expiresAtSeconds: number, opts?: CallOptions): Promise<void> {
    if (!Number.isSafeInteger(expiresAtSeconds) || expiresAtSeconds <= 0) {
      throw new TerminalError(`forget ${key}: expiresAtSeconds must be a positive integer`, { field: 'expiresAtSeconds' });
    }
    // One conditional write: the condition proves the lease, so a stale step changes nothing; the
    // deadlines and store ids live in the state item and go with the wake-up and the failure count.
    await this.table.update(`forget ${key}`, this.signal(opts), stateRef(key), {
      update: 'SET #expiresAt = :expiresAt, #failures = :zero, #deadlines = :noDeadlines, #storeIds = :noStoreIds REMOVE #nextWakeAtMs',
      values: { ':expiresAt': expiresAtSeconds, ':zero': 0, ':noDeadlines': {}, ':noStoreIds': {} },
      condition: and(heldByMe(owner), fenceIs(fence)),
    });
  }

  async assertLease(key: ClusterKey, owner: string, fence: number, nowMs: number, opts?: CallOptions): Promise<void> {
    // Rewrites the same value: UpdateItem is the one single-item request that takes a condition
    // without changing anything.
    await this.table.update(`lease check ${key}`, this.signal(opts), stateRef(key), {
      update: 'SET #fence = :fence',
      condition: and(heldByMe(owner), fenceIs(fence), leaseNotExpired(nowMs)),
    });
  }

  async putDeadline(key: ClusterKey, deadline: Deadline, fence: number, opts?: CallOptions): Promise<void> {
    const id = deadlineId(deadline.component, deadline.member, deadline.kind);
    const value = { ...withoutUndefined(deadline), [ATTR.fence]: fence };
    // The fence condition and the write are one request: no claim can land between them.
    await this.table.update(`putDeadline ${key} ${id}`, this.signal(opts), stateRef(key), {
      update: 'SET #deadlines.#deadline = :deadline',
      values: { ':deadline': value },
      names: { '#deadline': id },
      condition: and(fenceIs(fence), leaseIsOwned()),
    });
  }

  async putStoreId(key: ClusterKey, record: StoreIdRecord, fence: number, opts?: CallOptions): Promise<void> {
    const id = storeIdEntry(record.component, record.podName);
    // As deadlines: the fence condition and the write are one request.
    await this.table.update(`putStoreId ${key} ${id}`, this.signal(opts), stateRef(key), {
      update: 'SET #storeIds.#storeId = :storeId',
      values: { ':storeId': { component: record.component, podName: record.podName, storeId: record.storeId } },
      names: { '#storeId': id },
      condition: and(fenceIs(fence), leaseIsOwned()),
    });
  }

  async deleteDeadline(
    key: ClusterKey,
    which: Pick<Deadline, 'component' | 'member' | 'kind'>,
    fence: number,
    opts?: CallOptions,
  ): Promise<void> {
    const id = deadlineId(which.component, which.member, which.kind);
    // REMOVE of a missing map entry is not an error, so deleting a missing deadline succeeds.
    await this.table.update(`deleteDeadline ${key} ${id}`, this.signal(opts), stateRef(key), {
      update: 'REMOVE #deadlines.#deadline',
      names: { '#deadline': id },
      condition: and(fenceIs(fence), leaseIsOwned()),
    });
  }

  async listDeadlines(key: ClusterKey, opts?: CallOptions): Promise<StoredDeadline[]> {
    const item = await this.table.get(`listDeadlines ${key}`, this.signal(opts), stateRef(key));
    return item ? toDeadlines(item) : [];
  }

  async appendHistory(key: ClusterKey, record: HistoryRecord, ttlSeconds: number, opts?: CallOptions): Promise<void> {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) {
      throw new TerminalError(`appendHistory ${key}: ttlSeconds must be a positive integer`, { field: 'ttlSeconds' });
    }
    const ref = { pk: clusterPk(key), sk: historySk(record.atMs, record.fence) };
    // expiresAt is epoch *seconds*: the unit DynamoDB TTL reads.
    const expiresAt = Math.floor(record.atMs / 1000) + ttlSeconds;
    const item = { ...withoutUndefined(fitHistoryRecord(record)), ...ref, [ATTR.expiresAt]: expiresAt };
    await this.table.put(`appendHistory ${key} ${ref.sk}`, this.signal(opts), item, itemAbsent());
  }

  async listHistory(key: ClusterKey, limit: number, opts?: CallOptions): Promise<StoredHistoryRecord[]> {
    if (limit <= 0) return [];
    const what = `listHistory ${key}`;
    const items = await this.table.queryPrefix(what, this.signal(opts), clusterPk(key), HISTORY_PREFIX, {
      newestFirst: true,
      limit,
    });
    return items.map(toHistory);
  }

  async getCheckpoint(k8sCluster: string, resource: string, opts?: CallOptions): Promise<string | undefined> {
    const ref = { pk: checkpointPk(k8sCluster, resource), sk: CHECKPOINT_SK };
    const item = await this.table.get(`getCheckpoint ${ref.pk}`, this.signal(opts), ref);
    const rv = item?.['resourceVersion'];
    return typeof rv === 'string' ? rv : undefined;
  }

  async putCheckpoint(
    k8sCluster: string,
    resource: string,
    resourceVersion: string,
    opts?: CallOptions,
  ): Promise<void> {
    const ref = { pk: checkpointPk(k8sCluster, resource), sk: CHECKPOINT_SK };
    // Unconditional on purpose: resourceVersions are opaque (not comparable) and one exporter writes them.
    await this.table.put(`putCheckpoint ${ref.pk}`, this.signal(opts), { ...ref, resourceVersion });
  }

  /**
   * Applies `update` to the state item of `key`. When there is no item yet, it is created with the
   * unclaimed TTL (a claim removes it), so a trigger for a cluster no step ever claims leaves nothing
   * permanent. Creating is tried first because only `itemAbsent` tells the two cases apart without a
   * read; an existing item then gets the plain update. `condition` applies to the existing item.
   */
  private async updateOrCreateExpiring(
    what: string,
    signal: AbortSignal,
    key: ClusterKey,
    parts: { update: string; values: Record<string, unknown>; condition?: Expr },
  ): Promise<void> {
    const expiresAt = Math.floor(this.nowMs() / 1000) + this.unclaimedTtlSeconds;
    const values = { ...parts.values, ':key': key };
    const create = { update: `${parts.update}, #expiresAt = :expiresAt`, values: { ...values, ':expiresAt': expiresAt } };
    const created = await conditionHeld(this.table.update(what, signal, stateRef(key), { ...create, condition: itemAbsent() }));
    if (created) return;
    const condition = parts.condition;
    await this.table.update(what, signal, stateRef(key), { update: parts.update, values, ...(condition ? { condition } : {}) });
  }

  /**
   * Takes a free lease: fence +1, dirty cleared, the deadlines and store ids maps created if missing
   * (so fenced writes can address their entries), and any TTL removed (a claimed key is live again).
   * Undefined when the lease is not free.
   */
  /**
   * A claim that found the lease free but still failed may have met an item of a newer layout
   * (`schemaKnown`): read it, and refuse the key with a `TerminalError` naming both versions rather
   * than misread it. Returns quietly when the item's layout is known (the lease simply changed hands).
   */
  private async refuseNewerSchema(key: ClusterKey, signal: AbortSignal): Promise<void> {
    const item = await this.table.get(`get ${key}`, signal, stateRef(key));
    const version = item?.[ATTR.schema];
    if (typeof version === 'number' && version > STATE_SCHEMA_VERSION) {
      throw new TerminalError(
        `claim ${key}: its state item has layout version ${version}, and this reconciler knows up to ${STATE_SCHEMA_VERSION}; it will not step the key rather than misread it (deploy the newer version again, see docs/operations.md)`,
        { field: 'schemaVersion' },
      );
    }
  }

  private async takeLease(
    key: ClusterKey,
    owner: string,
    nowMs: number,
    leaseForMs: number,
    signal: AbortSignal,
  ): Promise<{ state: StateRecord; deadlines: StoredDeadline[]; storeIds: StoreIdRecord[] } | undefined> {
    const update =
      'SET #key = :key, #leaseOwner = :owner, #leaseUntilMs = :untilMs, #dirty = :false, ' +
      '#fence = if_not_exists(#fence, :zero) + :one, #failures = if_not_exists(#failures, :zero), ' +
      '#deadlines = if_not_exists(#deadlines, :noDeadlines), #storeIds = if_not_exists(#storeIds, :noStoreIds), #schema = :schema ' +
      // A claimed key is live again: a forgotten or unclaimed item's TTL goes.
      'REMOVE #expiresAt';
    const untilMs = nowMs + leaseForMs;
    const values = {
      ':key': key,
      ':owner': owner,
      ':untilMs': untilMs,
      ':false': false,
      ':zero': 0,
      ':one': 1,
      ':noDeadlines': {},
      ':noStoreIds': {},
      ':schema': STATE_SCHEMA_VERSION,
    };
    const parts = { update, values, condition: and(leaseIsFree(nowMs), schemaKnown(STATE_SCHEMA_VERSION)) };
    const item = await ifConditionHolds(this.table.update(`claim ${key}`, signal, stateRef(key), parts, 'ALL_NEW'));
    return item ? { state: toStateRecord(key, item), deadlines: toDeadlines(item), storeIds: toStoreIds(item) } : undefined;
  }

  /**
   * Sets dirty only while a live lease exists and returns that lease; undefined if none is held. The
   * same write records the lease's fence as the one whose expiry wake-up is armed: the old value it
   * returns tells whether this caller is the first to find this lease held.
   */
  private async markDirtyWhileHeld(
    key: ClusterKey,
    nowMs: number,
    signal: AbortSignal,
  ): Promise<{ heldBy: string; leaseUntilMs: number; fence: number; armExpiryWake: boolean } | undefined> {
    const parts = {
      update: 'SET #dirty = :true, #wakeFence = #fence',
      values: { ':true': true },
      condition: leaseIsHeld(nowMs),
    };
    const old = await ifConditionHolds(
      this.table.update(`claim ${key} (mark dirty)`, signal, stateRef(key), parts, 'ALL_OLD'),
    );
    if (!old) return undefined;
    const state = toStateRecord(key, old);
    if (!state.lease) return undefined;
    const armExpiryWake = old[ATTR.wakeFence] !== state.fence;
    return { heldBy: state.lease.owner, leaseUntilMs: state.lease.untilMs, fence: state.fence, armExpiryWake };
  }

  private signal(opts: CallOptions | undefined): AbortSignal {
    return callSignal(opts, this.callTimeoutMs);
  }
}

function stateRef(key: ClusterKey): Ref {
  return { pk: clusterPk(key), sk: STATE_SK };
}
