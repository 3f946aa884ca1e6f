/**
 * Load at rest (issue 30), before beside after, in one run:
 *
 * - Requests per cluster-hour at rest: test/scenarios/at-rest-load.yaml (PD 3, TiKV 3, TiDB 2,
 *   TiFlash 1, TiCDC 2, Pump 1) on the simulated stack: Ready, 10 minutes to settle, then one
 *   virtual hour whose requests are counted (the report's counters; the sweep's cluster-wide
 *   TidbCluster LISTs told apart by path). Before: main's behaviour as configuration reaches it —
 *   every sweep steps every cluster in full, at once (`sweepSpread: 0s`, `fullReadIntervalMs` 0,
 *   `healthIntervalMs` 0); after: the defaults (docs/adr/0024).
 * - The full read every 3–3.5 h is rare inside one hour, so its cost is measured where every step is
 *   one (the before run: API requests per sweep step, the LIST taken out) and amortised over the
 *   interval plus the mean of the spread.
 * - The rate at 10 000 clusters: bench/at-rest-projection.ts, second by second over 7 hours.
 *
 *   npm run bench -- --only at-rest-load
 */
import { join } from 'node:path';
import { DEFAULT_LATENCY } from '../lib/local/latency.js';
import { REQUEST_TARGETS, type RequestCounts, type RequestTarget } from '../lib/local/request-counts.js';
import type { Progress } from '../lib/local/scenario/progress.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import type { Scenario } from '../lib/local/scenario/types.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import type { ReconcilerConfig } from '../lib/platform/config.js';
import { SQS_MAX_BATCH } from '../lib/queue/port.js';
import { SWEEP_PAGE_LIMIT } from '../lib/wiring/lister.js';
import { SWEPT_KINDS } from '../lib/wiring/object-lister.js';
import { SWEEP_BUDGET_SHARE } from '../lib/step/sweep-spread.js';
import { fixedFraction, type FleetRate, type FleetSchedule, fleetRate } from './at-rest-projection.js';
import { loadScenario } from './probes.js';
import { table } from './stats.js';
import { recordGoal } from './goals.js';

const FILE = join(import.meta.dirname, '..', 'test', 'scenarios', 'at-rest-load.yaml');
/** serverless.yml `params.default.reconcileConcurrency`: the event source's MaximumConcurrency. */
const RECONCILE_CONCURRENCY = 10;
const FLEET = 10_000;
const HOUR_MS = 3_600_000;
const SETTLE_MS = 600_000;
const WINDOW_S = 7 * 3600;
/** The sweep's cluster-wide LIST (lib/wiring/lister.ts), as the API server sees it. */
const SWEEP_LIST = /^GET \/apis\/pingcap\.com\/v1alpha1\/tidbclusters(\?|$)/;

/**
 * The sweep's cluster-wide LIST of Backups (lib/wiring/object-lister.ts), made only while the exporter
 * may have missed events (before: always, no mark being read). It lists every one of `SWEPT_KINDS`
 * together, and nothing else lists Backups cluster-wide, so each such LIST stands for that many.
 */
const SWEEP_BACKUP_LIST = /^GET \/apis\/pingcap\.com\/v1alpha1\/backups(\?|$)/;

/** What one run measured over its hour at rest. */
type AtRest = { counts: RequestCounts; sweepLists: number; sweepObjectLists: number; steps: number; virtualMs: number; passed: boolean; config: ReconcilerConfig };

/** The story: Ready, settle, one hour at rest (the counted entry is the last). */
function story(scenario: Scenario, before: boolean): Scenario {
  const timeline = [scenario.timeline[0], { ...scenario.timeline[1], index: 1, verb: 'advance' as const, durationMs: SETTLE_MS }, { ...scenario.timeline[1], index: 2, verb: 'advance' as const, durationMs: HOUR_MS }];
  if (timeline.some((e) => e === undefined)) throw new Error(`${FILE}: expected a waitFor and an advance`);
  const config = before ? { ...scenario.config, sweepSpreadMs: 0 } : scenario.config;
  // The file's `expect:` bounds its own timeline (after only); here the timeline's entries must pass.
  const { expect: _bounds, ...rest } = scenario;
  return { ...rest, config, timeline: timeline as Scenario['timeline'] };
}

/**
 * Before: the shared settings object every function's runtime reads at each invocation
 * (lib/local/sim-runtimes.ts) turned to main's: no full-read interval, no health steps.
 */
