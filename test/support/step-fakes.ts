/**
 * Fakes for the step engine's ports, injected (never module mocks): an Observer that can be scripted
 * to fail, block or hang; an Executor that records and can fail; a StateStore wrapper that counts
 * calls and detects two steps holding one key at once. Plus `stepHarness`, the wiring every engine
 * test shares (memory queue, scheduler timers, virtual clock, memory logger and metrics).
 */

import { planClusterStatus } from '../../lib/reconcile/cluster/cluster-status.js';
import { planPaused } from '../../lib/reconcile/cluster/paused.js';
import { actRule, statusRule, type Rule } from '../../lib/reconcile/engine/rule.js';
import type { RemoteAction } from '../../lib/model/action.js';
import type { TidbCluster } from '../../lib/model/kube.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { DEFAULT_STEP_CONFIG, type StepConfig } from '../../lib/platform/config.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { MemoryMetrics } from '../../lib/platform/metrics.js';
import { MemoryReconcileQueue, seededRandom } from '../../lib/queue/memory.js';
import type { ReconcileMessageBody } from '../../lib/queue/port.js';
import type { ClaimResult, ReleaseResult, StateStore } from '../../lib/state/port.js';
import type {
  ExecuteRequest,
  Executor,
  Observation,
  Observer,
  ObserveRequest,
  StepPorts,
} from '../../lib/step/ports.js';
import { MemoryScheduler } from '../../lib/timer/memory-scheduler.js';
import { QueueSchedulerTimers } from '../../lib/timer/timers.js';
import { T0, observationOf, tidbCluster } from './fixtures.js';

type Behaviour = (request: ObserveRequest) => Promise<Observation>;

/** An Observer returning `cluster()`'s observation; `next*` script the next calls in order. */
export class FakeObserver implements Observer {
  calls = 0;
  /** Every request, in order. */
  readonly requests: ObserveRequest[] = [];
  private readonly script: Behaviour[] = [];

  constructor(public cluster: () => TidbCluster | undefined = () => tidbCluster()) {}

  /** What `persistedRead` answers (docs/adr/0024): the fence of a kept read, or none (default). */
  keptRead: number | undefined = undefined;

  persistedRead(): number | undefined {
    return this.keptRead;
  }

  async observe(request: ObserveRequest): Promise<Observation> {
    this.calls++;
    this.requests.push(request);
    const behaviour = this.script.shift();
    return behaviour ? behaviour(request) : observationOf(this.cluster());
  }

  /** The next call throws `error`. */
  failNext(error: Error, times = 1): this {
    for (let i = 0; i < times; i++) this.script.push(async () => Promise.reject(error));
    return this;
  }

  /** The next call waits until `open()` is called; `entered` resolves when it has started. */
  blockNext(): { entered: Promise<void>; open: () => void } {
    let open = (): void => undefined;
    let entered = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const started = new Promise<void>((resolve) => (entered = resolve));
    this.script.push(async () => {
      entered();
      await gate;
      return observationOf(this.cluster());
    });
    return { entered: started, open };
  }

  /** The next call reads at rest (`reads: 'rest'`), as the live observer does when `verified` still holds. */
  restNext(): this {
    this.script.push(async () => ({ ...observationOf(this.cluster()), reads: 'rest' }));
    return this;
  }

  /**
   * The next call never returns and ignores its signal: the step dies there, holding its lease.
   * Resolves once that call has started.
   */
  hangNext(): Promise<void> {
    return new Promise((entered) => {
      this.script.push(() => {
        entered();
        return new Promise<Observation>(() => undefined);
      });
    });
  }
}

/** An Executor that records every action and fails the kinds it is told to. */
export class RecordingExecutor implements Executor {
  readonly executed: RemoteAction[] = [];
  private readonly failures = new Map<string, Error>();

  private readonly hangs = new Map<string, () => void>();

