/**
 * Load at rest (issue 30), before → after, in one run:
 *
 * - Requests per cluster-hour at rest: test/scenarios/at-rest-load.yaml (PD 3, TiKV 3, TiDB 2,
 *   TiFlash 1, TiCDC 2, Pump 1; Ready, then one virtual hour at rest) run on the simulated stack,
 *   the report's counters read over the hour (timeline[1]); before with the sweep's spread off
 *   (`config.sweepSpread: 0s`, as main sends every sweep message at once), after as deployed.
 * - The sweep's request rate at 10 000 clusters: each cluster's sweep step arrives when its message
 *   turns visible (its delay, lib/step/sweep-spread.ts; before: every one at once), steps run as the
 *   event source allows (`reconcileConcurrency` invocations of `batchSize` steps of `stepMs` each), and
 *   each costs the API-server requests a sweep step made at rest above; the sweep's own LIST pages
 *   come at its start. Average over the interval and peak per second.
 *
 *   npm run bench -- --only at-rest-load
 */
import { join } from 'node:path';
import { DEFAULT_LATENCY } from '../lib/local/latency.js';
import { REQUEST_TARGETS, type RequestCounts } from '../lib/local/request-counts.js';
import type { Progress } from '../lib/local/scenario/progress.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import type { Scenario } from '../lib/local/scenario/types.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { SQS_MAX_BATCH } from '../lib/queue/port.js';
import { sweepDelaySeconds } from '../lib/step/sweep-spread.js';
import { SWEEP_PAGE_LIMIT } from '../lib/wiring/lister.js';
import { loadScenario } from './probes.js';
import { table } from './stats.js';

const FILE = join(import.meta.dirname, '..', 'test', 'scenarios', 'at-rest-load.yaml');
/** serverless.yml `params.default.reconcileConcurrency`: the event source's MaximumConcurrency. */
const RECONCILE_CONCURRENCY = 10;
const FLEET = 10_000;
const HOUR_MS = 3_600_000;

/** What one run measured over its hour at rest. */
type AtRest = { counts: RequestCounts; steps: number; sweeps: number; virtualMs: number; passed: boolean };

/** Runs the story with `spreadMs` (undefined: as the file says) and counts timeline[1]'s window. */
async function atRest(scenario: Scenario, spreadMs: number | undefined): Promise<AtRest> {
  const run: Scenario = spreadMs === undefined ? scenario : { ...scenario, config: { ...scenario.config, sweepSpreadMs: spreadMs } };
  const stack = await SimStack.start(run, run.seed);
  const quiet = createProgress({ quiet: true });
  let start: { counts: RequestCounts; steps: number; atMs: number } | undefined;
  const t0 = stack.clock.nowMs();
  const progress: Progress = { ...quiet, entryStarted: (entry) => void (entry.index === 1 && (start = { counts: stack.requests.snapshot(), steps: stack.steps, atMs: stack.clock.nowMs() })) };
  try {
    const report = await runScenario(stack, progress);
    if (start === undefined) throw new Error(`${FILE}: timeline[1] never started (${JSON.stringify(report.timeline)})`);
    const interval = run.config.sweepIntervalMs;
    const endMs = stack.clock.nowMs();
    // The runner's sweep fires every interval from the run's start.
    const sweeps = Math.floor((endMs - t0) / interval) - Math.floor((start.atMs - t0) / interval);
    return { counts: stack.requests.since(start.counts), steps: stack.steps - start.steps, sweeps, virtualMs: endMs - start.atMs, passed: report.passed };
  } finally {
    await stack.stop();
  }
}

/** Requests per second while `arrivalsAtS` (steps becoming visible each second) are worked off at `perSecond` steps a second. */
function requestRate(arrivalsAtS: readonly number[], perSecond: number, perStep: number, listPages: number, intervalS: number): { averagePerS: number; peakPerS: number; drainedAtS: number } {
  let backlog = 0;
  let peak = 0;
  let total = 0;
  let s = 0;
  for (; s < arrivalsAtS.length || backlog > 0; s++) {
    backlog += arrivalsAtS[s] ?? 0;
    const served = Math.min(backlog, perSecond);
    backlog -= served;
    const requests = served * perStep + (s === 0 ? listPages : 0);
    peak = Math.max(peak, requests);
    total += requests;
  }
  return { averagePerS: total / intervalS, peakPerS: peak, drainedAtS: s };
}

