/**
 * The same simulated world and the same reconcile handler, triggered the way TiDB Operator v1's
 * TidbCluster controller is triggered instead of by our precise wake-ups — the model the operations
 * benchmark compares against (TiDB Operator's side as its `pkg/controller/tidbcluster/tidb_cluster_controller.go` works):
 *
 * - an informer event on the TidbCluster, or on a StatefulSet it owns, adds the key at once
 *   (TiDB Operator watches those two kinds; a Pod or a PD member changing is not an event);
 * - every 30 s the informer resync adds the key again (where a user action falls in that cycle is
 *   chance: see `OperatorRunOptions`);
 * - a sync that ends in `retry` or `fail` (TiDB Operator: a sync returning a RequeueError or any
 *   error) is re-added through the per-item exponential rate limiter, 1 s doubling to 100 s; a sync
 *   that ends in `complete` or `wait` forgets the item (its failure count goes back to 0); the
 *   limiter's overall token bucket (10 qps, burst 100) never binds for one key and is left out;
 * - the work queue holds a key once: adds while queued collapse; a delayed add keeps only the
 *   earliest time, and it does not cancel when an event adds the key sooner (client-go's delaying
 *   queue).
 *
 * Nothing else triggers a step: the wake-ups our steps arm, the exporter's triggers and the sweep
 * all go to the stack's queue, which this driver never reads. Steps take no virtual time, in both
 * drivers. The stack itself is not changed; this file only replaces `runScenario`'s delivery loop.
 */
import type { SQSEvent } from 'aws-lambda';
import { conditionHolds } from '../lib/local/simulate.js';
import type { Progress } from '../lib/local/scenario/progress.js';
import type { TimelineEntry } from '../lib/local/scenario/types.js';
import type { SimStack } from '../lib/local/sim-stack.js';
import { runVerb } from '../lib/local/timeline-verbs.js';
import type { KubeObject } from '../lib/sim/object.js';
import type { StoreEvent } from '../lib/sim/store.js';
import { clusterKeyOf } from '../lib/wiring/ports.js';

/** TiDB Operator v1's trigger discipline (informer resync, work-queue rate limiter), in ms. */
export const OPERATOR_MODEL = { resyncMs: 30_000, backoffBaseMs: 1_000, backoffMaxMs: 100_000 } as const;

/** Syncs run at one virtual instant before time is moved on by a millisecond (a key that keeps re-adding itself). */
const MAX_SYNCS_PER_INSTANT = 50;
/** A run that needs more syncs than this is a bug in the driver or the rules, not a measurement. */
const MAX_SYNCS = 20_000;

/**
 * `resyncPhaseMs`: how long after each user action (the cluster's creation and every timeline verb
 * that is not `advance` or `waitFor`) the next resync comes; the 30 s grid restarts there. A real
 * informer's grid does not care when an operation starts, so where an action lands in the resync
 * cycle is chance; the benchmark runs several phases (default: a full period). `onSync` traces.
 */
export type OperatorRunOptions = { readonly resyncPhaseMs?: number; readonly onSync?: (sync: SyncRecord) => void };

/** One sync, for tracing a run: when, why, and how the step ended (undefined when it did not run). */
export type SyncRecord = { readonly atMs: number; readonly reason: string; readonly outcome: string | undefined; readonly message: string | undefined; readonly requeueAfterMs: number | undefined };

/** What the driver did over a run. */
export type OperatorRunStats = { syncs: number; rateLimitedRequeues: number; longestBackoffMs: number };

/**
 * Runs `stack.scenario`'s timeline (created at t = 0, then every entry in order, as `runScenario`
 * does) with the TiDB-Operator-like driver; entries are reported to `progress` as they start and end.
 */
export async function runOperatorLike(stack: SimStack, progress: Progress, options: OperatorRunOptions = {}): Promise<OperatorRunStats> {
  const loop = new OperatorLoop(stack, options.resyncPhaseMs ?? OPERATOR_MODEL.resyncMs, options.onSync);
  const t0 = stack.clock.nowMs();
  try {
    applyCluster(stack);
    for (const entry of stack.scenario.timeline) {
      progress.entryStarted(entry, stack.clock.nowMs() - t0);
      const result = await runEntry(stack, loop, entry);
      const endMs = stack.clock.nowMs() - t0;
      progress.entryFinished(entry, result.ok ? { ok: true, endMs } : { ok: false, endMs, error: result.error });
      if (!result.ok) break;
    }
    return loop.stats();
  } finally {
    loop.stop();
  }
}

async function runEntry(stack: SimStack, loop: OperatorLoop, entry: TimelineEntry): Promise<{ ok: true } | { ok: false; error: string }> {
  const now = stack.clock.nowMs();
  if (entry.verb === 'advance') {
    await loop.runUntil(now + entry.durationMs);
    return { ok: true };
  }
  if (entry.verb === 'waitFor') {
    const reached = await loop.runUntil(now + entry.timeoutMs, () => conditionHolds(stack, entry.until));
    return reached ? { ok: true } : { ok: false, error: `not reached within ${entry.timeoutMs / 1000}s` };
  }
  const result = await runVerb(stack, entry);
  loop.rephaseResync();
  return result;
}

/** As `runScenario`: the scenario's namespace (if missing) and TidbCluster, created at t = 0. */
function applyCluster(stack: SimStack): void {
  const tc = stack.scenario.cluster;
  const store = stack.world.store;
  if (!store.get('Namespace', undefined, tc.metadata.namespace)) store.create('Namespace', { metadata: { name: tc.metadata.namespace } });
  store.create('TidbCluster', structuredClone(tc) as unknown as KubeObject);
}

