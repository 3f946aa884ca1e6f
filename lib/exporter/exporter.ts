/**
 * The exporter core: one watch loop per watched resource feeding one coalescer, and one flush that
 * sends the coalesced triggers to the reconcile queue and then checkpoints the positions they cover.
 * Independent of Lambda: `daemon.ts` runs it until SIGTERM, `session.ts` for a Lambda's remaining
 * time. Guarantees: one message per key per flush window; a checkpoint is written only after the
 * messages for every event before it were sent (never before), so a crash re-sends and never loses;
 * 410 Gone relists (a full resync of that resource); bookmarks advance checkpoints without sending;
 * stream errors reconnect with capped exponential backoff. A TidbCluster's event also queues the
 * clusters whose `spec.cluster` names it (`references.ts`; the index is rebuilt from a LIST when a
 * TidbCluster watch resumes without the previous session's copy). A change of TiDB Operator's
 * controller-manager Deployment steps the TidbClusters it may manage with a verdict re-check
 * (`operators.ts`). With `catchUpSeconds` (a catch-up session, `at-rest.ts`) each watch first
 * drains for that long, and the loops then wait at a gate (`catch-up-gate.ts`) that ends the
 * session's watching when nothing was forwarded.
 */
import type { KubeObject } from '../kube/port.js';
import type { BackoffPolicy } from '../model/config.js';
import type { Clock } from '../platform/clock.js';
import { NotFoundError } from '../platform/errors.js';
import type { Logger } from '../platform/logger.js';
import type { ReconcileQueue } from '../queue/port.js';
import type { StateStore } from '../state/port.js';
import { backoffDelayMs } from '../step/backoff.js';
import type { SessionVerdict } from './at-rest.js';
import { CatchUpGate } from './catch-up-gate.js';
import { errorText, type Positions } from './checkpoints.js';
import { clusterKeyOf, clusterKeyOfPitrRestore, scheduleKeyOfBackup } from './cluster-key.js';
import { COVERAGE_INTERVAL_MS, markWatchedUntil } from './coverage.js';
import { Flusher } from './flusher.js';
import { listAll } from './list.js';
import { ChangeFilter, type Remembered } from './meaningful.js';
import { CountingMetrics, type ExporterCounts } from './metrics.js';
import { EXPORTER_METRIC, ResourceExpiredError, type ExporterMetrics, type WatchChange, type WatchEvent, type WatchSource } from './ports.js';
import { ClusterDirectory, operatorReason, operatorTargets } from './operators.js';
import { ReferenceIndex, type ReferenceEntry } from './references.js';
import type { WatchedResource } from './resources.js';
import { Sleeps } from './timers.js';

/** The ends the exporter is wired to. */
export type ExporterDeps = {
  source: WatchSource;
  queue: ReconcileQueue;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  metrics?: ExporterMetrics;
  /** For backoff jitter and watch timeout spreading (default Math.random). */
  random?: () => number;
};

/** Settings; every optional one has the default noted. */
export type ExporterOptions = {
  /** The `<k8sCluster>` part of every key and of the checkpoint items. */
  k8sCluster: string;
  resources: readonly WatchedResource[];
  /** How long triggers gather before a flush (default 1000 ms). */
  flushWindowMs?: number;
  /** Least time between two checkpoint writes of one resource (default 5000 ms); `stop` writes anyway. */
  checkpointIntervalMs?: number;
  /** Server-side watch timeout, spread up to twice this as client-go does (default 300 s). */
  watchTimeoutSeconds?: number;
  /** No watch is asked to run past this time (the Lambda session's end); default none. */
  deadlineAtMs?: number;
  /** Items per LIST page (default 500). */
  listPageSize?: number;
  /** Reconnect backoff (default 500 ms doubling to 30 s, 20 % jitter). */
  backoff?: BackoffPolicy;
  /** Fingerprints a previous session left, reused only where it stopped at the stored checkpoint. */
  carry?: ExporterCarry;
  /** At most this many clusters with `spec.cluster` are indexed (default 10 000; more fall to the sweep). */
  maxReferrers?: number;
  /**
   * A catch-up session (at-rest.ts, docs/adr/0030): each watch first drains for this many seconds;
   * then, when nothing was forwarded, no watch opens again (`whenQuiet` resolves); default none.
   */
  catchUpSeconds?: number;
  /** How old the watched-until marks may grow before the sweep takes events as missed (default `COVERAGE_STALE_MS`). */
  coverageStaleMs?: number;
};

