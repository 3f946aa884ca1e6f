/**
 * A map bounded to its `max` most recently used keys: what a warm process keeps across invocations
 * (observations, cluster ids) stays bounded however many clusters it serves. A Map iterates in
 * insertion order, so re-inserting a key on use keeps the least recently used first.
 */
export class LruMap<K, V> {
  private readonly items = new Map<K, V>();

  /** `max` ≥ 0 keys are kept; with 0 nothing is. */
  constructor(readonly max: number) {}

  /** How many keys are kept now. */
  get size(): number {
    return this.items.size;
  }

  /** The value of `key`, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.items.get(key);
    if (value !== undefined) this.set(key, value);
    return value;
  }

  /** The value of `key`, its place in the order left as it is. */
  peek(key: K): V | undefined {
    return this.items.get(key);
  }

  /** Sets `key` as the most recently used, dropping the least recently used beyond `max`. */
  set(key: K, value: V): void {
    this.items.delete(key);
    this.items.set(key, value);
    for (const oldest of this.items.keys()) {
      if (this.items.size <= this.max) break;
      this.items.delete(oldest);
    }
  }

  /** Every key and value, least recently used first (a copy; the order is left as it is). */
  entries(): [K, V][] {
    return [...this.items];
  }

  delete(key: K): void {
    this.items.delete(key);
  }
}
