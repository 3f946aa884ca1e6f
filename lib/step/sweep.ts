/**
 * The sweep: the level-based backstop (kopf#698; docs/ARCHITECTURE.md, Queue semantics). Every interval it lists every TidbCluster
 * and enqueues its key, so a cluster is stepped at least once per interval whatever happened to its
 * events, timers or messages (lost, dropped, sent to the DLQ). Keys whose armed wake-up is about to
 * fire are left to it. When the exporter may have missed events it also lists the unfinished Backups,
 * Restores and CompactBackups and steps each (a plain sweep step, never the cheap check).
 */

import { mayHaveMissedEvents, type WatchedUntil } from '../exporter/coverage.js';
import type { ClusterKey } from '../model/key.js';
import type { Clock } from '../platform/clock.js';
import type { SweepConfig } from '../platform/config.js';
import type { Logger } from '../platform/logger.js';
import { METRIC, type Metrics } from '../platform/metrics.js';
import { DEFAULT_SWEEP_SEND_CONCURRENCY } from '../platform/config.js';
import { TerminalError, TransientError } from '../platform/errors.js';
import { chunk, type OutgoingMessage, PartialBatchError, SQS_MAX_BATCH, type ReconcileQueue } from '../queue/port.js';
import { fullStepsPerSweep, SweepSlots } from './sweep-spread.js';
import type { StateRecord, StateStore } from '../state/port.js';
import { HEALTH_REASON } from './ports.js';
import { sweepChoice, type ListedCluster } from './sweep-rest.js';

/**
 * Lists the keys of every TidbCluster the reconciler is responsible for (a LIST across namespaces);
 * `listed` gives the uid and generation of each, as the last listing saw them, when the lister kept
 * them (the sweep's cheap check needs them, sweep-rest.ts; without them every key is stepped in full).
 */
export interface ClusterLister {
  listClusterKeys(signal?: AbortSignal): Promise<ClusterKey[]>;
  listed?(): ReadonlyMap<ClusterKey, ListedCluster>;
  /**
   * The object keys (kind in the key, lib/model/object-key.ts) of the unfinished Backups, Restores and
   * CompactBackups (lib/wiring/object-lister.ts); listed only when the exporter may have missed events.
   */
  listObjectKeys?(signal?: AbortSignal): Promise<string[]>;
}

/** The sweep's ports. */
export type SweepPorts = {
  readonly lister: ClusterLister;
  readonly state: Pick<StateStore, 'getMany'>;
  readonly queue: Pick<ReconcileQueue, 'send'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * The exporter's watched-until mark (lib/exporter/coverage.ts): a time (stale after three minutes)
   * or a time with its own staleness (an exporter catching up, docs/adr/0030); without it every key
   * is stepped in full.
   */
  readonly watchedUntil?: (signal?: AbortSignal) => Promise<number | WatchedUntil | undefined>;
};

/**
 * What one sweep did: how many keys it listed, which it enqueued (for a full step or, `checked`, a
 * health check), which it left to their wake-up, and which at rest it left alone (`atRest`: a health
 * check pending, docs/adr/0024).
 */
export type SweepResult = {
  readonly listed: number;
  readonly enqueued: readonly ClusterKey[];
  readonly dueSoon: readonly { readonly key: ClusterKey; readonly nextWakeAtMs: number }[];
  readonly checked: readonly ClusterKey[];
  readonly atRest: readonly ClusterKey[];
  /**
   * Keys due a full step that this sweep left to the next: their EKS cluster's share of the API
   * budget for this sweep was taken (sweep-spread.ts `fullStepsPerSweep`, docs/adr/0028).
   */
  readonly held: readonly ClusterKey[];
};

/** The reason sweep messages carry. */
export const SWEEP_REASON = 'sweep';

/**
 * Whether a key's armed wake-up fires within `dueWithinMs` from now (strictly in the future: a past
 * wake-up may have been lost, so it does not count).
 */