/** What one session hands the next: per resource, its checkpoint and the fingerprints as of it. */
export type ExporterCarry = ReadonlyMap<string, { resourceVersion: string; entries: [string, Remembered][]; references?: [string, ReferenceEntry][] }>;

/** What a watch loop is doing, for health checks and tests. */
export type LoopStatus = 'starting' | 'listing' | 'watching' | 'waiting' | 'not-served' | 'drained' | 'stopped';

/**
 * How long a watch of a backup controller's kind waits before asking again when the API server does
 * not serve it (404: the Backup / Restore CRDs are not installed — TiDB Operator's backup CRDs are
 * optional — or the Jobs API is not served). Not a failure: that controller has nothing to reconcile.
 * A bounded session asks once and leaves the next ask to the next session.
 */
export const NOT_SERVED_RETRY_MS = 60_000;

// The kinds of the controllers beside the TidbCluster's, whose resources a cluster may not serve.
const OPTIONAL_KINDS: ReadonlySet<string> = new Set(['Backup', 'Restore', 'CompactBackup', 'BackupSchedule', 'TidbInitializer', 'TidbDashboard', 'TidbNGMonitoring', 'Job', 'TidbMonitor']);

/** One watch loop; `position` is where its next watch resumes (undefined: it must list first). */
type Loop = { resource: WatchedResource; status: LoopStatus; failures: number; filter: ChangeFilter; position: string | undefined; notServed?: boolean; known?: boolean };

const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000, jitterRatio: 0.2 };

/** Forwards watch events of one Kubernetes cluster to the reconcile queue; see the module comment. */
export class Exporter {
  private readonly loops: Loop[];
  private readonly output: Flusher;
  private readonly counts: CountingMetrics;
  private readonly sleeps: Sleeps;
  private readonly stopSignal = new AbortController();
  private readonly random: () => number;
  private readonly references: ReferenceIndex;
  private readonly directory: ClusterDirectory;
  private readonly gate: CatchUpGate | undefined;
  private running: Promise<unknown>[] = [];

  constructor(
    private readonly deps: ExporterDeps,
    private readonly options: ExporterOptions,
  ) {
    this.counts = new CountingMetrics(deps.metrics);
    this.random = deps.random ?? Math.random;
    this.output = new Flusher(
      { ...deps, metrics: this.counts },
      {
        k8sCluster: options.k8sCluster,
        flushWindowMs: options.flushWindowMs ?? 1_000,
        checkpointIntervalMs: options.checkpointIntervalMs ?? 5_000,
        backoff: this.backoffPolicy,
        random: this.random,
      },
    );
    this.sleeps = new Sleeps(deps.clock);
    const onUnindexed = () => this.counts.count(EXPORTER_METRIC.referencesUnindexed);
    this.references = new ReferenceIndex(options.k8sCluster, { ...(options.maxReferrers === undefined ? {} : { maxReferrers: options.maxReferrers }), onUnindexed });
    this.directory = new ClusterDirectory(options.resources.filter((r) => r.kind === 'TidbCluster').length);
    this.loops = options.resources.map((resource) => ({ resource, status: 'starting', failures: 0, filter: new ChangeFilter(resource.kind), position: undefined }));
    const names = this.loops.map((l) => l.resource.name);
    this.gate = options.catchUpSeconds === undefined ? undefined : new CatchUpGate(names, () => this.verdict() === 'busy');
  }

