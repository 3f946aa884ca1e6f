/**
 * Clusters that refer to another one (`spec.cluster`, TiDB Operator's heterogeneous clusters and
 * clusters joining another's PD) learn of that cluster's changes — its PD members and stores, which
 * are their `peerMembers` and `peerStores` — from none of their own objects. This index, kept from
 * the TidbCluster watch the exporter reads anyway, lets an event of the referenced cluster also
 * queue its referrers:
 *
 * - a referrer is indexed from each of its events (ADDED, MODIFIED) and forgotten when it is deleted
 *   or no longer names a cluster; a LIST replaces the entries of the namespace it covers (the
 *   initial list after a restart, a relist after 410 Gone);
 * - a referenced cluster's event queues its referrers when it counts for that cluster itself
 *   (ADDED, DELETED, a meaningful change) or when only its status changed but the PD topology in it
 *   did (members and stores, their ids, names, health and states): the status write that records
 *   a new store is the referenced cluster's own echo, not the referrers';
 * - bounded: at most `maxReferrers` referrers are indexed (more are counted as not indexed; the
 *   sweep still covers them) and a topology fingerprint is kept only for referenced clusters.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/port.js';
import { formatClusterKey } from '../model/key.js';
import { canonicalJson } from './meaningful.js';
import type { WatchChange } from './ports.js';

/** One referrer: its namespace (the scope a LIST replaces) and the key of the cluster it names. */
export type ReferenceEntry = { readonly namespace: string; readonly target: string };

/** The default bound on indexed referrers. */
export const DEFAULT_MAX_REFERRERS = 10_000;

/** Settings of the index. */
export type ReferenceIndexOptions = {
  /** At most this many referrers are indexed (default `DEFAULT_MAX_REFERRERS`). */
  maxReferrers?: number;
  /** Told of each referrer left out because the index is full. */
  onUnindexed?: () => void;
};

/** Which clusters refer to which; see the module comment. */
export class ReferenceIndex {
  private readonly entries = new Map<string, ReferenceEntry>();
  private readonly byTarget = new Map<string, Set<string>>();
  private readonly topology = new Map<string, string>();

  constructor(
    private readonly k8sCluster: string,
    private readonly options: ReferenceIndexOptions = {},
  ) {}

  /** Referrers indexed now. */
  get size(): number {
    return this.entries.size;
  }

  /** The keys of the clusters whose `spec.cluster` names `key`, sorted. */
  referrersOf(key: string): string[] {
    return [...(this.byTarget.get(key) ?? [])].sort();
  }

  /**
   * Records one change of the TidbCluster of `key`; `meaningful` says whether it counts for that
   * cluster itself. Answers the keys of its referrers to queue now — none when nothing of interest
   * to them changed (see the module comment). Never throws.
   */
  observe(change: WatchChange, key: string, meaningful: boolean): string[] {
    if (change.type === 'DELETED') {
      this.forget(key);
      this.topology.delete(key);
      return this.referrersOf(key);
    }
    this.index(key, change.object);
    const referrers = this.referrersOf(key);
    if (referrers.length === 0) return referrers;
    const next = topologyFingerprint(change.object);
    const changed = this.topology.get(key) !== next;
    this.topology.set(key, next);
    return meaningful || changed ? referrers : [];
  }

  /**
   * Replaces the referrers in `namespace` (every namespace when undefined) with those among `items`,
   * a LIST of TidbClusters, and remembers the topology of the listed clusters others refer to.
   */
  reset(namespace: string | undefined, items: readonly KubeObject[]): void {
    for (const [key, entry] of [...this.entries]) if (namespace === undefined || entry.namespace === namespace) this.forget(key);
    const keyed = items.flatMap((object) => {
      const key = this.keyOf(object.metadata.namespace, object.metadata.name);
      return key === undefined ? [] : [{ key, object }];
    });
    for (const { key, object } of keyed) this.index(key, object);
    for (const { key, object } of keyed) if (this.byTarget.has(key)) this.topology.set(key, topologyFingerprint(object));
  }