export function isDueSoon(
  state: Pick<StateRecord, 'nextWakeAtMs'> | undefined,
  nowMs: number,
  dueWithinMs: number,
): boolean {
  const at = state?.nextWakeAtMs;
  return at !== undefined && at > nowMs && at <= nowMs + dueWithinMs;
}

/** Tries per batch send (the first and two retries) before the sweep reports its keys as not enqueued. */
export const SWEEP_SEND_ATTEMPTS = 3;
/** The wait before the first retry of a batch; it doubles for the next. */
export const SWEEP_RETRY_BASE_MS = 200;

type DueSoon = { key: ClusterKey; nextWakeAtMs: number };
type BatchResult = { enqueued: ClusterKey[]; dueSoon: DueSoon[]; checked: ClusterKey[]; atRest: ClusterKey[]; held: ClusterKey[]; unsent: ClusterKey[]; error?: unknown };
/** One message to send: a full step (`sweep`) or a health check with the due time the state names. */
type Outgoing = { key: ClusterKey; reason: string; dueAtMs?: number; checkTidbOperator?: true };
/** What the batches share: the listed identities and the exporter's mark, read once per sweep. */
type Check = { listed: ReadonlyMap<ClusterKey, ListedCluster>; watchedUntilMs: number | WatchedUntil | undefined };
/** What one sweep's batches share: the check, the send order and the spread's slots. */
type Shared = { check: Check; turns: SendTurns; slots: SweepSlots };

/**
 * Sweeps. Guarantees: every listed key is either enqueued (reason `sweep`, delayed by the next slot
 * of its EKS cluster's spread over `config.spreadSeconds`, in send order: sweep-spread.ts; or `health` for a cluster at rest whose health check is
 * not pending, sweep-rest.ts), reported as due soon, reported at rest with its health check pending,
 * or reported `held` (due a full step beyond its EKS cluster's share of the API budget for this
 * sweep: the next sweep sends it);
 * keys go out in batches of 10 (one SendMessageBatch each), at most `sendConcurrency` batches in
 * flight, started in list order. A batch whose send fails is retried (only the keys the queue names
 * as failed, when it names them) up to `SWEEP_SEND_ATTEMPTS` tries with a doubling wait; one failing
 * batch does not hold back the others. Keys still not enqueued at the end (or not reached before
 * `signal` aborts) make the sweep throw a `TransientError` counting them: its scheduler retries it,
 * and the next interval sweeps again. A listing error propagates at once.
 */
export async function runSweep(ports: SweepPorts, config: SweepConfig, signal?: AbortSignal): Promise<SweepResult> {
  const clusterKeys = await ports.lister.listClusterKeys(signal);
  const check: Check = { listed: ports.lister.listed?.() ?? new Map(), watchedUntilMs: await readMark(ports, config, signal) };
  const keys = [...clusterKeys, ...(await listObjectKeys(ports, check, signal))];
  const batches = chunk(keys, SQS_MAX_BATCH);
  const turns = new SendTurns(batches.length);
  const slots = new SweepSlots(config.spreadSeconds ?? 0, fullStepsPerSweep(config.spreadSeconds ?? 0, config.apiBudget));
  const results = await mapBounded(batches, config.sendConcurrency ?? DEFAULT_SWEEP_SEND_CONCURRENCY, signal, (batch, i) =>
    sweepBatch(ports, config, { check, turns, slots }, batch, i, signal),
  );
  const done = results.map((r, i) => r ?? { enqueued: [], dueSoon: [], checked: [], atRest: [], held: [], unsent: batches[i] ?? [], error: signal?.reason });
  const enqueued = done.flatMap((r) => r.enqueued);
  const dueSoon = done.flatMap((r) => r.dueSoon);
  const checked = done.flatMap((r) => r.checked);
  const atRest = done.flatMap((r) => r.atRest);
  const held = done.flatMap((r) => r.held);
  const unsent = done.flatMap((r) => r.unsent);
  ports.metrics.count(METRIC.sweepEnqueued, enqueued.length);
  ports.logger.info('sweep', { listed: keys.length, enqueued: enqueued.length, checked: checked.length, atRest: atRest.length, dueSoon: dueSoon.length, held: held.length, unsent: unsent.length });
  if (unsent.length > 0) {
    const cause = done.find((r) => r.error !== undefined)?.error;
    throw new TransientError(`sweep: ${unsent.length} of ${keys.length} keys not enqueued (first: ${unsent[0]}): ${errorText(cause)}`, { cause });
  }
  return { listed: keys.length, enqueued, dueSoon, checked, atRest, held };
}