  /** Starts every watch loop, and the watched-until marks (coverage.ts); returns at once. */
  start(): void {
    this.deps.logger.info('exporter starting', { k8sCluster: this.options.k8sCluster, resources: this.loops.map((l) => l.resource.name) });
    this.running = [...this.loops.map((loop) => this.runLoop(loop)), this.markCoverage()];
  }

  /**
   * Stops the watches, waits for the loops to end, then sends what is pending and writes every
   * position it covers. A send that fails here leaves the checkpoint behind: the next run re-reads.
   * When every watch was open up to the stop and everything is sent, the watched-until mark is
   * written (coverage.ts).
   */
  async stop(): Promise<void> {
    const watching = this.loops.every((l) => isCovered(l.status));
    this.stopSignal.abort();
    this.sleeps.wakeAll();
    await Promise.allSettled(this.running);
    this.output.close();
    await this.output.flush(true);
    if (watching) await this.writeCoverage();
    this.deps.logger.info('exporter stopped', { counts: this.stats(), positions: Object.fromEntries(this.positions()) });
  }

  /** Sends what is pending now, then checkpoints (each resource at most once per interval unless `force`). */
  flush(force = false): Promise<void> {
    return this.output.flush(force);
  }

  /** Whether a flush (sends, checkpoint writes) is in flight; a virtual-time driver waits for it. */
  isFlushing(): boolean {
    return this.output.busy;
  }

  /** Resolves when a catch-up session drained and forwarded nothing (at-rest.ts); never otherwise. */
  whenQuiet(): Promise<void> {
    return this.gate === undefined ? new Promise<void>(() => undefined) : this.gate.decided.then((v) => (v === 'quiet' ? undefined : new Promise<void>(() => undefined)));
  }

  /** How the session went so far: `quiet` when nothing was forwarded and nothing is pending. */
  verdict(): SessionVerdict {
    return this.counts.totals().messagesSent === 0 && this.output.settled ? 'quiet' : 'busy';
  }

  /** Totals of every counter since construction. */
  stats(): ExporterCounts {
    return this.counts.totals();
  }

  /** Each loop's status, by resource name. */
  status(): Record<string, LoopStatus> {
    return Object.fromEntries(this.loops.map((l) => [l.resource.name, l.status]));
  }

  /** How far each resource has been read (resourceVersion by resource name). */
  positions(): Positions {
    return this.output.checkpoints.snapshot();
  }

  /** The fingerprints a next session may reuse: only for resources whose position is checkpointed. */
  carry(): ExporterCarry {
    const settled = this.output.checkpoints.settled();
    return new Map(
      this.loops.flatMap((l) => {
        const rv = settled.get(l.resource.name);
        if (rv === undefined) return [];
        const references = l.resource.kind === 'TidbCluster' ? { references: this.references.snapshot(l.resource.namespace) } : {};
        return [[l.resource.name, { resourceVersion: rv, entries: l.filter.entries(), ...references }] as const];
      }),
    );
  }

  /** The watched-until marks (coverage.ts): every interval while running, and after the last flush. */
  private async markCoverage(): Promise<void> {
    while (!this.stopping) {
      await this.sleeps.sleep(COVERAGE_INTERVAL_MS);
      if (!this.stopping) await this.writeCoverage();
    }
  }

  private writeCoverage(): Promise<void> {
    const open = this.loops.every((l) => isCovered(l.status) || (this.stopping && l.status === 'stopped'));
    return open && this.output.settled ? markWatchedUntil(this.deps, this.options.k8sCluster, this.options.coverageStaleMs) : Promise.resolve();
  }

  private get stopping(): boolean {
    return this.stopSignal.signal.aborted;
  }

