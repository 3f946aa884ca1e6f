/**
 * What the exporter does while its EKS cluster is at rest (docs/adr/0030). `watch`, the default:
 * every session watches for its whole period, so a change reaches the queue in about a second.
 * `catch-up`, opt-in: a session whose previous session was quiet resumes every watch from its
 * checkpoint for `CATCH_UP_WATCH_SECONDS` only, forwards what the API server replays, writes the
 * checkpoints and the watched-until mark, and ends — seconds of Lambda time a period instead of
 * the whole period. A catch-up that forwards anything stays as a full session for the rest of the
 * period, and the session after a busy one is full from its start, until one is quiet.
 *
 * How the last session went is kept beside the checkpoints, as a checkpoint item of the reserved
 * resource name `LAST_SESSION_RESOURCE` (`quiet` or `busy`; no watched resource is named with `!`).
 */
import type { CallOptions, StateStore } from '../state/port.js';
import { COVERAGE_STALE_MS } from './coverage.js';

/** The exporter's modes at rest; `EXPORTER_AT_REST` and serverless.yml's `exporterAtRest` name one. */
export const EXPORTER_AT_REST_MODES = ['watch', 'catch-up'] as const;

/** One mode at rest (see the module comment). */
export type ExporterAtRest = (typeof EXPORTER_AT_REST_MODES)[number];

/** The mode and the session period (the schedule's) a deployment runs its exporter with. */
export type AtRestSettings = { readonly mode: ExporterAtRest; readonly periodMs: number };

/** The mode when none is set: always watching (a user's edit is seen in about a second). */
export const DEFAULT_EXPORTER_AT_REST: ExporterAtRest = 'watch';

/**
 * How long a catch-up session's watches stay open. A watch resumed from a resourceVersion gets the
 * events since then from the API server's watch cache at once (the cacher replays them before any
 * new one, k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go `processInterval`), so a few seconds
 * cover the replay and its delivery; each kind's watch is still one request.
 */
export const CATCH_UP_WATCH_SECONDS = 5;

/** The checkpoint resource name under which the last session's verdict is kept. */
export const LAST_SESSION_RESOURCE = '!last-session';

/** How a session went: `quiet` forwarded nothing and left nothing pending; `busy` did. */
export type SessionVerdict = 'quiet' | 'busy';

/** What a session does: a catch-up (drain, then end when quiet) or a full session (watch the whole period). */
export type SessionPlan = 'catch-up' | 'full';

/**
 * The plan of the next session. Full in `watch` mode; in `catch-up` mode a catch-up only after a
 * quiet session — none recorded (a first session, a lost item) is taken as busy, so a new
 * deployment starts by watching.
 */
export function planSession(mode: ExporterAtRest, previous: SessionVerdict | undefined): SessionPlan {
  switch (mode) {
    case 'watch':
      return 'full';
    case 'catch-up':
      return previous === 'quiet' ? 'catch-up' : 'full';
    default: {
      const never: never = mode;
      throw new Error(`unknown exporter mode at rest ${String(never)}`);
    }
  }
}

/**
 * How old the watched-until mark may grow in `mode` before the sweep takes events as possibly
 * missed. Watching, three minutes (`COVERAGE_STALE_MS`). Catching up, a mark is written once a
 * period by a catch-up that may end in seconds: events after it are delayed until the next one,
 * not missed, so the mark is stale only past one period and the same three minutes (a late
 * Scheduler start, a slow drain).
 */
export function coverageStaleMs(mode: ExporterAtRest, sessionPeriodMs: number): number {
  return mode === 'catch-up' ? sessionPeriodMs + COVERAGE_STALE_MS : COVERAGE_STALE_MS;
}

/** `raw` (EXPORTER_AT_REST's value; unset or empty = the default) as a mode, or the problem naming `name`. */
export function parseExporterAtRest(raw: string | undefined, name = 'EXPORTER_AT_REST'): { ok: true; mode: ExporterAtRest } | { ok: false; problem: string } {
  const value = raw?.trim() ?? '';
  if (value === '') return { ok: true, mode: DEFAULT_EXPORTER_AT_REST };
  const mode = EXPORTER_AT_REST_MODES.find((m) => m === value);
  if (mode !== undefined) return { ok: true, mode };
  return { ok: false, problem: `${name}: ${JSON.stringify(value)} is not one of ${EXPORTER_AT_REST_MODES.join(', ')}` };
}

/** The last session's verdict for `k8sCluster` (undefined: none recorded, or not one of the two). */
export async function readLastSession(state: Pick<StateStore, 'getCheckpoint'>, k8sCluster: string, opts?: CallOptions): Promise<SessionVerdict | undefined> {
  const text = await state.getCheckpoint(k8sCluster, LAST_SESSION_RESOURCE, opts);
  return text === 'quiet' || text === 'busy' ? text : undefined;
}

/** Records how the session that just stopped went, for the next one's plan. */
export function writeLastSession(state: Pick<StateStore, 'putCheckpoint'>, k8sCluster: string, verdict: SessionVerdict, opts?: CallOptions): Promise<void> {
  return state.putCheckpoint(k8sCluster, LAST_SESSION_RESOURCE, verdict, opts);
}
