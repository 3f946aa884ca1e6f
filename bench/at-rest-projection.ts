/**
 * The API server's request rate from a fleet at rest, second by second (issue 30: ≤ 50/s on average
 * and ≤ 100/s at peak at 10 000 clusters), from one cluster's measured schedule:
 *
 * - every `sweepIntervalS` the sweep LISTs the fleet (`listPages` requests, in its first second);
 * - a cluster is stepped in full when the sweep finds its last full read `fullReadIntervalS` plus
 *   its key's share of `fullReadSpreadS` old (lib/step/sweep-rest.ts `sweepChoice`, `spreadOf`);
 *   with no full-read interval (main), at every sweep. The full step arrives when its message turns
 *   visible and costs `perFullStep`: `spreading` `slots` takes the delays as the sweep does (the next
 *   slot of the EKS cluster's sequence, in list order, lib/step/sweep-spread.ts); `key-hash` as it did
 *   before, each key's own share of `sweepSpreadS` from its hash (`keyHashDelaySeconds`);
 * - with a `budget` (lib/budget/gcra.ts, docs/adr/0028), a sweep sends at most its share of it
 *   (`fullStepsPerSweep`; the rest stay due for the next sweep), and each step reserves `stepRequests` of the EKS
 *   cluster's budget when it arrives and, when that reservation starts later, comes back at its
 *   start (rounded up to a whole second, as an SQS delay is);
 * - steps run as the event source allows (`stepsPerS`): what is visible waits its turn;
 * - every other step at rest (the health steps) costs `restPerClusterHour` requests per cluster-hour,
 *   spread evenly.
 *
 * Times are seconds of the window; a cluster's last full read before it is at `firstFullAtS` (≤ 0).
 */
import { spreadOf } from '../lib/step/sweep-rest.js';
import { MAX_DELAY_SECONDS } from '../lib/queue/port.js';
import { reserve } from '../lib/budget/gcra.js';
import type { ApiBudgetConfig } from '../lib/platform/config.js';
import { fullStepsPerSweep, spreadHash, SweepSlots } from '../lib/step/sweep-spread.js';

/** What the model needs (see the module comment). */
export type FleetSchedule = {
  readonly keys: readonly string[];
  readonly windowS: number;
  readonly sweepIntervalS: number;
  readonly sweepSpreadS: number;
  /** How the sweep's delays are drawn (see the module comment); `slots` unless said. */
  readonly spreading?: 'slots' | 'key-hash';
  /** 0: every sweep steps every cluster in full. */
  readonly fullReadIntervalS: number;
  readonly fullReadSpreadS: number;
  readonly perFullStep: number;
  readonly listPages: number;
  readonly stepsPerS: number;
  readonly restPerClusterHour: number;
  /** The per-EKS-cluster API budget the steps honour; none when absent. */
  readonly budget?: ApiBudgetConfig;
  /** A cluster's last full read before the window, from its index and how long after a full read it is due one. */
  readonly firstFullAtS: (index: number, dueAfterS: number) => number;
};

/** The window's requests per second: average, the busiest second (and its steps' requests alone, the LIST left out), full steps, and the most steps visible and waiting at once. */
export type FleetRate = { readonly averagePerS: number; readonly peakPerS: number; readonly peakStepsPerS: number; readonly fullSteps: number; readonly maxBacklog: number; readonly deferred: number };

/** Runs the schedule second by second (see the module comment). */
export function fleetRate(s: FleetSchedule): FleetRate {
  const arrivals = new Array<number>(s.windowS + 900).fill(0);
  const lists = new Array<number>(s.windowS).fill(0);
  const dueAfter = s.keys.map((key) => s.fullReadIntervalS + spreadOf(key, s.fullReadSpreadS * 1000) / 1000);
  const fullAt = s.keys.map((_, i) => s.firstFullAtS(i, dueAfter[i] ?? 0));
  const keyDelays = s.keys.map((key) => keyHashDelaySeconds(key, s.sweepSpreadS));
  for (let t = 0; t < s.windowS; t += s.sweepIntervalS) {
    lists[t] = (lists[t] ?? 0) + s.listPages;
    const slots = new SweepSlots(s.sweepSpreadS, fullStepsPerSweep(s.sweepSpreadS, s.budget));
    s.keys.forEach((key, i) => {
      if (s.fullReadIntervalS > 0 && t < (fullAt[i] ?? 0) + (dueAfter[i] ?? 0)) return;
      const delay = s.spreading === 'key-hash' ? keyDelays[i] : slots.delaySecondsFor(key);
      // Held by the sweep (its share of the budget taken): still due at the next sweep.
      if (delay === undefined) return;
      const at = t + delay;
      arrivals[at] = (arrivals[at] ?? 0) + 1;
      fullAt[i] = at;
    });
  }
  const restPerS = (s.keys.length * s.restPerClusterHour) / 3600;
  const { ready, deferred } = s.budget === undefined ? { ready: arrivals, deferred: 0 } : budgeted(arrivals, s.budget);
  let backlog = 0;
  let maxBacklog = 0;
  let total = 0;
  let peak = 0;
  let peakSteps = 0;
  let fullSteps = 0;
  for (let t = 0; t < s.windowS; t++) {
    backlog += ready[t] ?? 0;
    maxBacklog = Math.max(maxBacklog, backlog);
    const served = Math.min(backlog, s.stepsPerS);
    backlog -= served;
    fullSteps += served;
    const requests = served * s.perFullStep + (lists[t] ?? 0) + restPerS;
    total += requests;
    peak = Math.max(peak, requests);
    peakSteps = Math.max(peakSteps, served * s.perFullStep + restPerS);
  }
  return { averagePerS: total / s.windowS, peakPerS: peak, peakStepsPerS: peakSteps, fullSteps, maxBacklog, deferred };
}

/**
 * The second each arrival may start under the budget: arrivals reserve in order as they arrive (at
 * the start of their second); one whose reservation starts later is deferred to that second, rounded up.
 */
function budgeted(arrivals: readonly number[], budget: ApiBudgetConfig): { ready: number[]; deferred: number } {
  const ready = new Array<number>(arrivals.length + 1).fill(0);
  let tatMs: number | undefined;
  let deferred = 0;
  arrivals.forEach((count, t) => {
    for (let i = 0; i < count; i++) {
      const r = reserve(tatMs, t * 1000, budget.stepRequests, budget);
      tatMs = r.tatMs;
      const at = Math.ceil(r.startAtMs / 1000);
      if (at > t) deferred++;
      if (at >= ready.length) ready.length = at + 1;
      ready[at] = (ready[at] ?? 0) + 1;
    }
  });
  return { ready, deferred };
}

/**
 * The sweep's delay before the slots: each key's own share of the spread from its hash, uniform over
 * `[0, spread)` — independent draws, so they bunch as Poisson arrivals do.
 */
export function keyHashDelaySeconds(key: string, spreadSeconds: number): number {
  const spread = Math.floor(Math.min(Math.max(spreadSeconds, 0), MAX_DELAY_SECONDS));
  return spread === 0 ? 0 : Math.floor((spreadHash(key) / 2 ** 32) * spread);
}

/** A fraction in [0, 1) from `index` (a fixed sequence: the same fleet every run). */
export function fixedFraction(index: number): number {
  let x = (index + 1) * 0x9e3779b1;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return ((x ^ (x >>> 16)) >>> 0) / 0x1_0000_0000;
}