  /** The entries, to carry into a later session that resumes from the same position. */
  snapshot(namespace: string | undefined): [string, ReferenceEntry][] {
    return [...this.entries].filter(([, e]) => namespace === undefined || e.namespace === namespace);
  }

  /** Takes carried entries back (those of a session that stopped where this one resumes). */
  restore(entries: Iterable<[string, ReferenceEntry]>): void {
    for (const [key, entry] of entries) this.link(key, entry);
  }

  /** Indexes `object` under `key`, or forgets it when it names no other cluster, or leaves it out when the index is full. */
  private index(key: string, object: KubeObject): void {
    const namespace = object.metadata.namespace ?? '';
    const target = this.targetOf(namespace, object.spec);
    if (target === undefined || target === key) this.forget(key);
    else if (this.entries.has(key) || this.entries.size < (this.options.maxReferrers ?? DEFAULT_MAX_REFERRERS)) this.link(key, { namespace, target });
    else this.options.onUnindexed?.();
  }

  private link(key: string, entry: ReferenceEntry): void {
    this.forget(key);
    this.entries.set(key, entry);
    const set = this.byTarget.get(entry.target) ?? new Set<string>();
    set.add(key);
    this.byTarget.set(entry.target, set);
  }

  /** Drops `key` as a referrer (and the topology of its target once nothing refers to it). */
  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    const set = this.byTarget.get(entry.target);
    set?.delete(key);
    if (set?.size === 0) {
      this.byTarget.delete(entry.target);
      this.topology.delete(entry.target);
    }
  }

  /** The key of the cluster `spec.cluster` names (its namespace defaults to the referrer's). */
  private targetOf(namespace: string, spec: Record<string, unknown> | undefined): string | undefined {
    const ref = spec?.cluster;
    if (typeof ref !== 'object' || ref === null) return undefined;
    const { name, namespace: refNamespace } = ref as { name?: unknown; namespace?: unknown };
    if (typeof name !== 'string' || name === '') return undefined;
    return this.keyOf(typeof refNamespace === 'string' && refNamespace !== '' ? refNamespace : namespace, name);
  }

  private keyOf(namespace: string | undefined, name: string | undefined): string | undefined {
    if (!namespace || !name) return undefined;
    try {
      return formatClusterKey({ k8sCluster: this.k8sCluster, namespace, name });
    } catch {
      return undefined;
    }
  }
}

type Json = unknown;

/** The PD topology a TidbCluster's status records: members and stores with what referrers show of them. */
export function topologyView(status: unknown): Json {
  const part = (name: string): Record<string, unknown> => record(record(status)[name]);
  const members = (m: unknown) => mapValues(m, (x) => ({ name: field(x, 'name'), id: field(x, 'id'), health: field(x, 'health') }));
  const stores = (s: unknown) => mapValues(s, (x) => ({ id: field(x, 'id'), ip: field(x, 'ip'), podName: field(x, 'podName'), state: field(x, 'state') }));
  const storesOf = (name: string) => ({ stores: stores(part(name).stores), peerStores: stores(part(name).peerStores), tombstoneStores: stores(part(name).tombstoneStores) });
  return { pd: { members: members(part('pd').members), peerMembers: members(part('pd').peerMembers) }, tikv: storesOf('tikv'), tiflash: storesOf('tiflash') };
}

function topologyFingerprint(object: KubeObject): string {
  return createHash('sha1').update(canonicalJson(topologyView(object.status))).digest('base64');
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function field(obj: unknown, name: string): Json {
  return record(obj)[name] ?? null;
}

function mapValues(value: unknown, fn: (x: unknown) => Json): Record<string, Json> {
  return Object.fromEntries(Object.entries(record(value)).map(([k, v]) => [k, fn(v)]));
}
