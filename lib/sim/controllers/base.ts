/**
 * The shape every simulated controller shares, after client-go's workqueue: store events map to
 * keys, a key queued several times runs once, each key's sync runs on the clock (never inside the
 * store's listener, which must not write back), and a failed sync is retried — at once after a
 * lost race (409 Conflict, AlreadyExists, NotFound from a stale read), with back-off otherwise.
 * Level-triggered: a sync reads the world as it is, so a coalesced or missed event loses nothing.
 */
import type { TimerHandle } from '../../platform/clock.js';
import { ApiError } from '../api-error.js';
import type { KubeObject } from '../object.js';
import type { ObjectStore, StoreEvent } from '../store.js';

/** What a sync asks for: nothing more (until the next event), or another pass after `requeueAfterMs`. */
export type SyncResult = { requeueAfterMs?: number } | void;

/** A controller's behaviour: which keys an event touches, and how one key is brought to its goal. */
export type ControllerSpec = {
  /** Used in error messages. */
  readonly name: string;
  keysFor(ev: StoreEvent): readonly string[];
  sync(key: string): SyncResult;
  /** Keys to sync when the controller starts (objects that existed before it subscribed). */
  initialKeys?(): readonly string[];
};

/**
 * A sync that cannot finish yet for a reason that will pass (a PVC still being deleted, a name still
 * taken by a terminating pod): retried with back-off like any failure, without being reported.
 */
export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryLater';
  }
}

/** Where unexpected sync failures go; the default rethrows so a bug surfaces in the test that hit it. */
export type ErrorSink = (controller: string, key: string, err: unknown) => void;

const rethrow: ErrorSink = (_controller, _key, err) => {
  throw err;
};

// As client-go's default rate limiter: 5 ms doubling per failure, here capped at 10 s of clock.
const BASE_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 10_000;
// Lost races are retried at once this many times before backing off like any other failure.
const IMMEDIATE_RETRIES = 3;

/** A level-triggered controller on the store: coalesced keys, syncs on the clock, retries. */
export class LevelController {
  private readonly queued = new Map<string, { handle: TimerHandle; atMs: number }>();
  private readonly failures = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly spec: ControllerSpec,
    private readonly onError: ErrorSink = rethrow,
  ) {}

  /** Subscribes to the store and queues the initial keys. */
  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.store.subscribe((ev) => {
      for (const key of this.spec.keysFor(ev)) this.enqueue(key);
    });
    for (const key of this.spec.initialKeys?.() ?? []) this.enqueue(key);
  }

  /** Unsubscribes and drops every queued sync. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const { handle } of this.queued.values()) this.store.clock.clearTimer(handle);
    this.queued.clear();
  }

  /** Queues a sync of `key` after `afterMs`; an earlier queued sync of the same key wins (one run). */
  enqueue(key: string, afterMs = 0): void {
    const atMs = this.store.clock.nowMs() + Math.max(0, afterMs);
    const existing = this.queued.get(key);
    if (existing && existing.atMs <= atMs) return;
    if (existing) this.store.clock.clearTimer(existing.handle);
    const handle = this.store.clock.setTimer(() => this.run(key, handle), Math.max(0, afterMs));
    this.queued.set(key, { handle, atMs });
  }

  private run(key: string, handle: TimerHandle): void {
    if (this.queued.get(key)?.handle.id !== handle.id) return;
    this.queued.delete(key);
    try {
      const result = this.spec.sync(key);
      this.failures.delete(key);
      if (result && result.requeueAfterMs !== undefined) this.enqueue(key, result.requeueAfterMs);
    } catch (err) {
      const count = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, count);
      this.enqueue(key, retryDelayMs(err, count));
      if (!isExpected(err)) this.onError(this.spec.name, key, err);
    }
  }
}

function isLostRace(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 409 || err.code === 404);
}

function isExpected(err: unknown): boolean {
  return err instanceof ApiError || err instanceof RetryLater;
}

function retryDelayMs(err: unknown, failures: number): number {
  if (isLostRace(err) && failures <= IMMEDIATE_RETRIES) return 0;
  return Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (failures - 1));
}

/** `namespace/name` of an object, the key most controllers use. */
export function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** Splits a `namespace/name` key. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The owner's key when `obj`'s controller reference is of `kind`, else undefined. */
export function ownerKey(obj: KubeObject, kind: string): string | undefined {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  return ref && ref.kind === kind ? `${obj.metadata.namespace ?? ''}/${ref.name}` : undefined;
}

/** An owner reference that makes `owner` the controller of a dependent (controller + blockOwnerDeletion). */
export function controllerRef(owner: KubeObject): { apiVersion: string; kind: string; name: string; uid: string; controller: true; blockOwnerDeletion: true } {
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Whether `obj` is controlled by the object with `uid`. */
export function isControlledBy(obj: KubeObject, uid: string | undefined): boolean {
  return uid !== undefined && (obj.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid);
}

/**
 * `status` without the `omitempty` counters that are zero: the API server's Go types drop them from
 * the JSON (a StatefulSet with no ready pod has no readyReplicas field), so clients must cope with
 * their absence here exactly as on a real cluster.
 */
export function omitZero<T extends Record<string, unknown>>(status: T, omitempty: readonly string[]): Partial<T> {
  const out: Record<string, unknown> = { ...status };
  for (const key of omitempty) if (out[key] === 0) delete out[key];
  return out as Partial<T>;
}

/** Creation time in ms (0 when missing), for ordering. */
export function createdAtMs(obj: KubeObject): number {
  const ms = Date.parse(obj.metadata.creationTimestamp ?? '');
  return Number.isNaN(ms) ? 0 : ms;
}
