/**
 * The TiKV store failover milestones of bench/scenarios/tikv-failover-timing.yaml, for the
 * operations section (bench/operations.ts): when the process died, when the status recorded the
 * store Down (its `lastTransitionTime` starts `tikvFailoverPeriod`, as TiDB Operator), the deadline,
 * the failure mark and the replacement's store Up — for our run and the TiDB-Operator-like ones.
 */
import type { Scenario } from '../lib/local/scenario/types.js';
import type { SimStack } from '../lib/local/sim-stack.js';
import type { EntryRecorder } from './probes.js';
import { table } from './stats.js';

/** The bench scenario of this module. */
export const STORE_FAILOVER_SCENARIO = 'tikv-failover-timing.yaml';

/** One recorded run of the scenario (what bench/operations.ts keeps of a run). */
export type StoreFailoverRun = { readonly rec: EntryRecorder; readonly t0: number; readonly scenario: Scenario; readonly stores: StoreStartupProbe };

/**
 * The world's own time for a TiKV store to start: from its pod created to PD listing its store Up
 * (pod startup, process boot and the store's registration with PD), recorded from the object
 * store's pod events and the simulated PD's change notifications, in virtual ms since the run's start.
 */
export class StoreStartupProbe {
  private readonly created = new Map<string, number[]>();
  private readonly up = new Map<string, number[]>();
  private readonly upNow = new Set<string>();
  private readonly unsubscribes: (() => void)[] = [];
  private watchingPd = false;

  constructor(
    private readonly stack: SimStack,
    private readonly t0: number,
  ) {
    const { namespace, name } = stack.scenario.cluster.metadata;
    const prefix = `${name}-tikv-`;
    this.unsubscribes.push(
      stack.world.store.subscribe((ev) => {
        const podName = ev.object.metadata?.name ?? '';
        if (ev.kind !== 'Pod' || ev.object.metadata?.namespace !== namespace || !podName.startsWith(prefix)) return;
        if (ev.type === 'ADDED') this.push(this.created, podName);
        this.watchPd(namespace, name);
      }),
    );
  }

  /** Stops recording. */
  stop(): void {
    for (const u of this.unsubscribes.splice(0)) u();
  }

  /** For the pod `podName` created at or after `fromMs`: creation → its store first Up after it (NaN when it never was). */
  startMs(podName: string, fromMs: number): number {
    const created = (this.created.get(podName) ?? []).find((t) => t >= fromMs);
    const up = created === undefined ? undefined : (this.up.get(podName) ?? []).find((t) => t >= created);
    return created === undefined || up === undefined ? Number.NaN : up - created;
  }

  private push(map: Map<string, number[]>, podName: string): void {
    const at = this.stack.clock.nowMs() - this.t0;
    map.set(podName, [...(map.get(podName) ?? []), at]);
  }

  private watchPd(namespace: string, name: string): void {
    if (this.watchingPd) return;
    const cluster = this.stack.sim.cluster(namespace, name);
    if (!cluster) return;
    this.watchingPd = true;
    const check = (): void => {
      for (const store of cluster.pd.stores.list()) {
        const isUp = store.engine === 'tikv' && cluster.pd.stores.stateName(store) === 'Up';
        if (isUp && !this.upNow.has(store.podName)) this.push(this.up, store.podName);
        if (isUp) this.upNow.add(store.podName);
        else this.upNow.delete(store.podName);
      }
    };
    this.unsubscribes.push(cluster.pd.onChange(check));
    check();
  }
}

/** The milestones, in ms since the run's start, and the steps from the fault to the replacement Up. */
export type StoreFailover = { faultMs: number; downMs: number; deadlineMs: number; markMs: number; upMs: number; steps: number };

type Status = { status?: { tikv?: { stores?: Record<string, { podName?: string; state?: string; lastTransitionTime?: string }> } } };

/** Reads the milestones of one run (entry indexes as the scenario file documents them). */
export function storeFailover(run: StoreFailoverRun): StoreFailover {
  const r = run.rec;
  const down = r.mark(3);
  const store = Object.values((down.clusterAtEnd as Status | null)?.status?.tikv?.stores ?? {}).find((s) => s.podName === 'basic-tikv-1');
  const sinceMs = store?.lastTransitionTime === undefined ? Number.NaN : Date.parse(store.lastTransitionTime);
  if (Number.isNaN(sinceMs)) throw new Error('store failover: the store of basic-tikv-1 has no lastTransitionTime when it is recorded Down');
  const fault = r.mark(2);
  const up = r.mark(5);
  return {
    faultMs: fault.endMs,
    downMs: down.endMs,
    deadlineMs: sinceMs - run.t0 + run.scenario.config.failoverPeriodMs.tikv,
    markMs: r.mark(4).endMs,
    upMs: up.endMs,
    steps: up.stepsAtEnd - fault.stepsAtEnd,
  };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(Number.isInteger(ms / 1000) ? 0 : 1)} s`;

/** The latency table: one row per driver, then the physical minimum (the replacement store's startup, `storeFailoverMinimumMs`). */
export function storeFailoverTable(ours: StoreFailoverRun, operatorLike: readonly { name: string; run: StoreFailoverRun }[], minimumMs: number): string {
  const row = (name: string, x: StoreFailover): (string | number)[] => [
    name,
    secs(x.faultMs),
    secs(x.downMs - x.faultMs),
    secs(x.deadlineMs),
    secs(x.markMs - x.deadlineMs),
    secs(x.upMs - x.deadlineMs),
    x.steps,
  ];
  return table(['driver', 'fault at', 'fault → Down in status', 'deadline at', 'deadline → failure store', 'deadline → replacement store Up', 'steps'], [
    row('ours', storeFailover(ours)),
    ...operatorLike.map((o) => row(o.name, storeFailover(o.run))),
    ['physical minimum', '–', '–', '–', '0 s', secs(minimumMs), '–'],
  ]);
}

/** The physical minimum of the failover in `run`: the replacement (basic-tikv-3) created → its store Up, as the world timed it. */
export function storeFailoverMinimumMs(run: StoreFailoverRun): number {
  return run.stores.startMs('basic-tikv-3', storeFailover(run).deadlineMs);
}