function asMain(stack: SimStack): void {
  const shared = stack.runtimes.reconcile.config;
  if (stack.runtimes.sweep.config !== shared) throw new Error('the sweep and reconcile runtimes no longer share one config object; set main\'s behaviour another way');
  const { apiBudget: _stepBudget, ...step } = shared.step;
  const { apiBudget: _sweepBudget, ...sweep } = shared.sweep;
  const main: ReconcilerConfig = { ...shared, step: { ...step, healthIntervalMs: 0 }, sweep: { ...sweep, fullReadIntervalMs: 0, spreadSeconds: 0 } };
  Object.assign(shared as Record<string, unknown>, main);
}

async function atRest(scenario: Scenario, before: boolean): Promise<AtRest> {
  const run = story(scenario, before);
  const stack = await SimStack.start(run, run.seed);
  if (before) asMain(stack);
  const last = run.timeline.length - 1;
  let start: { counts: RequestCounts; steps: number; atMs: number } | undefined;
  let sweepLists = 0;
  let sweepObjectLists = 0;
  const previous = stack.world.server.requestHook;
  stack.world.server.requestHook = (method, path) => {
    if (start !== undefined && SWEEP_LIST.test(`${method} ${path}`)) sweepLists++;
    if (start !== undefined && SWEEP_BACKUP_LIST.test(`${method} ${path}`)) sweepObjectLists += SWEPT_KINDS.length;
    return previous?.(method, path);
  };
  const progress: Progress = { ...createProgress({ quiet: true }), entryStarted: (entry) => void (entry.index === last && (start = { counts: stack.requests.snapshot(), steps: stack.steps, atMs: stack.clock.nowMs() })) };
  try {
    const report = await runScenario(stack, progress);
    if (start === undefined) throw new Error(`${FILE}: the hour at rest never started (${JSON.stringify(report.timeline)})`);
    return { counts: stack.requests.since(start.counts), sweepLists, sweepObjectLists, steps: stack.steps - start.steps, virtualMs: stack.clock.nowMs() - start.atMs, passed: report.timeline.every((e) => e.ok), config: stack.runtimes.reconcile.config };
  } finally {
    await stack.stop();
  }
}

