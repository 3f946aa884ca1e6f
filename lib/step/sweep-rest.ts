/**
 * The sweep's cheap check (docs/adr/0024): what the sweep sends for one listed TidbCluster, from what
 * it already has — the LIST's object and the key's state item — and the exporter's watched-until
 * mark. A full step (reason `sweep`, every kind read) unless everything says the cluster is at rest
 * and was read in full recently; then a health check when none is pending, else nothing.
 */
import { createHash } from 'node:crypto';

import { mayHaveMissedEvents, type WatchedUntil } from '../exporter/coverage.js';
import type { ClusterKey } from '../model/key.js';
import { parseObjectKey } from '../model/object-key.js';
import type { SweepConfig } from '../platform/config.js';
import type { StateRecord } from '../state/port.js';
import { HEALTH_PENDING_GRACE_MS } from './ports.js';

/** A listed TidbCluster's identity: its uid and its spec's generation. */
export type ListedCluster = { readonly uid: string; readonly generation: number };

/** What the sweep sends for a key: a full step, a health check, or nothing. */
export type SweepChoice = { readonly kind: 'full'; readonly checkTidbOperator?: true } | { readonly kind: 'health'; readonly dueAtMs: number | undefined } | { readonly kind: 'none' };

/**
 * What the check looks at. `watchedUntilMs` is the exporter's mark (undefined: none recorded or not
 * read): a time, or a time with its own staleness (an exporter catching up, docs/adr/0030).
 */
export type SweepCheckInput = {
  readonly key: ClusterKey;
  readonly state: StateRecord | undefined;
  readonly listed: ListedCluster | undefined;
  readonly nowMs: number;
  readonly watchedUntilMs: number | WatchedUntil | undefined;
  readonly config: Pick<SweepConfig, 'fullReadIntervalMs' | 'fullReadSpreadMs'>;
};

const FULL: SweepChoice = { kind: 'full' };

/** A full step that also re-checks the TiDB Operator verdict: the exporter's Deployment watch may have missed its start. */
const FULL_RECHECK: SweepChoice = { kind: 'full', checkTidbOperator: true };

/**
 * The choice. A plain full step for a key of another kind than TidbCluster. Full, with a TiDB Operator re-check, when the exporter may have missed events (its
 * controller-manager watch too, docs/adr/0024). Full when: the check is off (no `fullReadIntervalMs`); the exporter may have missed
 * events; the LIST gave no uid and generation; the key has no state, a lease not released (a step
 * running, or one that died holding it), a trigger owed (dirty) or failures; its last step did not complete or verified no TidbCluster; that one is
 * not the listed one (another uid, a changed spec); or its last full read is older than the interval
 * plus this key's share of the spread. Otherwise the cluster is at rest: nothing when a health check
 * is pending (due, or due less than `HEALTH_PENDING_GRACE_MS` ago), else a health check carrying the
 * due time the state item names (so the step takes it for the pending one).
 */
export function sweepChoice(input: SweepCheckInput): SweepChoice {
  const { state, listed, nowMs, config } = input;
  const intervalMs = config.fullReadIntervalMs ?? 0;
  // Another kind's key (a Backup, Restore or CompactBackup the sweep listed unfinished) has no health
  // check nor TiDB Operator verdict: a plain step.
  if (!isTidbClusterKey(input.key)) return FULL;
  if (mayHaveMissedEvents(input.watchedUntilMs, nowMs)) return FULL_RECHECK;
  if (intervalMs <= 0 || listed === undefined || state === undefined) return FULL;
  // A lease not released — held now, or left by a step that died — is no rest.
  if (state.lease !== undefined) return FULL;
  if (state.dirty || state.failures > 0) return FULL;
  const last = state.lastStep;
  const verified = last?.verified;
  if (last?.outcome !== 'complete' || verified === undefined || verified.fullAtMs === undefined) return FULL;
  if (verified.uid !== listed.uid || verified.generation !== listed.generation) return FULL;
  if (nowMs >= verified.fullAtMs + intervalMs + spreadOf(input.key, config.fullReadSpreadMs ?? 0)) return FULL;
  const pending = last.healthAtMs;
  if (pending !== undefined && pending + HEALTH_PENDING_GRACE_MS > nowMs) return { kind: 'none' };
  return { kind: 'health', dueAtMs: pending };
}

/** Whether `key` is a TidbCluster's (no kind prefix; an unparsable key is left to the step to refuse). */
function isTidbClusterKey(key: string): boolean {
  const parsed = parseObjectKey(key);
  return !parsed.ok || parsed.kind === 'TidbCluster';
}

/** The key's fixed share of `spreadMs` (from a hash of the key), so full reads of a fleet do not align. */
export function spreadOf(key: ClusterKey, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  const n = createHash('sha256').update(key).digest().readUInt32BE(0);
  return Math.floor((n / 0x1_0000_0000) * spreadMs);
}