  private async runLoop(loop: Loop): Promise<void> {
    // A controller manager's change is fanned out to the TidbClusters known: wait until they all are.
    if (loop.resource.kind === 'Deployment') await Promise.race([this.directory.whenComplete(), this.sleeps.untilWoken()]);
    await this.resume(loop);
    let reason = 'initial list';
    while (!this.stopping) {
      try {
        const position = loop.position ?? (await this.relist(loop, reason));
        const draining = this.gate?.isDraining(loop.resource.name) === true;
        // A failed watch resumes from the last event it delivered, not from where it started.
        await this.watchFrom(loop, position, draining);
        if (draining) await this.afterDrain(loop);
      } catch (err) {
        if (this.stopping) break;
        if (err instanceof NotFoundError && OPTIONAL_KINDS.has(loop.resource.kind)) {
          if (loop.notServed !== true) this.deps.logger.info('exporter: resource not served, asking again later', { resource: loop.resource.name, error: errorText(err) });
          loop.notServed = true;
          loop.status = 'not-served';
          // Nothing to drain: a catch-up does not wait for it.
          void this.gate?.drained(loop.resource.name);
          await this.sleeps.sleep(this.notServedRetryMs());
          continue;
        }
        loop.failures += 1;
        if (err instanceof ResourceExpiredError) {
          loop.position = undefined;
          reason = 'relist after 410 Gone';
          this.deps.logger.info('exporter watch expired, relisting', { resource: loop.resource.name, error: errorText(err) });
          // The first 410 relists at once; a relist that keeps expiring backs off.
          if (loop.failures === 1) continue;
        } else {
          this.counts.count(EXPORTER_METRIC.watchErrors);
          this.deps.logger.warn('exporter watch failed', { resource: loop.resource.name, failures: loop.failures, error: errorText(err) });
        }
        await this.backoff(loop);
      }
    }
    loop.status = 'stopped';
  }

  /**
   * Starts `loop` at its stored checkpoint, retried with backoff while the table cannot be read or
   * (for TidbClusters resumed without the previous session's index) the index cannot be listed.
   */
  private async resume(loop: Loop): Promise<void> {
    while (!this.stopping) {
      try {
        const rv = await this.output.checkpoints.load(loop.resource.name);
        if (rv === undefined) return;
        const carried = this.options.carry?.get(loop.resource.name);
        const resumed = carried?.resourceVersion === rv ? carried : undefined;
        if (resumed) loop.filter = new ChangeFilter(loop.resource.kind, resumed.entries);
        if (loop.resource.kind === 'TidbCluster') {
          if (resumed?.references) {
            this.references.restore(resumed.references);
            this.directory.restore(resumed.entries);
          } else {
            const { items } = await listAll(this.deps.source, loop.resource, this.listPageSize, () => this.stopping);
            this.references.reset(loop.resource.namespace, items);
            this.directory.reset(loop.resource.namespace, this.keyed(items));
          }
        }
        this.advance(loop, rv);
        return;
      } catch (err) {
        loop.failures += 1;
        this.deps.logger.warn('exporter cannot resume: checkpoint or TidbCluster list not readable', { resource: loop.resource.name, error: errorText(err) });
        await this.backoff(loop);
      }
    }
  }

  /**
   * A full resync of one resource: LIST every page, enqueue the key of every object found and of
   * every remembered object now gone (deleted while unwatched), and resume from the list's version.
   */
  private async relist(loop: Loop, reason: string): Promise<string> {
    const { resource } = loop;
    loop.status = 'listing';
    const { resourceVersion: rv, items } = await listAll(this.deps.source, resource, this.listPageSize, () => this.stopping);
    // Counted once listed: a resource the server does not serve (404) has nothing to relist.
    this.counts.count(EXPORTER_METRIC.relists);
    const mapped = items.map((object) => ({ object, key: clusterKeyOf(resource.kind, object, this.options.k8sCluster) }));
    if (resource.kind === 'TidbCluster') {
      this.references.reset(resource.namespace, items);
      this.directory.reset(resource.namespace, mapped);
    }
    // A relist that finds a controller manager re-checks the clusters it may manage (operators.ts).
    if (resource.kind === 'Deployment') for (const object of items) this.triggerOperator(object, `found by ${reason}`);
    const gone = loop.filter.reset(mapped);
    const keys = new Set([...mapped.flatMap((m) => (m.key === undefined ? [] : [m.key])), ...gone]);
    for (const key of keys) this.output.trigger(key, `${reason}: ${resource.name}`);
    this.deps.logger.info('exporter relisted', { resource: resource.name, reason, objects: items.length, keys: keys.size, resourceVersion: rv });
    this.advance(loop, rv);
    return rv;
  }