/** The at-rest section (see the module comment). */
export async function benchAtRestLoad(): Promise<string> {
  const scenario = loadScenario(FILE);
  const before = await atRest(scenario, true);
  const after = await atRest(scenario, false);
  const hours = (r: AtRest): number => r.virtualMs / HOUR_MS;
  const perHour = (r: AtRest, n: number): number => n / hours(r);
  const of = (r: AtRest, t: RequestTarget): number => perHour(r, r.counts[t]);
  // A full read's API requests: before, every step is one (the sweep's LIST counted apart).
  const perFullStep = (before.counts.apiServer - before.sweepLists - before.sweepObjectLists) / Math.max(1, before.steps);
  const interval = after.config.sweep.fullReadIntervalMs ?? 0;
  const spread = after.config.sweep.fullReadSpreadMs ?? 0;
  const fullEveryH = (interval + spread / 2) / HOUR_MS;
  const stepsAfter = perHour(after, after.counts.apiServer - after.sweepLists - after.sweepObjectLists);
  const listPerClusterHour = (r: AtRest): number => (perHour(r, r.sweepLists) * Math.ceil(FLEET / SWEEP_PAGE_LIMIT)) / FLEET;
  const rows: (string | number)[][] = [
    [`API server: the sweep's TidbCluster LIST (per EKS cluster; at ${FLEET.toLocaleString('en-US')} clusters ${Math.ceil(FLEET / SWEEP_PAGE_LIMIT)} pages a sweep)`, perHour(before, before.sweepLists).toFixed(1), perHour(after, after.sweepLists).toFixed(1), 'counted by path in the hour'],
    ["API server: the sweep's Backup, Restore and CompactBackup LISTs (while the exporter may have missed events)", perHour(before, before.sweepObjectLists).toFixed(1), perHour(after, after.sweepObjectLists).toFixed(1), 'counted by path in the hour'],
    ['API server: the steps, in the hour', perHour(before, before.counts.apiServer - before.sweepLists - before.sweepObjectLists).toFixed(1), stepsAfter.toFixed(1), 'counted in the hour'],
    ['API server: the full read every 3–3.5 h, amortised', '– (every step is one: above)', (perFullStep / fullEveryH).toFixed(1), `${perFullStep.toFixed(1)} per full read ÷ ${fullEveryH.toFixed(2)} h (interval + mean spread)`],
    ['API server: total per cluster-hour, one cluster in its EKS cluster (goal ≤ 20)', of(before, 'apiServer').toFixed(1), (perHour(after, after.counts.apiServer) + perFullStep / fullEveryH).toFixed(1), 'the rows above'],
    [`API server: total per cluster-hour, ${FLEET.toLocaleString('en-US')} clusters in one EKS cluster`, (perHour(before, before.counts.apiServer - before.sweepLists) + listPerClusterHour(before)).toFixed(2), (stepsAfter + perFullStep / fullEveryH + listPerClusterHour(after)).toFixed(2), `the steps' rows, and the LIST's ${Math.ceil(FLEET / SWEEP_PAGE_LIMIT)} pages a sweep shared by ${FLEET.toLocaleString('en-US')}`],
    ['exporter per EKS cluster-hour (goal ≤ 60)', of(before, 'exporter').toFixed(1), of(after, 'exporter').toFixed(1), 'counted in the hour'],
    ...REQUEST_TARGETS.filter((t) => t !== 'apiServer' && t !== 'exporter').map((t) => [`${t} per cluster-hour`, of(before, t).toFixed(1), of(after, t).toFixed(1), 'counted in the hour']),
    ['steps per cluster-hour', perHour(before, before.steps).toFixed(1), perHour(after, after.steps).toFixed(1), 'claims in the hour'],
  ];
  const projection = project(perFullStep, stepsAfter, after.config, scenarioIntervalS(scenario));
  recordAtRestGoals(of(before, 'apiServer'), perHour(after, after.counts.apiServer) + perFullStep / fullEveryH, of(after, 'exporter'), projection);
  return [
    '### Load at rest, before → after: API requests per cluster-hour and the sweep of 10 000 clusters',
    '',
    `\`npm run bench -- --only at-rest-load\` (bench/at-rest-load.ts, bench/at-rest-projection.ts). test/scenarios/at-rest-load.yaml (PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1), seed ${scenario.seed}, on the simulated stack: Ready, ${SETTLE_MS / 60_000} minutes to settle, then one virtual hour whose requests are counted (the report's \`requests\` counters; the sweep's cluster-wide TidbCluster LIST told apart by its path). Before: main's behaviour as configuration reaches it — every sweep steps every cluster in full and sends every message at once (\`config.sweepSpread: 0s\`, the full-read interval 0, no health steps); main also LISTed TiDB Operator's Deployments in every step, which no setting brings back, so main's steps cost a request more than this column; the exporter is today's in both columns (main's watched fewer kinds: 420 a cluster-hour in this section's previous run, 15:14 UTC the same day). After: the defaults (health steps every ${(after.config.step.healthIntervalMs ?? 0) / 1000} s that ask the API server nothing, a full read every ${interval / HOUR_MS} h plus up to ${spread / 60_000} min by key, the sweep's messages spread over ${after.config.sweep.spreadSeconds ?? 0} s by slots of a golden-ratio sequence per EKS cluster, at most ${SWEEP_BUDGET_SHARE * 100} % of the API budget's steps per sweep, and steps deferred by the per-EKS-cluster API budget: ${after.config.step.apiBudget?.requestsPerSecond ?? 0} requests a second, a burst of ${after.config.step.apiBudget?.burstRequests ?? 0}, ${after.config.step.apiBudget?.stepRequests ?? 0} charged a step; before has no budget). No full read falls inside the hour after, so its cost is the before run's API requests per sweep step (${perFullStep.toFixed(1)}: a full read, the LIST taken out), amortised over ${fullEveryH.toFixed(2)} h. Counts are exact for this seed; nothing here is a timing. Every timeline entry passed: ${before.passed} → ${after.passed}.`,
    '',
    table(['at rest, one full cluster', 'before', 'after', 'how'], rows),
    '',
    `At ${FLEET.toLocaleString('en-US')} clusters (bench/at-rest-projection.ts): the measured schedule run second by second over ${WINDOW_S / 3600} h for ${FLEET.toLocaleString('en-US')} keys \`eks/fleet/tc-NNNNN\`. Each sweep (every ${scenarioIntervalS(scenario)} s) LISTs ${Math.ceil(FLEET / SWEEP_PAGE_LIMIT)} pages of ${SWEEP_PAGE_LIMIT} in its first second; a cluster due a full read (before: every one, every sweep) arrives when its message turns visible (its key's delay) and costs ${perFullStep.toFixed(1)} requests; after, the sweep sends at most its share of the API budget and each step reserves its charge, deferred to its reservation's start when the budget is spent; steps are worked off at ${stepsPerS()} a second (reconcileConcurrency ${RECONCILE_CONCURRENCY} invocations, batches of ${SQS_MAX_BATCH}, ${DEFAULT_LATENCY.stepMs} ms a step as the simulated latency); the other steps' requests (after: ${stepsAfter.toFixed(1)} per cluster-hour measured above) are spread evenly. After, two fleets: one whose last full reads are spread evenly over each key's interval plus one sweep (a fleet long at rest, as just before a sweep), and one read in full all at once at the window's start (after an exporter outage made every cluster read in full), the worst case for the next round; and one where every key is due a full read at the window's first sweep (the sweep after an exporter outage, whose stale mark makes every cluster read in full: sweep-rest.ts).`,
    '',
    table(
      ['API requests/s at 10 000 clusters (goals: ≤ 50 average, ≤ 100 peak)', 'before', 'after, full reads spread', 'after, full reads aligned at t = 0', 'after, every key due at t = 0'],
      [
        ['average over the window', ...projection.map((r) => r.averagePerS.toFixed(1))],
        ['peak second', ...projection.map((r) => r.peakPerS.toFixed(0))],
        ['peak second of the steps alone (the LIST pages left out)', ...projection.map((r) => r.peakStepsPerS.toFixed(0))],
        ['full steps in the window', ...projection.map((r) => String(r.fullSteps))],
        ['most steps visible and waiting at once', ...projection.map((r) => String(r.maxBacklog))],
        ['steps the API budget deferred', ...projection.map((r) => String(r.deferred))],
      ],
    ),
    '',
    spreadingTable(perFullStep, stepsAfter, after.config, scenarioIntervalS(scenario)),
    '',
    verdicts(perHour(after, after.counts.apiServer) + perFullStep / fullEveryH, of(after, 'exporter'), projection[1], perFullStep),
  ].join('\n');
}

