/**
 * Running one story of test/scenarios through the real stack on the virtual clock, for the suites
 * that check what a story shows: its report, and — before the world stops — whatever `inspect`
 * asks of the stack. `change` edits the parsed scenario first (another spec, another seed's world).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import type { Scenario } from '../../lib/local/scenario/types.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';

/** Where the stories are. */
export const STORIES_DIR = join(import.meta.dirname, '..', 'scenarios');

/**
 * How to run a story: its seed unless `seed`, `change` applied to the scenario, `onStart` told of the
 * stack before the timeline runs, `inspect` asked at the end.
 */
export type StoryOptions<T> = { seed?: number; change?: (s: Scenario) => Scenario; onStart?: (stack: SimStack) => void; inspect?: (stack: SimStack) => Promise<T> };

/** Runs `file` (relative to `STORIES_DIR`) and returns its report and what `inspect` saw. */
export async function runStoryAndInspect<T>(file: string, opts: StoryOptions<T> = {}): Promise<{ report: ScenarioReport; seen: T | undefined }> {
  const parsed = parseScenario(readFileSync(join(STORIES_DIR, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  const scenario = opts.change ? opts.change(parsed.scenario) : parsed.scenario;
  const stack = await SimStack.start(scenario, opts.seed ?? scenario.seed);
  try {
    opts.onStart?.(stack);
    const report = await runScenario(stack, createProgress({ quiet: true }));
    return { report, seen: opts.inspect ? await opts.inspect(stack) : undefined };
  } finally {
    await stack.stop();
  }
}

/** Runs `file` and returns its report. */
export async function runStory(file: string, opts: Omit<StoryOptions<never>, 'inspect'> = {}): Promise<ScenarioReport> {
  return (await runStoryAndInspect(file, opts)).report;
}
