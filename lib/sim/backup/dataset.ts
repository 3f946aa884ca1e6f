/**
 * The notional dataset each simulated TiDB cluster holds, so that backups and restores can be
 * checked end to end: a version that a simulated workload advances (`writesPerMinute`, each write
 * `bytesPerWrite`), with a checksum per version of a lineage (the cluster whose writes produced the
 * data). A cluster starts empty (version 0, fresh); a restore gives it the version and lineage of
 * the backup it read, so its checksum equals the source's at the backup's (or PiTR's) timestamp.
 * Versions are computed lazily from segments on the virtual clock — nothing ticks.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';

/** The dataset at one instant. */
export type DatasetPoint = { readonly tsMs: number; readonly lineage: string; readonly version: number; readonly checksum: string; readonly sizeBytes: number };

/** A stretch of a cluster's history: from `fromMs`, `baseVersion` of `lineage` plus the workload's writes. */
export type Segment = { fromMs: number; lineage: string; baseVersion: number; writesPerMinute: number };

/** How big one write is (default 1 MiB): the dataset's size is version × this. */
export const DEFAULT_BYTES_PER_WRITE = 1024 * 1024;

/** The checksum of `version` of a lineage; the empty dataset's is `0`. */
export function datasetChecksum(lineage: string, version: number): string {
  if (version === 0) return '0';
  return createHash('sha256').update(`${lineage}:${version}`).digest('hex').slice(0, 16);
}

/** The datasets of every cluster of a world. */
export class Datasets {
  private readonly segments = new Map<string, Segment[]>();

  constructor(
    private readonly clock: Clock,
    private readonly bytesPerWrite = DEFAULT_BYTES_PER_WRITE,
  ) {}

  /** Starts (or changes) the workload writing to cluster `namespace/name` from now on. */
  setWorkload(namespace: string, name: string, writesPerMinute: number): void {
    const now = this.at(namespace, name, this.clock.nowMs());
    this.push(namespace, name, { fromMs: this.clock.nowMs(), lineage: now.version === 0 ? `${namespace}/${name}` : now.lineage, baseVersion: now.version, writesPerMinute });
  }

  /** The dataset of cluster `namespace/name` at `tsMs` (now by default). */
  at(namespace: string, name: string, tsMs = this.clock.nowMs()): DatasetPoint {
    const segs = this.segments.get(`${namespace}/${name}`) ?? [];
    const seg = [...segs].reverse().find((s) => s.fromMs <= tsMs);
    if (!seg) return { tsMs, lineage: `${namespace}/${name}`, version: 0, checksum: '0', sizeBytes: 0 };
    const version = seg.baseVersion + Math.floor(((tsMs - seg.fromMs) * seg.writesPerMinute) / 60_000);
    return { tsMs, lineage: seg.lineage, version, checksum: datasetChecksum(seg.lineage, version), sizeBytes: version * this.bytesPerWrite };
  }

  /** The segments in force at some instant of [fromMs, toMs] (what a log backup flush records). */
  segmentsBetween(namespace: string, name: string, fromMs: number, toMs: number): Segment[] {
    const segs = this.segments.get(`${namespace}/${name}`) ?? [];
    return segs.filter((s, i) => s.fromMs <= toMs && (segs[i + 1]?.fromMs ?? Infinity) > fromMs).map((s) => ({ ...s }));
  }

  /** Whether the cluster holds any data now (BR's "fresh cluster" check fails when it does). */
  hasData(namespace: string, name: string): boolean {
    return this.at(namespace, name).version > 0;
  }

  /** A restore: the cluster now holds `point`'s data (and no workload writes to it). */
  restore(namespace: string, name: string, point: Pick<DatasetPoint, 'lineage' | 'version'>): void {
    this.push(namespace, name, { fromMs: this.clock.nowMs(), lineage: point.lineage, baseVersion: point.version, writesPerMinute: 0 });
  }

  private push(namespace: string, name: string, seg: Segment): void {
    const key = `${namespace}/${name}`;
    const segs = (this.segments.get(key) ?? []).filter((s) => s.fromMs < seg.fromMs);
    this.segments.set(key, [...segs, seg]);
  }
}

/** The dataset `segments` describe at `tsMs` (the last segment starting at or before it), or undefined. */
export function pointIn(segments: readonly Segment[], tsMs: number): { lineage: string; version: number } | undefined {
  const seg = [...segments].sort((a, b) => a.fromMs - b.fromMs).filter((s) => s.fromMs <= tsMs).pop();
  if (!seg) return undefined;
  return { lineage: seg.lineage, version: seg.baseVersion + Math.floor(((tsMs - seg.fromMs) * seg.writesPerMinute) / 60_000) };
}

/** A TSO (PD timestamp) of a wall-clock instant: `unixMillis << 18`, as a decimal string. */
export function tsoOf(ms: number): string {
  return (BigInt(Math.floor(ms)) << 18n).toString();
}

/** The wall-clock instant of a TSO (decimal string), or of a `2006-01-02 15:04:05` / RFC 3339 time; undefined when unparsable. */
export function msOfTs(ts: string): number | undefined {
  if (/^\d+$/.test(ts)) return Number(BigInt(ts) >> 18n);
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(ts) ? `${ts.replace(' ', 'T')}Z` : ts);
  return Number.isNaN(ms) ? undefined : ms;
}