  async execute(request: ExecuteRequest): Promise<void> {
    this.executed.push(request.action);
    const entered = this.hangs.get(request.action.kind);
    if (entered) {
      this.hangs.delete(request.action.kind);
      entered();
      return new Promise<void>(() => undefined);
    }
    const error = this.failures.get(request.action.kind);
    if (error) throw error;
  }

  /**
   * The next action of `kind` never returns and ignores its signal: the step dies there, holding its
   * lease, with no other call in flight. Resolves once that action has started.
   */
  hangNext(kind: RemoteAction['kind']): Promise<void> {
    return new Promise((entered) => this.hangs.set(kind, entered));
  }

  /** Every action of `kind` throws `error` (until `heal`). */
  failOn(kind: RemoteAction['kind'], error: Error): this {
    this.failures.set(kind, error);
    return this;
  }

  /** Stops failing. */
  heal(): void {
    this.failures.clear();
  }
}

/** The StateStore methods that write. */
export const STATE_WRITES = [
  'claim',
  'release',
  'markDirty',
  'assertLease',
  'setNextWake',
  'putDeadline',
  'deleteDeadline',
  'appendHistory',
  'putCheckpoint',
  'forget',
] as const;

/**
 * Wraps a StateStore, counting calls per method, and records an overlap whenever a claim succeeds
 * while another step of the same key is still between its claim and its release. (The holder is
 * cleared *before* its release is sent, so an overlap can only be a real double claim.)
 */
export class CountingStateStore implements StateStore {
  readonly calls = new Map<string, number>();
  overlaps = 0;
  private readonly holders = new Map<string, string>();

  constructor(private readonly inner: StateStore) {}

  /** How many times `method` was called. */
  count(method: string): number {
    return this.calls.get(method) ?? 0;
  }

  /** Write calls by method, only those made (for `toEqual`). */
  writes(): Record<string, number> {
    return Object.fromEntries(STATE_WRITES.filter((m) => this.count(m) > 0).map((m) => [m, this.count(m)]));
  }

  /** Forgets the counts so far. */
  reset(): void {
    this.calls.clear();
  }

  async claim(...args: Parameters<StateStore['claim']>): Promise<ClaimResult> {
    this.bump('claim');
    const result = await this.inner.claim(...args);
    if (result.claimed) {
      if (this.holders.has(args[0])) this.overlaps++;
      this.holders.set(args[0], args[1]);
    }
    return result;
  }

  async release(...args: Parameters<StateStore['release']>): Promise<ReleaseResult> {
    this.bump('release');
    if (this.holders.get(args[0]) === args[1]) this.holders.delete(args[0]);
    return this.inner.release(...args);
  }

  markDirty: StateStore['markDirty'] = (...a) => this.tally('markDirty', () => this.inner.markDirty(...a));
  get: StateStore['get'] = (...a) => this.tally('get', () => this.inner.get(...a));
  getMany: StateStore['getMany'] = (...a) => this.tally('getMany', () => this.inner.getMany(...a));
  assertLease: StateStore['assertLease'] = (...a) => this.tally('assertLease', () => this.inner.assertLease(...a));
  setNextWake: StateStore['setNextWake'] = (...a) => this.tally('setNextWake', () => this.inner.setNextWake(...a));
  putDeadline: StateStore['putDeadline'] = (...a) => this.tally('putDeadline', () => this.inner.putDeadline(...a));
  putStoreId: StateStore['putStoreId'] = (...a) => this.tally('putStoreId', () => this.inner.putStoreId(...a));
  deleteDeadline: StateStore['deleteDeadline'] = (...a) =>
    this.tally('deleteDeadline', () => this.inner.deleteDeadline(...a));
  listDeadlines: StateStore['listDeadlines'] = (...a) =>
    this.tally('listDeadlines', () => this.inner.listDeadlines(...a));
  appendHistory: StateStore['appendHistory'] = (...a) =>
    this.tally('appendHistory', () => this.inner.appendHistory(...a));
  listHistory: StateStore['listHistory'] = (...a) => this.tally('listHistory', () => this.inner.listHistory(...a));
  getCheckpoint: StateStore['getCheckpoint'] = (...a) =>
    this.tally('getCheckpoint', () => this.inner.getCheckpoint(...a));
  putCheckpoint: StateStore['putCheckpoint'] = (...a) =>
    this.tally('putCheckpoint', () => this.inner.putCheckpoint(...a));
  forget: StateStore['forget'] = (...a) => this.tally('forget', () => this.inner.forget(...a));