  /**
   * A loop whose catch-up watch ended: it waits for the gate; quiet, it opens no other watch (the
   * session ends), busy, it goes on watching.
   */
  private async afterDrain(loop: Loop): Promise<void> {
    loop.status = 'drained';
    const verdict = await Promise.race([this.gate?.drained(loop.resource.name), this.sleeps.untilWoken()]);
    if (verdict === 'quiet') await this.sleeps.untilWoken();
    else if (!this.stopping) loop.status = 'starting';
  }

  /** One watch from `rv` until the stream ends (`draining`: a catch-up's short watch); every event moves `loop.position`. */
  private async watchFrom(loop: Loop, rv: string, draining = false): Promise<void> {
    const timeoutSeconds = draining ? Math.min(this.options.catchUpSeconds ?? 0, this.watchTimeoutSeconds()) : this.watchTimeoutSeconds();
    if (timeoutSeconds < 1) {
      // The session is over: wait for stop rather than open a watch that cannot be used.
      loop.status = 'waiting';
      await this.sleeps.sleep(Math.max(1, (this.options.deadlineAtMs ?? 0) - this.deps.clock.nowMs() + 1_000));
      return;
    }
    const startedAtMs = this.deps.clock.nowMs();
    let events = 0;
    const stream = this.deps.source.watch(loop.resource, {
      resourceVersion: rv,
      timeoutSeconds,
      signal: this.stopSignal.signal,
      onOpen: () => {
        loop.status = 'watching';
      },
    });
    for await (const event of stream) {
      events += 1;
      loop.failures = 0;
      this.onEvent(loop, event);
    }
    loop.status = 'starting';
    // A stream that ends at once without a word is a failure in disguise; don't spin on it.
    if (events === 0 && !this.stopping && this.deps.clock.nowMs() - startedAtMs < 1_000) throw new Error('the watch ended at once');
  }

  /** Handles one event synchronously: filter, coalesce, move the position. */
  private onEvent(loop: Loop, event: WatchEvent): void {
    const { resource } = loop;
    if (event.type === 'BOOKMARK') {
      this.counts.count(EXPORTER_METRIC.bookmarks);
      this.advance(loop, event.resourceVersion);
      return;
    }
    this.counts.count(EXPORTER_METRIC.eventsSeen);
    if (resource.kind === 'Deployment') return this.onOperatorEvent(loop, event);
    const key = clusterKeyOf(resource.kind, event.object, this.options.k8sCluster, event.type === 'DELETED');
    const meaningful = loop.filter.observe(event, key);
    if (resource.kind === 'TidbCluster') this.directory.observe(event, key);
    if (key === undefined) this.counts.count(EXPORTER_METRIC.eventsUnmapped);
    else if (!meaningful) this.counts.count(EXPORTER_METRIC.eventsDropped);
    else {
      const { namespace, name } = event.object.metadata;
      this.output.trigger(key, `${resource.kind} ${namespace ?? ''}/${name ?? ''} ${event.type.toLowerCase()}`);
    }
    // The clusters whose spec.cluster names this one, when the change concerns them (references.ts).
    const referrers = resource.kind === 'TidbCluster' && key !== undefined ? this.references.observe(event, key, meaningful) : [];
    for (const referrer of referrers) this.output.trigger(referrer, `referenced ${resource.kind} ${event.object.metadata.namespace ?? ''}/${event.object.metadata.name ?? ''} ${event.type.toLowerCase()}`);
    // A scheduled Backup that finished (or went) wakes its BackupSchedule: retention and a waiting slot; a scheduled CompactBackup that ended, the next compaction.
    const schedule = (resource.kind === 'Backup' || resource.kind === 'CompactBackup') && meaningful ? scheduleKeyOfBackup(event.object, this.options.k8sCluster, event.type === 'DELETED') : undefined;
    if (schedule !== undefined) this.output.trigger(schedule, `scheduled Backup ${event.object.metadata.namespace ?? ''}/${event.object.metadata.name ?? ''} ${event.type.toLowerCase()}`);
    // A PiTR Restore wakes the cluster it restores into: TiKV's gc.ratio-threshold follows it (tikv/pitr-gc.ts).
    const target = resource.kind === 'Restore' && meaningful ? clusterKeyOfPitrRestore(event.object, this.options.k8sCluster) : undefined;
    if (target !== undefined) this.output.trigger(target, `PiTR Restore ${event.object.metadata.namespace ?? ''}/${event.object.metadata.name ?? ''} ${event.type.toLowerCase()}`);
    const rv = event.object.metadata.resourceVersion;
    if (rv) this.advance(loop, rv);
  }

