/**
 * The exporter's catch-up mode (docs/adr/0030) measured for the cost model (bench/cost-model.ts):
 * runs test/scenarios/exporter-catch-up.yaml — a full cluster Ready, 45 minutes to settle, an hour
 * at rest with `config.exporterAtRest: catch-up`, then a TiKV scale-out at rest — and reads the
 * simulated exporter's session log: how long each quiet catch-up ran (on the virtual clock: its
 * watches' drain, the DynamoDB calls taking no virtual time), which sessions the hour at rest ran,
 * and the hour's requests.
 */
import { join } from 'node:path';
import { ScheduledExporterSessions, type SessionRecord } from '../lib/local/exporter-sessions.js';
import type { RequestCounts } from '../lib/local/request-counts.js';
import { createProgress, type Progress } from '../lib/local/scenario/progress.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { loadScenario } from './probes.js';

const FILE = join(import.meta.dirname, '..', 'test', 'scenarios', 'exporter-catch-up.yaml');
/** The file's hour at rest: from the start of entry 2 to that of entry 3. */
const REST = 2;
const AFTER_REST = 3;

/** What the catch-up run measured. */
export type CatchUpMeasured = {
  readonly seed: number;
  readonly passed: boolean;
  /** The sessions that started in the hour at rest, by plan. */
  readonly restSessions: { readonly catchUps: number; readonly full: number };
  /** How long the quiet catch-ups of the whole run ran, in virtual ms (sorted). */
  readonly catchUpMs: readonly number[];
  /** The requests of the hour at rest. */
  readonly rest: RequestCounts;
};

/** Runs the story and measures (see the module comment). */
export async function measureCatchUp(): Promise<CatchUpMeasured> {
  const file = loadScenario(FILE);
  const stack = await SimStack.start(file, file.seed);
  const marks = new Map<number, { counts: RequestCounts; atMs: number }>();
  const progress: Progress = { ...createProgress({ quiet: true }), entryStarted: (entry) => void marks.set(entry.index, { counts: stack.requests.snapshot(), atMs: stack.clock.nowMs() }) };
  try {
    const report = await runScenario(stack, progress);
    const exporter = stack.exporter;
    if (!(exporter instanceof ScheduledExporterSessions)) throw new Error(`${FILE}: the exporter does not run sessions`);
    const from = marks.get(REST);
    const to = marks.get(AFTER_REST);
    if (from === undefined || to === undefined) throw new Error(`${FILE}: the hour at rest never ran (${JSON.stringify(report.timeline.map((e) => e.ok))})`);
    const inRest = exporter.log.filter((s) => s.startedAtMs >= from.atMs && s.startedAtMs < to.atMs);
    const rest = Object.fromEntries(Object.entries(to.counts).map(([t, n]) => [t, n - (from.counts[t as keyof RequestCounts] ?? 0)])) as RequestCounts;
    return {
      seed: file.seed,
      passed: report.passed,
      restSessions: { catchUps: inRest.filter((s) => s.plan === 'catch-up').length, full: inRest.filter((s) => s.plan === 'full').length },
      catchUpMs: exporter.log.filter(isQuietCatchUp).map((s) => s.endedAtMs - s.startedAtMs).sort((a, b) => a - b),
      rest,
    };
  } finally {
    await stack.stop();
  }
}

function isQuietCatchUp(s: SessionRecord): s is SessionRecord & { endedAtMs: number } {
  return s.plan === 'catch-up' && s.verdict === 'quiet' && s.endedAtMs !== undefined;
}
