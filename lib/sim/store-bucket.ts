/**
 * The object store's per-kind storage: stored objects by `namespace/name`, indexed by namespace so a
 * namespaced LIST reads only its namespace and by label so a selected LIST (`app=x`) reads only the
 * objects carrying that label, and frozen so a reference the store hands out can never change what
 * is stored (the store replaces objects, it never edits them).
 */
import type { KubeObject } from './object.js';
import type { StoreEvent } from './store.js';
import { objectKey } from './object.js';

/**
 * Freezes a JSON value and everything it contains, in place, and returns it. Already-frozen parts are
 * skipped, so freezing a new object that shares frozen subtrees with an old one costs only the new
 * parts.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  return value;
}

/** Orders `namespace/name` keys as the store always has (`String.prototype.localeCompare`'s order). */
export const compareKeys: (a: string, b: string) => number = new Intl.Collator().compare;

/** The `namespace/name` key of a stored object. */
export function keyOf(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
}

/**
 * Labels every listed object must carry with exactly these values (a selector's `key=value` terms).
 * The store narrows its scan with them; the list's filter still decides what matches.
 */
export type LabelEquals = readonly { readonly key: string; readonly value: string }[];

/** The stored objects of one kind. Every object put here is deeply frozen first. */
export class KindBucket {
  private readonly all = new Map<string, KubeObject>();
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  /** `label key` → `value` → the keys of the objects carrying it. */
  private readonly byLabel = new Map<string, Map<string, Set<string>>>();

  /** The object stored under `key`, if any. */
  get(key: string): KubeObject | undefined {
    return this.all.get(key);
  }

  /** Whether an object is stored under `key`. */
  has(key: string): boolean {
    return this.all.has(key);
  }

  /** Stores `obj` (frozen) under its key, replacing what was there. */
  set(obj: KubeObject): KubeObject {
    const key = keyOf(obj);
    deepFreeze(obj);
    const old = this.all.get(key);
    // A write that kept the labels object (a status write, most controller writes) keeps the index as it is.
    if (old?.metadata.labels !== obj.metadata.labels) {
      this.unindex(key, old?.metadata.labels);
      this.index(key, obj.metadata.labels);
    }
    this.all.set(key, obj);
    const ns = obj.metadata.namespace ?? '';
    let inNs = this.byNamespace.get(ns);
    if (!inNs) this.byNamespace.set(ns, (inNs = new Map()));
    inNs.set(key, obj);
    return obj;
  }

  /** Removes the object stored under `obj`'s key. */
  delete(obj: KubeObject): void {
    const key = keyOf(obj);
    this.unindex(key, this.all.get(key)?.metadata.labels);
    this.all.delete(key);
    const ns = obj.metadata.namespace ?? '';
    const inNs = this.byNamespace.get(ns);
    inNs?.delete(key);
    if (inNs?.size === 0) this.byNamespace.delete(ns);
  }

  /**
   * The stored objects of one namespace, or of all namespaces when `namespace` is empty — or, when
   * `labels` are given and fewer objects carry one of them than the namespace holds, those objects
   * (still of that namespace only). Every object the namespace holds that carries all `labels` is
   * among them; the caller's filter decides the rest.
   */
  values(namespace?: string, labels: LabelEquals = []): Iterable<KubeObject> {
    const inScope = namespace ? this.byNamespace.get(namespace) : this.all;
    if (!inScope) return [];
    const narrowest = this.narrowest(labels);
    if (narrowest === undefined || narrowest.size >= inScope.size) return inScope.values();
    const out: KubeObject[] = [];
    for (const key of narrowest) {
      const obj = this.all.get(key);
      if (obj && (!namespace || obj.metadata.namespace === namespace)) out.push(obj);
    }
    return out;
  }

  /** The smallest set of keys carrying one of `labels` (empty when one is carried by none), if any label is given. */
  private narrowest(labels: LabelEquals): ReadonlySet<string> | undefined {
    let best: ReadonlySet<string> | undefined;
    for (const { key, value } of labels) {
      const keys = this.byLabel.get(key)?.get(value);
      if (!keys) return new Set();
      if (!best || keys.size < best.size) best = keys;
    }
    return best;
  }

  private index(key: string, labels: Readonly<Record<string, string>> | undefined): void {
    for (const [name, value] of Object.entries(labels ?? {})) {
      let values = this.byLabel.get(name);
      if (!values) this.byLabel.set(name, (values = new Map()));
      let keys = values.get(value);
      if (!keys) values.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, labels: Readonly<Record<string, string>> | undefined): void {
    for (const [name, value] of Object.entries(labels ?? {})) {
      const values = this.byLabel.get(name);
      const keys = values?.get(value);
      if (!values || !keys) continue;
      keys.delete(key);
      if (keys.size === 0) values.delete(value);
      if (values.size === 0) this.byLabel.delete(name);
    }
  }
}

/** The cluster IPs the stored Services hold (a Service's IP is counted once per Service). */
export class ServiceIps {
  private readonly byService = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  /** Whether a stored Service holds `ip`. */
  has(ip: string): boolean {
    return this.counts.has(ip);
  }

  /** Follows one write of a Service: `service` as stored now, or as it was when `deleted`. */
  follow(deleted: boolean, service: KubeObject): void {
    const key = keyOf(service);
    const was = this.byService.get(key);
    if (was !== undefined) {
      const left = (this.counts.get(was) ?? 1) - 1;
      if (left > 0) this.counts.set(was, left);
      else this.counts.delete(was);
      this.byService.delete(key);
    }
    if (deleted) return;
    const ip = String(service.spec?.clusterIP);
    this.byService.set(key, ip);
    this.counts.set(ip, (this.counts.get(ip) ?? 0) + 1);
  }
}

/**
 * The last `limit` events, oldest first, in resourceVersion order. Dropping the oldest is amortised
 * O(1) (the array is compacted once the dropped part outgrows the kept part), and a resumption point
 * is found by binary search.
 */
export class EventHistory {
  private events: StoreEvent[] = [];
  private head = 0;

  constructor(private readonly limit: number) {}

  /** Appends an event, forgetting the oldest beyond the limit. */
  push(ev: StoreEvent): void {
    this.events.push(ev);
    if (this.events.length - this.head > this.limit) this.head = this.events.length - this.limit;
    if (this.head > this.limit) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** The oldest retained event. */
  first(): StoreEvent | undefined {
    return this.events[this.head];
  }

  /** The retained events of `kind` with a resourceVersion above `fromRv`, oldest first. */
  since(kind: string, fromRv: number): StoreEvent[] {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid]?.resourceVersion ?? 0) > fromRv) hi = mid;
      else lo = mid + 1;
    }
    const out: StoreEvent[] = [];
    for (let i = lo; i < this.events.length; i++) {
      const ev = this.events[i];
      if (ev && ev.kind === kind) out.push(ev);
    }
    return out;
  }
}
