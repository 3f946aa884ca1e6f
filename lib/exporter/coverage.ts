/**
 * Whether the exporter may have missed events (docs/adr/0024): while every watch of a Kubernetes
 * cluster is open and everything it saw is sent, the exporter records the time as that cluster's
 * *watched-until* mark, at most once per `COVERAGE_INTERVAL_MS`. A change made before that time has
 * reached the reconcile queue (a watch delivers events in order, and a session resumes from the
 * checkpoint, so a gap between sessions is read by the next one). A mark older than
 * `COVERAGE_STALE_MS` means the exporter is stopped, failing or behind: events may be missing, and
 * the sweep then steps every cluster in full, as it did before it checked cheaply.
 *
 * The mark is kept beside the checkpoints, as a checkpoint item of the reserved resource name
 * `COVERAGE_RESOURCE` whose value is the time in epoch milliseconds (no watched resource is named
 * with `!`). An exporter that catches up (at-rest.ts, docs/adr/0030) writes its own staleness after
 * it, `<ms>;stale=<ms>`: its marks are a period apart, and events after one are delayed, not missed.
 */
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { CallOptions, StateStore } from '../state/port.js';
import { errorText } from './checkpoints.js';

/** The checkpoint resource name under which the watched-until mark is kept. */
export const COVERAGE_RESOURCE = '!watched-until';

/** How often a running exporter records its watched-until mark. */
export const COVERAGE_INTERVAL_MS = 60_000;

/**
 * How old a mark may be before the sweep takes events as possibly missed: three intervals, so one
 * slow or failed write, or the gap between two sessions (their 10 s margin, and up to a minute more
 * when Scheduler starts the next one late in its minute), is not taken for an outage.
 */
export const COVERAGE_STALE_MS = 3 * COVERAGE_INTERVAL_MS;

/** A watched-until mark and how old it may grow before events may be missing. */
export type WatchedUntil = { readonly atMs: number; readonly staleMs: number };

/**
 * Records that every event of `k8sCluster` up to `atMs` has been sent; with a `staleMs` other than
 * `COVERAGE_STALE_MS`, that the mark stays good that long (an exporter catching up).
 */
export function writeWatchedUntil(state: Pick<StateStore, 'putCheckpoint'>, k8sCluster: string, atMs: number, opts?: CallOptions, staleMs = COVERAGE_STALE_MS): Promise<void> {
  const at = String(Math.floor(atMs));
  return state.putCheckpoint(k8sCluster, COVERAGE_RESOURCE, staleMs === COVERAGE_STALE_MS ? at : `${at};stale=${Math.floor(staleMs)}`, opts);
}

/** A mark's stored text as a mark (undefined when it does not read as one). */
export function parseWatchedUntil(text: string | undefined): WatchedUntil | undefined {
  const match = /^(\d+)(?:;stale=(\d+))?$/.exec(text ?? '');
  const atMs = Number(match?.[1]);
  const staleMs = match?.[2] === undefined ? COVERAGE_STALE_MS : Number(match[2]);
  return Number.isSafeInteger(atMs) && atMs > 0 && Number.isSafeInteger(staleMs) ? { atMs, staleMs } : undefined;
}

/**
 * Records the mark now, for a running exporter whose every watch is open and whose triggers are all
 * sent; a failed write is logged, never thrown (the mark simply ages).
 */
export async function markWatchedUntil(deps: { state: Pick<StateStore, 'putCheckpoint'>; clock: Clock; logger: Logger }, k8sCluster: string, staleMs = COVERAGE_STALE_MS): Promise<void> {
  try {
    await writeWatchedUntil(deps.state, k8sCluster, deps.clock.nowMs(), undefined, staleMs);
  } catch (err) {
    deps.logger.warn('exporter watched-until mark not written', { error: errorText(err) });
  }
}

/** The watched-until mark of `k8sCluster` with its staleness, if one was recorded (and reads as one). */
export async function readCoverage(state: Pick<StateStore, 'getCheckpoint'>, k8sCluster: string, opts?: CallOptions): Promise<WatchedUntil | undefined> {
  return parseWatchedUntil(await state.getCheckpoint(k8sCluster, COVERAGE_RESOURCE, opts));
}

/** The watched-until time of `k8sCluster`, if one was recorded (and reads as a time). */
export async function readWatchedUntil(state: Pick<StateStore, 'getCheckpoint'>, k8sCluster: string, opts?: CallOptions): Promise<number | undefined> {
  return (await readCoverage(state, k8sCluster, opts))?.atMs;
}

/**
 * Whether events up to `nowMs` may be missing: no mark, or one older than its staleness (a bare
 * time: `COVERAGE_STALE_MS`).
 */
export function mayHaveMissedEvents(mark: number | WatchedUntil | undefined, nowMs: number): boolean {
  if (mark === undefined) return true;
  const { atMs, staleMs } = typeof mark === 'number' ? { atMs: mark, staleMs: COVERAGE_STALE_MS } : mark;
  return atMs < nowMs - staleMs;
}