  /** A controller-manager Deployment's change: a re-check for the clusters it may manage when it is meaningful. */
  private onOperatorEvent(loop: Loop, event: WatchChange): void {
    if (loop.filter.observe(event, undefined)) this.triggerOperator(event.object, event.type.toLowerCase());
    else this.counts.count(EXPORTER_METRIC.eventsDropped);
    const rv = event.object.metadata.resourceVersion;
    if (rv) this.advance(loop, rv);
  }

  private triggerOperator(deployment: KubeObject, what: string): void {
    for (const key of operatorTargets(deployment, this.directory)) this.output.trigger(key, operatorReason(deployment, what), true);
  }

  /** Each TidbCluster of a LIST with its key. */
  private keyed(items: readonly KubeObject[]): { object: KubeObject; key: string | undefined }[] {
    return items.map((object) => ({ object, key: clusterKeyOf('TidbCluster', object, this.options.k8sCluster) }));
  }

  /** Moves a loop's position; a checkpoint follows within the interval. */
  private advance(loop: Loop, rv: string): void {
    if (loop.resource.kind === 'TidbCluster' && loop.known !== true) {
      loop.known = true;
      this.directory.complete();
    }
    if (!rv) return;
    loop.position = rv;
    this.output.see(loop.resource.name, rv);
  }

  private async backoff(loop: Loop): Promise<void> {
    loop.status = 'waiting';
    await this.sleeps.sleep(backoffDelayMs(loop.failures, this.backoffPolicy, this.random));
  }

  /**
   * How long a kind not served waits before asking again: a minute, or in a session (a deadline)
   * until the next session, which asks once, as often as a served kind opens its watch; otherwise
   * eight kinds a cluster without the backup CRDs lacks would cost 480 requests an hour at rest.
   */
  private notServedRetryMs(): number {
    const deadline = this.options.deadlineAtMs;
    return deadline === undefined ? NOT_SERVED_RETRY_MS : Math.max(NOT_SERVED_RETRY_MS, deadline - this.deps.clock.nowMs() + 1_000);
  }

  /** client-go spreads watch timeouts over [t, 2t) so reconnects do not align; never past the deadline. */
  private watchTimeoutSeconds(): number {
    const base = this.options.watchTimeoutSeconds ?? 300;
    const spread = Math.floor(base * (1 + Math.min(Math.max(this.random(), 0), 0.999)));
    const deadline = this.options.deadlineAtMs;
    if (deadline === undefined) return spread;
    return Math.min(spread, Math.floor((deadline - this.deps.clock.nowMs()) / 1000));
  }

  private get listPageSize(): number {
    return this.options.listPageSize ?? 500;
  }

  private get backoffPolicy(): BackoffPolicy {
    return this.options.backoff ?? DEFAULT_BACKOFF;
  }
}

/** A loop whose resource is covered up to now: watching, drained in a catch-up, or not served. */
function isCovered(status: LoopStatus): boolean {
  return status === 'watching' || status === 'drained' || status === 'not-served';
}