function stepsPerS(): number {
  return RECONCILE_CONCURRENCY * (1000 / DEFAULT_LATENCY.stepMs);
}

function scenarioIntervalS(scenario: Scenario): number {
  return scenario.config.sweepIntervalMs / 1000;
}

/** The three fleets after: full reads spread, aligned at t = 0, and all due at t = 0. */
const FLEETS: readonly { readonly name: string; readonly firstFullAtS: (sweepIntervalS: number) => FleetSchedule['firstFullAtS'] }[] = [
  { name: 'full reads spread', firstFullAtS: (sweepIntervalS) => (i, dueAfterS) => -Math.floor(fixedFraction(i) * (dueAfterS + sweepIntervalS)) },
  { name: 'full reads aligned at t = 0', firstFullAtS: () => () => 0 },
  { name: 'every key due at t = 0', firstFullAtS: () => (_, dueAfterS) => -dueAfterS },
];

function scheduleBase(perFullStep: number, restPerClusterHour: number, after: ReconcilerConfig, sweepIntervalS: number) {
  const keys = Array.from({ length: FLEET }, (_, i) => `eks/fleet/tc-${String(i).padStart(5, '0')}`);
  const base = { keys, windowS: WINDOW_S, sweepIntervalS, perFullStep, listPages: Math.ceil(FLEET / SWEEP_PAGE_LIMIT), stepsPerS: stepsPerS() };
  const afterBase = { ...base, sweepSpreadS: after.sweep.spreadSeconds ?? 0, fullReadIntervalS: (after.sweep.fullReadIntervalMs ?? 0) / 1000, fullReadSpreadS: (after.sweep.fullReadSpreadMs ?? 0) / 1000, restPerClusterHour };
  return { base, afterBase };
}

/** Before; after (the defaults: slots and the API budget) for each fleet. */
function project(perFullStep: number, restPerClusterHour: number, after: ReconcilerConfig, sweepIntervalS: number): FleetRate[] {
  const { base, afterBase } = scheduleBase(perFullStep, restPerClusterHour, after, sweepIntervalS);
  const budget = after.step.apiBudget;
  return [
    fleetRate({ ...base, sweepSpreadS: 0, fullReadIntervalS: 0, fullReadSpreadS: 0, restPerClusterHour: 0, firstFullAtS: () => 0 }),
    ...FLEETS.map((f) => fleetRate({ ...afterBase, ...(budget ? { budget } : {}), firstFullAtS: f.firstFullAtS(sweepIntervalS) })),
  ];
}

/**
 * The sweep's spreading before → after, per fleet: each key's own delay from its hash and no API
 * budget (the previous after) beside the slots alone and the slots with the budget (this after).
 */