/**
 * The keys of the unfinished backup kinds, when the lister lists them and the exporter may have missed
 * events (no mark, a stale one, or the cheap check off: `mayHaveMissedEvents`). While the mark is
 * fresh every change of those objects has reached the queue (their controllers arm their own timers
 * for what no event announces), so a sweep at rest costs no more LISTs than before.
 */
async function listObjectKeys(ports: SweepPorts, check: Check, signal: AbortSignal | undefined): Promise<string[]> {
  if (!ports.lister.listObjectKeys || !mayHaveMissedEvents(check.watchedUntilMs, ports.clock.nowMs())) return [];
  return ports.lister.listObjectKeys(signal);
}

/**
 * The exporter's watched-until mark, when the cheap check is on; a failed read is no mark (every key
 * is then stepped in full, as before the check).
 */
async function readMark(ports: SweepPorts, config: SweepConfig, signal: AbortSignal | undefined): Promise<number | WatchedUntil | undefined> {
  if (!ports.watchedUntil || (config.fullReadIntervalMs ?? 0) <= 0) return undefined;
  try {
    return await ports.watchedUntil(signal);
  } catch (error) {
    ports.logger.warn('sweep: the exporter\'s watched-until mark could not be read; stepping every cluster in full', { error: errorText(error) });
    return undefined;
  }
}

/**
 * One batch: read the keys' states (one request), leave the due-soon ones and those at rest with a
 * health check pending, send the rest — a full step or a health check (sweep-rest.ts) — in its turn,
 * retrying.
 */
async function sweepBatch(ports: SweepPorts, config: SweepConfig, { check, turns, slots }: Shared, batch: readonly ClusterKey[], index: number, signal?: AbortSignal): Promise<BatchResult> {
  const dueSoon: DueSoon[] = [];
  const atRest: ClusterKey[] = [];
  let pending: Outgoing[] = [];
  try {
    const nowMs = ports.clock.nowMs();
    const states = await ports.state.getMany(batch, { signal });
    batch.forEach((key) => {
      const state = states.get(key);
      if (state?.nextWakeAtMs !== undefined && isDueSoon(state, nowMs, config.dueWithinMs)) {
        dueSoon.push({ key, nextWakeAtMs: state.nextWakeAtMs });
        return;
      }
      const choice = sweepChoice({ key, state, listed: check.listed.get(key), nowMs, watchedUntilMs: check.watchedUntilMs, config });
      if (choice.kind === 'none') atRest.push(key);
      else if (choice.kind === 'health') pending.push({ key, reason: HEALTH_REASON, ...(choice.dueAtMs === undefined ? {} : { dueAtMs: choice.dueAtMs }) });
      else pending.push({ key, reason: SWEEP_REASON, ...(choice.checkTidbOperator ? { checkTidbOperator: true as const } : {}) });
    });
  } catch (error) {
    await turns.waitFor(index);
    turns.pass(index);
    return { enqueued: [], dueSoon: [], checked: [], atRest: [], held: [], unsent: [...batch], error };
  }
  let error: unknown;
  await turns.waitFor(index);
  // Slots are taken in send order (list order), once: a retried message keeps its delay. A full step
  // without a slot (the budget's share for this sweep is taken) is left to the next sweep.
  const delays = new Map<ClusterKey, number>();
  const held: ClusterKey[] = [];
  for (const { key, reason } of pending) {
    if (reason !== SWEEP_REASON) continue;
    const delay = slots.delaySecondsFor(key);
    if (delay === undefined) held.push(key);
    else delays.set(key, delay);
  }
  pending = pending.filter(({ key, reason }) => reason !== SWEEP_REASON || delays.has(key));
  const send = pending;
  for (let attempt = 1; pending.length > 0 && attempt <= SWEEP_SEND_ATTEMPTS; attempt++) {
    if (attempt > 1) await ports.clock.sleep(SWEEP_RETRY_BASE_MS * 2 ** (attempt - 2));
    if (signal?.aborted) {
      error ??= signal.reason;
      break;
    }
    const nowMs = ports.clock.nowMs();
    const sending = ports.queue.send(pending.map((outgoing) => outgoingMessage(outgoing, nowMs, delays.get(outgoing.key) ?? 0)));
    // The request is on its way: the next batch may send now (sends start in list order).
    turns.pass(index);
    try {
      await sending;
      pending = [];
    } catch (err) {
      error = err;
      if (err instanceof TerminalError) break;
      // The queue names the entries that failed; anything else may have sent nothing.
      if (err instanceof PartialBatchError) pending = pending.filter(({ key }) => err.failed.includes(key));
      ports.logger.warn('sweep batch not sent', { attempt, keys: pending.length, error: errorText(err) });
    }
  }
  turns.pass(index);
  const unsent = pending.map(({ key }) => key);
  const enqueued = send.filter(({ key }) => !unsent.includes(key));
  const checked = enqueued.filter(({ reason }) => reason === HEALTH_REASON).map(({ key }) => key);
  return { enqueued: enqueued.map(({ key }) => key), dueSoon, checked, atRest, held, unsent, error };
}

