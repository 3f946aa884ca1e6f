/**
 * The TiKV store failover milestones of bench/scenarios/tikv-failover-timing.yaml, for the
 * operations section (bench/operations.ts): when the process died, when the status recorded the
 * store Down (its `lastTransitionTime` starts `tikvFailoverPeriod`, as TiDB Operator), the deadline,
 * the failure mark and the replacement's store Up — for our run and the TiDB-Operator-like ones.
 */
import type { Scenario } from '../lib/local/scenario/types.js';
import type { EntryRecorder } from './probes.js';
import { table } from './stats.js';

/** The bench scenario of this module. */
export const STORE_FAILOVER_SCENARIO = 'tikv-failover-timing.yaml';

/** One recorded run of the scenario (what bench/operations.ts keeps of a run). */
export type StoreFailoverRun = { readonly rec: EntryRecorder; readonly t0: number; readonly scenario: Scenario };

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

/** The latency table: one row per driver, then the physical minimum (the replacement pod's startup). */
export function storeFailoverTable(ours: StoreFailoverRun, operatorLike: readonly { name: string; run: StoreFailoverRun }[], podStartupMs: number): string {
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
    ['physical minimum', '–', '–', '–', '0 s', secs(podStartupMs), '–'],
  ]);
}
