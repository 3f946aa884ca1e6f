/**
 * The key space of PD's embedded etcd that others write into beside PD itself — today BR's log
 * backup keys under `/tidb/br-stream/` (br/pkg/streamhelper/models.go in pingcap/tidb): keys and
 * values are bytes, each put raises the store's revision, and a key remembers the revision that
 * created it, the one that last changed it, and how many times it was put (etcd's mvccpb.KeyValue).
 * Ranges follow etcd's RangeRequest: `key` alone is that key, `range_end` is the exclusive end
 * (`key + 1` in its last byte is "every key with this prefix"), and a `range_end` of one zero
 * byte means "every key from `key` on". Results come sorted by key, as etcd returns them.
 */

/** One stored key (etcd's mvccpb.KeyValue). */
export type EtcdKeyValue = {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly createRevision: number;
  readonly modRevision: number;
  readonly version: number;
};

/** The keys of one PD cluster's etcd. */
export class EtcdKv {
  private readonly entries = new Map<string, EtcdKeyValue>();
  private rev = 1;

  /** The store's current revision (etcd starts at 1). */
  get revision(): number {
    return this.rev;
  }

  /** Puts `value` at `key` (a new revision). */
  put(key: string, value: Buffer): void {
    const id = Buffer.from(key).toString('latin1');
    const before = this.entries.get(id);
    this.rev += 1;
    this.entries.set(id, { key: Buffer.from(key), value, createRevision: before?.createRevision ?? this.rev, modRevision: this.rev, version: (before?.version ?? 0) + 1 });
  }

  /** Deletes `key` and, with `prefix`, every key that starts with it; one revision when anything went. */
  delete(key: string, prefix = false): number {
    const start = Buffer.from(key);
    const gone = [...this.entries.entries()].filter(([, kv]) => (prefix ? kv.key.subarray(0, start.length).equals(start) : kv.key.equals(start)));
    for (const [id] of gone) this.entries.delete(id);
    if (gone.length > 0) this.rev += 1;
    return gone.length;
  }

  /** The keys in [`key`, `rangeEnd`) — or `key` alone when `rangeEnd` is empty — sorted by key bytes. */
  range(key: Buffer, rangeEnd: Buffer): EtcdKeyValue[] {
    const all = [...this.entries.values()];
    if (rangeEnd.length === 0) return all.filter((kv) => kv.key.equals(key));
    const toEnd = rangeEnd.length === 1 && rangeEnd[0] === 0;
    return all.filter((kv) => Buffer.compare(kv.key, key) >= 0 && (toEnd || Buffer.compare(kv.key, rangeEnd) < 0)).sort((a, b) => Buffer.compare(a.key, b.key));
  }
}