/** The message for one outgoing key: a full step delayed by its slot (`sweepMessage`), a health check at once. */
function outgoingMessage({ key, reason, dueAtMs, checkTidbOperator }: Outgoing, nowMs: number, delaySeconds: number): OutgoingMessage {
  if (reason === SWEEP_REASON) return sweepMessage(key, nowMs, delaySeconds, checkTidbOperator === true);
  return { message: { key, reason, enqueuedAtMs: nowMs, ...(dueAtMs === undefined ? {} : { dueAtMs }) } };
}

/**
 * The sweep's message for `key`: delayed by `delaySeconds` (its slot of the spread, sweep-spread.ts),
 * and stamped as enqueued when it becomes visible, as a timer's wake-up is (so queue lag is not the
 * delay); asking for a TiDB Operator re-check when `checkTidbOperator` (sweep-rest.ts).
 */
export function sweepMessage(key: ClusterKey, nowMs: number, delaySeconds: number, checkTidbOperator = false): OutgoingMessage {
  const message = { key, reason: SWEEP_REASON, enqueuedAtMs: nowMs + delaySeconds * 1000, ...(checkTidbOperator ? { checkTidbOperator: true as const } : {}) };
  return delaySeconds === 0 ? { message } : { message, delaySeconds };
}

/**
 * Start order of the batches' sends: batch i sends once batch i-1 has sent (or given up), so the
 * queue sees the keys in list order however the state reads interleave.
 */
class SendTurns {
  private readonly passed: { promise: Promise<void>; resolve: () => void }[];

  constructor(count: number) {
    this.passed = Array.from({ length: count }, () => {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
  }

  /** Resolves when every batch before `index` has sent or given up. */
  waitFor(index: number): Promise<void> {
    return index === 0 ? Promise.resolve() : (this.passed[index - 1]?.promise ?? Promise.resolve());
  }

  /** Lets the batch after `index` send (idempotent). */
  pass(index: number): void {
    this.passed[index]?.resolve();
  }
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight, taking items in order; once `signal`
 * aborts no new item starts (its result is undefined). Results are in item order.
 */
async function mapBounded<T, R>(items: readonly T[], limit: number, signal: AbortSignal | undefined, fn: (item: T, index: number) => Promise<R>): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !signal?.aborted) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