/** The at-rest section (see the module comment). */
export async function benchAtRestLoad(): Promise<string> {
  const scenario = loadScenario(FILE);
  const before = await atRest(scenario, 0);
  const after = await atRest(scenario, undefined);
  const clusters = scenario.clusters.length;
  const perClusterHour = (r: AtRest, t: (typeof REQUEST_TARGETS)[number]): string => ((r.counts[t] / clusters / (r.virtualMs / HOUR_MS)) || 0).toFixed(1);
  // Per step too: which sweep steps fall inside the hour depends on the spread's phase (12 or 11).
  const perStepOf = (r: AtRest, t: (typeof REQUEST_TARGETS)[number]): string => (t === 'exporter' ? '–' : (r.counts[t] / Math.max(1, r.steps)).toFixed(1));
  const loadRows = REQUEST_TARGETS.map((t) => [t === 'exporter' ? 'exporter (per EKS cluster)' : t, perClusterHour(before, t), perClusterHour(after, t), perStepOf(before, t), perStepOf(after, t)]);
  // A sweep step's API-server requests at rest: the hour's, less the sweep's own LIST (one page per sweep at one cluster).
  const perStep = (after.counts.apiServer - after.sweeps) / Math.max(1, after.steps);
  const intervalS = scenario.config.sweepIntervalMs / 1000;
  const spreadS = Math.min(intervalS, 900);
  const keys = Array.from({ length: FLEET }, (_, i) => `eks/fleet/tc-${String(i).padStart(5, '0')}`);
  const arrivals = (spread: number): number[] => {
    const perS = new Array<number>(Math.max(1, spread)).fill(0);
    for (const key of keys) perS[sweepDelaySeconds(key, spread)] = (perS[sweepDelaySeconds(key, spread)] ?? 0) + 1;
    return perS;
  };
  // Each invocation takes a batch of 10 and spends stepMs on each of its keys.
  const stepsPerS = RECONCILE_CONCURRENCY * (1000 / DEFAULT_LATENCY.stepMs);
  const pages = Math.ceil(FLEET / SWEEP_PAGE_LIMIT);
  const rate = { before: requestRate(arrivals(0), stepsPerS, perStep, pages, intervalS), after: requestRate(arrivals(spreadS), stepsPerS, perStep, pages, intervalS) };
  const offered = { before: FLEET * perStep + pages, after: Math.max(...arrivals(spreadS)) * perStep + pages };
  return [
    '### Load at rest, before → after: API requests per cluster-hour and the sweep of 10 000 clusters',
    '',
    `\`npm run bench -- --only at-rest-load\` (bench/at-rest-load.ts). test/scenarios/at-rest-load.yaml (PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1), seed ${scenario.seed}: Ready, then one virtual hour at rest; the report's \`requests\` counted over that hour. Before: the sweep sends every message at once (\`config.sweepSpread: 0s\`, main's behaviour); after: spread over the ${intervalS} s interval. Steps in the hour (every one a sweep step): ${before.steps} → ${after.steps} — the spread moves this cluster's sweep steps to its own phase, so one falls outside the hour when the count is 11; per step the load is the same; the spread does not cut it (per step, apiServer includes the sweep's LIST, dynamodb and sqs the exporter's checkpoints and sends and the event source's receives and deletes). Story passed: ${before.passed} → ${after.passed}.`,
    '',
    table(['requests at rest', 'per cluster-hour before', 'per cluster-hour after', 'per step before', 'per step after'], loadRows),
    '',
    `The sweep of ${FLEET.toLocaleString('en-US')} clusters: ${perStep.toFixed(1)} API-server requests per sweep step (the hour above, the sweep's own LIST taken out), ${pages} LIST pages of ${SWEEP_PAGE_LIMIT} at the sweep's start; steps worked off at ${stepsPerS} a second (reconcileConcurrency ${RECONCILE_CONCURRENCY} invocations, batches of ${SQS_MAX_BATCH}, ${DEFAULT_LATENCY.stepMs} ms a step as the simulated latency). Offered: what would reach the API server if every visible step ran at once.`,
    '',
    table(
      ['API requests/s at 10 000 clusters', 'before (all at once)', `after (spread over ${spreadS} s)`],
      [
        ['average over the interval', rate.before.averagePerS.toFixed(0), rate.after.averagePerS.toFixed(0)],
        ['peak second (event source capped)', rate.before.peakPerS.toFixed(0), rate.after.peakPerS.toFixed(0)],
        ['peak second offered (uncapped)', offered.before.toFixed(0), offered.after.toFixed(0)],
        ['steps visible in the busiest second', String(FLEET), String(Math.max(...arrivals(spreadS)))],
        ['last sweep step done after', `${rate.before.drainedAtS} s`, `${rate.after.drainedAtS} s`],
      ],
    ),
    '',
    `Issue 30's goals: ≤ 20 API-server requests per cluster-hour at rest, ≤ 60 exporter requests per EKS cluster-hour, ≤ 50/s average and ≤ 100/s peak at 10 000 clusters. The spread removes the burst (peak = average + the per-second jitter of the draw); the rate itself falls only with fewer requests per step.`,
  ].join('\n');
}
