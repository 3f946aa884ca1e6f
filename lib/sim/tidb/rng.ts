/**
 * The simulator's only source of randomness: a seeded mulberry32 generator, so a run is the same
 * for the same seed. Member IDs, cluster IDs, capture IDs and election choices all draw from it.
 */

/** A seeded pseudo-random generator (mulberry32: 32-bit state, period 2^32, good enough for a simulation). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One element of a non-empty list, or undefined for an empty one. */
  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.int(items.length)];
  }

  /** 32 random bits as an unsigned integer. */
  uint32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }

  /**
   * A uint64 above 2^53 as decimal digits. PD member and cluster IDs are random uint64s, so in practice
   * they nearly always exceed what a JavaScript number holds exactly; the simulator makes it certain.
   */
  uint64AboveSafe(): string {
    const high = BigInt(this.uint32() | 0x00200000) & 0xffffffffn;
    const value = (high << 32n) | BigInt(this.uint32());
    return value.toString();
  }

  /** A version-4-shaped UUID. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  /** A child generator with its own stream, so adding draws in one part does not shift another. */
  fork(): Rng {
    return new Rng(this.uint32());
  }
}
