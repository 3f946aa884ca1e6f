/**
 * What a crashed step costs: PD scales out 3 → 5 with and without the step that starts the
 * scale-out dying, on the same seeds in one process, in two stories: the step dies after its first
 * write, so the pods it set in motion send triggers while its lease is held
 * (`test/scenarios/pd-scale-out-step-crash.yaml`), and the step dies before its first write, so no
 * other trigger arrives (`test/scenarios/pd-scale-out-step-crash-alone.yaml`). Each is compared with
 * its own file with the `step-crash` fault removed. Convergence is virtual time from the scale-out
 * patch to Ready; the stall is the difference, to be compared with the lease.
 *
 *   npx tsx -e "import('./bench/crash-stall.js').then(async (m) => console.log(await m.benchCrashStall()))"
 */
import { join } from 'node:path';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import type { Scenario } from '../lib/local/scenario/types.js';
import { DEFAULT_STEP_CONFIG } from '../lib/platform/config.js';
import { loadScenario } from './probes.js';
import { table } from './stats.js';

const SCENARIOS = join(import.meta.dirname, '..', 'test', 'scenarios');
/** The crash story with other triggers during the lease; its fault-free twin is the same file without the `step-crash` entry. */
export const CRASH_SCENARIO = join(SCENARIOS, 'pd-scale-out-step-crash.yaml');
/** The crash story with no other trigger during the lease. */
export const CRASH_ALONE_SCENARIO = join(SCENARIOS, 'pd-scale-out-step-crash-alone.yaml');

/** One story's convergence on one seed with and without the crash (virtual ms), and the steps each took. */
export type StallRun = { faultFreeMs: number; crashedMs: number; stallMs: number; steps: [number, number] };

/** One seed's runs of both stories. */
export type CrashStall = { seed: number; withTriggers: StallRun; alone: StallRun };

/** The scenario without its `step-crash` fault. */
export function withoutCrash(scenario: Scenario): Scenario {
  const timeline = scenario.timeline.filter((e) => !(e.verb === 'fault' && e.fault.kind === 'step-crash'));
  return { ...scenario, timeline };
}

/** Runs `scenario` on `seed`; virtual ms from its first `patch` to the end of its last entry. */
async function convergence(scenario: Scenario, seed: number): Promise<{ ms: number; steps: number }> {
  const stack = await SimStack.start(scenario, seed);
  try {
    const report = await runScenario(stack, createProgress({ quiet: true }));
    if (!report.passed) throw new Error(`${scenario.name} seed ${seed} failed: ${JSON.stringify(report.timeline.filter((t) => !t.ok))}`);
    const patch = report.timeline.find((t) => t.verb === 'patch');
    const last = report.timeline[report.timeline.length - 1];
    if (!patch || !last) throw new Error(`${scenario.name}: no patch or no timeline`);
    return { ms: last.endMs - patch.startMs, steps: report.steps };
  } finally {
    await stack.stop();
  }
}

/** One story on one seed, crashed and fault-free. */
async function stall(crashed: Scenario, seed: number): Promise<StallRun> {
  const a = await convergence(withoutCrash(crashed), seed);
  const b = await convergence(crashed, seed);
  return { faultFreeMs: a.ms, crashedMs: b.ms, stallMs: b.ms - a.ms, steps: [a.steps, b.steps] };
}

/** Measures the crash stall of both stories on each of `seeds`. */
export async function measureCrashStall(seeds: readonly number[]): Promise<CrashStall[]> {
  const withTriggers = loadScenario(CRASH_SCENARIO);
  const alone = loadScenario(CRASH_ALONE_SCENARIO);
  const out: CrashStall[] = [];
  for (const seed of seeds) out.push({ seed, withTriggers: await stall(withTriggers, seed), alone: await stall(alone, seed) });
  return out;
}

/** Runs the section on seeds 1–5 and returns its Markdown. */
export async function benchCrashStall(seeds: readonly number[] = [1, 2, 3, 4, 5]): Promise<string> {
  const rows = await measureCrashStall(seeds);
  const s = (ms: number): string => (ms / 1000).toFixed(0);
  const lease = DEFAULT_STEP_CONFIG.leaseForMs;
  const worst = (pick: (r: CrashStall) => StallRun): string => s(Math.max(...rows.map((r) => pick(r).stallMs)));
  const cells = (run: StallRun): string[] => [s(run.faultFreeMs), s(run.crashedMs), s(run.stallMs), `${run.steps[0]} / ${run.steps[1]}`];
  return [
    '## Crashed step during a PD scale-out',
    '',
    'PD 3 → 5, fault-free and with the step that starts the scale-out dying: after its first write, so',
    'the pods it set in motion send triggers during its lease (`pd-scale-out-step-crash.yaml`), or before',
    'its first write, so no other trigger arrives (`pd-scale-out-step-crash-alone.yaml`). Convergence is',
    `virtual time from the patch to Ready. The lease is ${s(lease)} s; the queue's visibility timeout in the simulation is 370 s.`,
    '',
    table(
      ['seed', 'with triggers: fault-free (s)', 'crashed (s)', 'stall (s)', 'steps', 'alone: fault-free (s)', 'crashed (s)', 'stall (s)', 'steps'],
      rows.map((r) => [r.seed, ...cells(r.withTriggers), ...cells(r.alone)]),
    ),
    '',
    `Worst stall: ${worst((r) => r.withTriggers)} s with other triggers, ${worst((r) => r.alone)} s alone (lease ${s(lease)} s).`,
    'Steps are fault-free / crashed; each story is measured against its own file without the fault.',
  ].join('\n');
}
