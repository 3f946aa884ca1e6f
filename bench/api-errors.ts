/**
 * A PD failover while the Kubernetes API fails a share of the reconciler's requests: the story of
 * test/scenarios/pd-failover-under-api-errors.yaml (basic-pd-1's process dies; `kube-api-errors`
 * is on from the moment of the fault) run at error rates 0, 10, 30 and 50 %, several seeds each.
 * Per rate: median and max virtual time from the fault to the end of the failover (the failed member
 * deleted from PD and replaced, every member healthy, the cluster Ready again), and the steps and API server requests (every request the server saw, failed
 * ones included; PD calls go through its proxy) in that window. The 0 % rows are the fault-free run
 * of the same invocation; the goal is a 30 % median within twice the 0 % one.
 *
 *   npx tsx -e "import('./bench/api-errors.js').then(async (m) => { console.log(await m.benchApiErrors()); process.exit(0); })"
 */
import { join } from 'node:path';
import type { Scenario, TimelineEntry } from '../lib/local/scenario/types.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { EntryRecorder, RequestTally, diffCounts, loadScenario } from './probes.js';
import { table } from './stats.js';

/** The error rates of the curve. */
export const ERROR_RATES = [0, 0.1, 0.3, 0.5] as const;
/** Seeds per rate. */
export const SEEDS = [1, 2, 3, 4, 5] as const;

const STORY = join(import.meta.dirname, '..', 'test', 'scenarios', 'pd-failover-under-api-errors.yaml');
/** Timeline indices in the story: the fault is entry 2, the failure mark 3, Ready again 4. */
const FAULT = 2;
const MARKED = 3;
const REPLACED = 4;
/** How long the bench lets a failover take (the story itself allows twice the fault-free time). */
const BENCH_TIMEOUT_MS = 30 * 60_000;

/** One run's numbers; `ms` is undefined when the failover did not finish within the timeout. */
export type FailoverRun = { rate: number; seed: number; ms: number | undefined; steps: number; requests: number; violations: number };

/** The story at `rate`, with a timeout long enough to measure a slow failover rather than fail it. */
function atRate(story: Scenario, rate: number): Scenario {
  const timeline = story.timeline.map((e): TimelineEntry => {
    if (e.verb === 'fault' && e.fault.kind === 'kube-api-errors') return { ...e, fault: { ...e.fault, rate } };
    if (e.verb === 'waitFor' && (e.index === MARKED || e.index === REPLACED)) return { ...e, timeoutMs: BENCH_TIMEOUT_MS };
    return e;
  });
  return { ...story, timeline };
}

/** Runs the story once at `rate` with `seed`. */
export async function runFailover(rate: number, seed: number): Promise<FailoverRun> {
  const scenario = atRate(loadScenario(STORY), rate);
  const stack = await SimStack.start(scenario, seed);
  try {
    const requests = new RequestTally(stack);
    const rec = new EntryRecorder(stack, requests);
    const report = await runScenario(stack, rec);
    const before = rec.marks.find((m) => m.index === FAULT - 1);
    const replaced = rec.marks.find((m) => m.index === REPLACED);
    const fault = rec.marks.find((m) => m.index === FAULT);
    const violations = report.invariants.reduce((n, inv) => n + inv.violations.length, 0);
    if (!before || !fault || !replaced) return { rate, seed, ms: undefined, steps: stack.steps, requests: 0, violations };
    const d = diffCounts(before.requestsAtEnd, replaced.requestsAtEnd);
    return {
      rate,
      seed,
      ms: replaced.ok ? replaced.endMs - fault.startMs : undefined,
      steps: replaced.stepsAtEnd - fault.stepsAtStart,
      requests: d.list + d.get + d.write + d['pd-read'] + d['pd-write'] + d.other,
      violations,
    };
  } finally {
    await stack.stop();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Runs the curve and returns its Markdown section. */
export async function benchApiErrors(): Promise<string> {
  const runs: FailoverRun[] = [];
  for (const rate of ERROR_RATES) for (const seed of SEEDS) runs.push(await runFailover(rate, seed));
  const rows = ERROR_RATES.map((rate) => {
    const at = runs.filter((r) => r.rate === rate);
    const done = at.flatMap((r) => (r.ms === undefined ? [] : [r.ms]));
    return {
      rate,
      medianMs: median(done),
      cells: [
        `${Math.round(rate * 100)} %`,
        `${done.length}/${at.length}`,
        done.length ? seconds(median(done)) : '–',
        done.length ? seconds(Math.max(...done)) : '–',
        median(at.map((r) => r.steps)),
        Math.max(...at.map((r) => r.steps)),
        median(at.map((r) => r.requests)),
        Math.max(...at.map((r) => r.requests)),
        at.reduce((n, r) => n + r.violations, 0),
      ],
    };
  });
  const base = rows.find((r) => r.rate === 0)?.medianMs ?? NaN;
  const at30 = rows.find((r) => r.rate === 0.3)?.medianMs ?? NaN;
  return [
    '### PD failover under Kubernetes API errors',
    '',
    `test/scenarios/pd-failover-under-api-errors.yaml at each error rate, seeds ${SEEDS.join(', ')}: basic-pd-1's process dies and \`kube-api-errors\` fails that share of the reconciler's API server requests (500 or 429 with Retry-After; 409 for guarded writes; PD calls through the proxy included). Time is virtual, from the fault to the end of the failover: basic-pd-1 deleted from PD and replaced, every member healthy, the cluster Ready again (the 5 min failover period included); steps and API server requests are counted over the same window, failed requests included.`,
    '',
    table(['error rate', 'finished', 'median time', 'max time', 'median steps', 'max steps', 'median requests', 'max requests', 'invariant violations'], rows.map((r) => r.cells)),
    '',
    `30 % median / 0 % median: **${(at30 / base).toFixed(2)}×** (goal ≤ 2×).`,
  ].join('\n');
}