function spreadingTable(perFullStep: number, restPerClusterHour: number, after: ReconcilerConfig, sweepIntervalS: number): string {
  const { afterBase } = scheduleBase(perFullStep, restPerClusterHour, after, sweepIntervalS);
  const budget = after.step.apiBudget;
  const rows = FLEETS.map((f) => {
    const firstFullAtS = f.firstFullAtS(sweepIntervalS);
    const runs = [
      fleetRate({ ...afterBase, spreading: 'key-hash', firstFullAtS }),
      fleetRate({ ...afterBase, spreading: 'slots', firstFullAtS }),
      fleetRate({ ...afterBase, spreading: 'slots', ...(budget ? { budget } : {}), firstFullAtS }),
    ];
    return [f.name, ...runs.map((r) => `${r.peakPerS.toFixed(0)} / ${r.averagePerS.toFixed(1)}`)];
  });
  const rate = budget === undefined ? 'none' : `${budget.requestsPerSecond}/s, burst ${budget.burstRequests}, ${budget.stepRequests} a step`;
  return [
    `The sweep's spreading and the API budget, before → after (peak second / average per second at ${FLEET.toLocaleString('en-US')} clusters, same model; API budget ${rate}, the sweep's full steps at most ${SWEEP_BUDGET_SHARE * 100} % of it per sweep, lib/step/sweep-spread.ts, docs/adr/0028):`,
    '',
    table(['fleet', "before: each key's delay from its hash, no budget", 'slots of a golden-ratio sequence per EKS cluster', 'after: slots and the API budget'], rows),
  ].join('\n');
}

/**
 * Records this section's goals for the run's closing table (bench/goals.ts). The exporter's before is
 * the one-session-a-minute exporter's count (docs/adr/0029), which this section no longer runs; the
 * fleet's before and after are the projection's first two columns (every key in full, no spread →
 * the defaults over a fleet long at rest), its worst after the largest of the after columns.
 */
function recordAtRestGoals(apiBefore: number, apiAfter: number, exporterAfter: number, projection: readonly FleetRate[]): void {
  const [before, after] = projection;
  if (before === undefined || after === undefined) throw new Error('at-rest-load: the projection lacks its before and after columns');
  const worst = (f: (r: FleetRate) => number): number => Math.max(...projection.slice(1).map(f));
  const goal = (text: string, b: string, a: string, met: boolean): void => recordGoal({ section: 'at-rest-load', goal: text, before: b, after: a, met });
  goal('API-server requests per cluster-hour at rest, one full cluster ≤ 20', apiBefore.toFixed(1), apiAfter.toFixed(1), apiAfter <= 20);
  goal("the exporter's API-server requests per EKS cluster-hour at rest ≤ 60", '840 (a session a minute, docs/adr/0029)', exporterAfter.toFixed(0), exporterAfter <= 60);
  goal('API requests/s at 10 000 clusters, average ≤ 50', before.averagePerS.toFixed(1), `${after.averagePerS.toFixed(1)} (worst fleet ${worst((r) => r.averagePerS).toFixed(1)})`, worst((r) => r.averagePerS) <= 50);
  goal('API requests/s at 10 000 clusters, peak second ≤ 100', before.peakPerS.toFixed(0), `${after.peakPerS.toFixed(0)} (worst fleet ${worst((r) => r.peakPerS).toFixed(0)})`, worst((r) => r.peakPerS) <= 100);
}

/** Issue 30's goals, each met or not by the after column (from this run's numbers). */
function verdicts(apiPerClusterHour: number, exporterPerHour: number, spread: FleetRate | undefined, perFullStep: number): string {
  const met = (ok: boolean): string => (ok ? 'met' : '**not met**');
  const peak = spread?.peakPerS ?? Number.NaN;
  return [
    `Issue 30's goals, after: ≤ 20 API-server requests per cluster-hour — ${met(apiPerClusterHour <= 20)} (${apiPerClusterHour.toFixed(1)});`,
    `≤ 60 exporter requests per EKS cluster-hour — ${met(exporterPerHour <= 60)} (${exporterPerHour.toFixed(0)}: one watch per kind in each of the exporter's 15-minute sessions, resumed from the last one's checkpoints);`,
    `≤ 50/s on average at 10 000 clusters — ${met((spread?.averagePerS ?? Number.NaN) <= 50)} (${spread?.averagePerS.toFixed(1)});`,
    `≤ 100/s at peak — ${met(peak <= 100)} (${peak.toFixed(0)} in the busiest second of a fleet long at rest: ${Math.round((spread?.peakStepsPerS ?? 0) / perFullStep)} full reads of ${perFullStep.toFixed(0)} requests whose keys' sweep delays fall in the same second; more after an exporter outage, columns 3 and 4).`,
    'The projection assumes each full read\'s requests land in the second its step starts (a step takes 100 ms in the latency model).',
  ].join(' ');
}