/** One key's work queue, informer and rate limiter, on the stack's virtual clock. */
class OperatorLoop {
  private queued = false;
  private queuedReason = 'watch';
  private delayedAtMs: number | undefined;
  private nextResyncAtMs: number;
  private failures = 0;
  private syncs = 0;
  private requeues = 0;
  private longestBackoffMs = 0;
  private messageSeq = 0;
  private readonly key: string;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly stack: SimStack,
    private readonly resyncPhaseMs: number,
    private readonly onSync: ((sync: SyncRecord) => void) | undefined,
  ) {
    const { namespace, name } = stack.scenario.cluster.metadata;
    this.key = clusterKeyOf(stack.runtime, namespace, name);
    this.nextResyncAtMs = stack.clock.nowMs() + resyncPhaseMs;
    this.unsubscribe = stack.world.store.subscribe((ev) => {
      if (isWatchedEvent(ev, namespace, name)) this.add('watch');
    });
  }

  stats(): OperatorRunStats {
    return { syncs: this.syncs, rateLimitedRequeues: this.requeues, longestBackoffMs: this.longestBackoffMs };
  }

  stop(): void {
    this.unsubscribe();
  }

  /** A user action just happened: the next resync comes `resyncPhaseMs` from now. */
  rephaseResync(): void {
    this.nextResyncAtMs = this.stack.clock.nowMs() + this.resyncPhaseMs;
  }

  /** Runs until `until()` holds or `targetMs`; true when `until` held (or there is none). */
  async runUntil(targetMs: number, until?: () => boolean): Promise<boolean> {
    const clock = this.stack.clock;
    for (;;) {
      await this.stack.exporterIdle();
      const now = clock.nowMs();
      if (now >= this.nextResyncAtMs) {
        this.add('sweep');
        while (this.nextResyncAtMs <= now) this.nextResyncAtMs += OPERATOR_MODEL.resyncMs;
      }
      if (this.delayedAtMs !== undefined && this.delayedAtMs <= now) {
        this.delayedAtMs = undefined;
        this.add('requeue');
      }
      let ran = 0;
      while (this.queued && ran < MAX_SYNCS_PER_INSTANT) {
        await this.sync();
        ran++;
      }
      if (until?.()) return true;
      if (now >= targetMs) return until === undefined;
      const candidates = [clock.nextTimerAtMs(), this.delayedAtMs, this.nextResyncAtMs, targetMs].filter((x): x is number => x !== undefined);
      const next = this.queued ? now + 1 : Math.max(now, Math.min(...candidates));
      await clock.advanceTo(Math.min(next, targetMs));
    }
  }

  private add(reason: string): void {
    if (!this.queued) this.queuedReason = reason;
    this.queued = true;
  }

  private addAfter(delayMs: number): void {
    const at = this.stack.clock.nowMs() + delayMs;
    if (this.delayedAtMs === undefined || at < this.delayedAtMs) this.delayedAtMs = at;
  }

  /** One sync: the real handler on one message; then forget, or requeue rate-limited. */
  private async sync(): Promise<void> {
    if (++this.syncs > MAX_SYNCS) throw new Error(`operator-like driver: more than ${MAX_SYNCS} syncs; the run does not converge`);
    const reason = this.queuedReason;
    this.queued = false;
    const stepsBefore = this.stack.steps;
    const result = await this.stack.invokeReconcile(this.event(reason));
    const ran = typeof result === 'object' && result.batchItemFailures.length === 0 && this.stack.steps > stepsBefore;
    const last = ran ? (await this.stack.runtime.state.get(this.key))?.lastStep : undefined;
    const outcome = last?.outcome;
    const trace = (requeueAfterMs: number | undefined): void => this.onSync?.({ atMs: this.stack.clock.nowMs(), reason, outcome, message: last?.message, requeueAfterMs });
    if (outcome === 'complete' || outcome === 'wait') {
      this.failures = 0;
      trace(undefined);
      return;
    }
    // As client-go's ItemExponentialFailureRateLimiter: base × 2^(requeues so far), at most max.
    const delayMs = Math.min(OPERATOR_MODEL.backoffBaseMs * 2 ** this.failures, OPERATOR_MODEL.backoffMaxMs);
    this.failures++;
    this.requeues++;
    this.longestBackoffMs = Math.max(this.longestBackoffMs, delayMs);
    this.addAfter(delayMs);
    trace(delayMs);
  }

  private event(reason: string): SQSEvent {
    const nowMs = this.stack.clock.nowMs();
    const id = `operator-${++this.messageSeq}`;
    return {
      Records: [
        {
          messageId: id,
          receiptHandle: id,
          body: JSON.stringify({ key: this.key, reason, enqueuedAtMs: nowMs }),
          attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(nowMs), SenderId: 'operator-like', ApproximateFirstReceiveTimestamp: String(nowMs) },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:tidb-reconciler-reconcile',
          awsRegion: 'us-east-1',
        },
      ],
    };
  }
}

/** A change TiDB Operator's informers hand to the TidbCluster controller: the cluster itself, or a StatefulSet it controls. */
function isWatchedEvent(ev: StoreEvent, namespace: string, name: string): boolean {
  if (ev.object.metadata.namespace !== namespace) return false;
  if (ev.kind === 'TidbCluster') return ev.object.metadata.name === name;
  if (ev.kind !== 'StatefulSet') return false;
  const owners = (ev.object.metadata.ownerReferences ?? []) as { kind?: string; name?: string; controller?: boolean }[];
  return owners.some((o) => o.kind === 'TidbCluster' && o.name === name && o.controller === true);
}
