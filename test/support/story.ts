/**
 * Running one story of test/scenarios through the real stack on the virtual clock, for the suites
 * that check what a story shows: its report, and — before the world stops — whatever `inspect`
 * asks of the stack. `change` edits the parsed scenario first (another spec, another seed's world).
 */
import { expect } from '@jest/globals';
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
    if (!opts.change && !opts.onStart) verdicts.set(verdictKey(file, opts.seed ?? scenario.seed), verdictOf(report));
    return { report, seen: opts.inspect ? await opts.inspect(stack) : undefined };
  } finally {
    await stack.stop();
  }
}

/** Runs `file` and returns its report. */
export async function runStory(file: string, opts: Omit<StoryOptions<never>, 'inspect'> = {}): Promise<ScenarioReport> {
  return (await runStoryAndInspect(file, opts)).report;
}

/** The unchanged runs `runStoryOnce` made in this suite (one jest module registry), by file. */
const onceRuns = new Map<string, Promise<ScenarioReport>>();

/**
 * Runs `file` at its own seed once per suite and gives every caller that one report: for the tests of
 * a suite that each read another part of the same story (a report is only read, never changed). A
 * suite keeps what it asks for this way until it ends, so only stories several tests read go here.
 */
export function runStoryOnce(file: string): Promise<ScenarioReport> {
  let run = onceRuns.get(file);
  if (run === undefined) {
    run = runStory(file);
    onceRuns.set(file, run);
  }
  return run;
}

/** What every story must show, whatever else its suite checks: the parts of a report the pass check reads. */
export type StoryVerdict = { failedEntries: unknown[]; violations: unknown[]; invariantsChecked: number; passed: boolean };

/** The verdicts of the unchanged runs this suite (one jest module registry) has made, by file and seed. */
const verdicts = new Map<string, StoryVerdict>();
const verdictKey = (file: string, seed: number | undefined): string => `${file}#${seed ?? 'own'}`;

/** The pass-check parts of `report`. */
export function verdictOf(report: ScenarioReport): StoryVerdict {
  return {
    failedEntries: report.timeline.filter((t) => !t.ok),
    violations: report.invariants.flatMap((i) => i.violations),
    invariantsChecked: report.invariants.length,
    passed: report.passed,
  };
}

/**
 * The verdict of `file` at its own seed: taken from an unchanged run this suite already made (a suite
 * that checks what a story shows runs it anyway), else from a new run. Stories cost most of the test
 * time, so a suite checks each one's pass once per seed, however many tests read it.
 */
export async function storyVerdict(file: string): Promise<StoryVerdict> {
  const parsed = parseScenario(readFileSync(join(STORIES_DIR, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  return verdicts.get(verdictKey(file, parsed.scenario.seed)) ?? verdictOf(await runStory(file));
}

/** Asserts the story passed: every timeline entry ok, at least five invariants checked, none violated. */
export function expectStoryPassed(v: StoryVerdict): void {
  expect(v.failedEntries).toEqual([]);
  expect(v.violations).toEqual([]);
  expect(v.invariantsChecked).toBeGreaterThanOrEqual(5);
  expect(v.passed).toBe(true);
}