  private bump(method: string): void {
    this.calls.set(method, this.count(method) + 1);
  }

  private tally<R>(method: string, call: () => Promise<R>): Promise<R> {
    this.bump(method);
    return call();
  }
}

/** Engine settings for tests: the defaults with no jitter, so backoff times are exact. */
/**
 * The rules engine tests run: pausing and the Ready condition only. The engine's contract does not
 * depend on which TiDB rules are registered, so its tests do not either.
 */
export const ENGINE_RULES: readonly Rule[] = [actRule('Paused', planPaused), statusRule('ClusterStatus', planClusterStatus)];

export const TEST_STEP_CONFIG: StepConfig = {
  ...DEFAULT_STEP_CONFIG,
  leaseForMs: 90_000,
  reconcile: { ...DEFAULT_STEP_CONFIG.reconcile, backoff: { baseMs: 1_000, maxMs: 100_000, jitterRatio: 0 } },
};

/** Everything an engine test wires, on one virtual clock. */
export type StepHarness = {
  clock: VirtualClock;
  queue: MemoryReconcileQueue;
  scheduler: MemoryScheduler;
  state: CountingStateStore;
  observer: FakeObserver;
  executor: RecordingExecutor;
  logger: MemoryLogger;
  metrics: MemoryMetrics;
  ports: StepPorts;
};

/** Wires the fakes around `state` (a MemoryStateStore or the DynamoDB adapter). */
export function stepHarness(
  state: StateStore,
  options: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number } = {},
): StepHarness {
  const clock = new VirtualClock(T0);
  const queue = new MemoryReconcileQueue({
    clock,
    random: seededRandom(1),
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 120,
    ...(options.maxReceiveCount === undefined ? {} : { maxReceiveCount: options.maxReceiveCount }),
  });
  const scheduler = new MemoryScheduler({ clock, queue });
  const timers = new QueueSchedulerTimers({
    queue,
    scheduler,
    queueArn: 'arn:aws:sqs:us-east-1:123456789012:reconcile',
    schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
  });
  const counting = new CountingStateStore(state);
  const observer = new FakeObserver();
  const executor = new RecordingExecutor();
  const logger = new MemoryLogger();
  const metrics = new MemoryMetrics();
  let ids = 0;
  const ports: StepPorts = {
    ...{ state: counting, observer, executor, timers, queue, clock, logger, metrics },
    random: seededRandom(2),
    newReconcileId: () => `r-${++ids}`,
  };
  return { clock, queue, scheduler, state: counting, observer, executor, logger, metrics, ports };
}

/** Receives and deletes every visible message; returns their bodies. */
export async function takeQueued(queue: MemoryReconcileQueue): Promise<ReconcileMessageBody[]> {
  const out: ReconcileMessageBody[] = [];
  for (;;) {
    const got = await queue.receive(10, 0);
    if (got.length === 0) break;
    out.push(...got.map((r) => JSON.parse(r.body) as ReconcileMessageBody));
    await queue.delete(got.map((r) => r.receiptHandle));
  }
  return out;
}

/** The messages that become visible on the harness's queue within `ms` (1 s resolution), with when (since T0). */
export async function queuedWithin(h: StepHarness, ms: number): Promise<{ reason: string; atMs: number }[]> {
  const out: { reason: string; atMs: number }[] = [];
  for (let t = 0; t <= ms; t += 1_000) {
    out.push(...(await takeQueued(h.queue)).map((m) => ({ reason: m.reason, atMs: h.clock.nowMs() - T0 })));
    await h.clock.advance(1_000);
  }
  return out;
}

