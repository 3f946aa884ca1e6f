/**
 * What a crashed step costs: PD scales out 3 → 5 with and without the step that starts the
 * scale-out dying after its first write (`test/scenarios/pd-scale-out-step-crash.yaml`, the fault
 * removed for the fault-free run), on the same seeds in one process. Convergence is virtual time
 * from the scale-out patch to Ready; the stall is the difference, to be compared with the lease.
 *
 *   npx tsx -e "import('./bench/crash-stall.ts').then(async (m) => console.log(await m.benchCrashStall()))"
 */
import { join } from 'node:path';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import type { Scenario } from '../lib/local/scenario/types.js';
import { DEFAULT_STEP_CONFIG } from '../lib/platform/config.js';
import { loadScenario } from './probes.js';
import { table } from './stats.js';

/** The crash story; its fault-free twin is the same file without the `step-crash` entry. */
export const CRASH_SCENARIO = join(import.meta.dirname, '..', 'test', 'scenarios', 'pd-scale-out-step-crash.yaml');

/** One seed's convergence with and without the crash (virtual ms), and the steps each took. */
export type CrashStall = { seed: number; faultFreeMs: number; crashedMs: number; stallMs: number; steps: [number, number] };

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

/** Measures the crash stall on each of `seeds`. */
export async function measureCrashStall(seeds: readonly number[]): Promise<CrashStall[]> {
  const crashed = loadScenario(CRASH_SCENARIO);
  const faultFree = withoutCrash(crashed);
  const out: CrashStall[] = [];
  for (const seed of seeds) {
    const a = await convergence(faultFree, seed);
    const b = await convergence(crashed, seed);
    out.push({ seed, faultFreeMs: a.ms, crashedMs: b.ms, stallMs: b.ms - a.ms, steps: [a.steps, b.steps] });
  }
  return out;
}

/** Runs the section on seeds 1–5 and returns its Markdown. */
export async function benchCrashStall(seeds: readonly number[] = [1, 2, 3, 4, 5]): Promise<string> {
  const rows = await measureCrashStall(seeds);
  const s = (ms: number): string => (ms / 1000).toFixed(0);
  const lease = DEFAULT_STEP_CONFIG.leaseForMs;
  const worst = Math.max(...rows.map((r) => r.stallMs));
  return [
    '## Crashed step during a PD scale-out',
    '',
    'PD 3 → 5, fault-free and with the step that starts the scale-out dying after its first write',
    '(`test/scenarios/pd-scale-out-step-crash.yaml`); convergence is virtual time from the patch to Ready.',
    `The lease is ${s(lease)} s; the queue's visibility timeout in the simulation is 370 s.`,
    '',
    table(
      ['seed', 'fault-free (s)', 'crashed (s)', 'stall (s)', 'steps fault-free / crashed'],
      rows.map((r) => [r.seed, s(r.faultFreeMs), s(r.crashedMs), s(r.stallMs), `${r.steps[0]} / ${r.steps[1]}`]),
    ),
    '',
    `Worst stall: ${s(worst)} s (lease ${s(lease)} s).`,
  ].join('\n');
}
