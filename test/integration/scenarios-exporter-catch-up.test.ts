/**
 * The exporter's catch-up mode in its story (test/scenarios/exporter-catch-up.yaml, docs/adr/0030):
 * in the hour at rest every exporter session is a catch-up that drains its watches for 5 s and ends
 * (the story itself bounds the hour's requests: no full read, 56 exporter requests); the user's
 * scale-out at rest is stepped within 10 minutes (the next sweep sees the new generation).
 */
import { describe, expect, it } from '@jest/globals';
import { CATCH_UP_WATCH_SECONDS } from '../../lib/exporter/at-rest.js';
import { ScheduledExporterSessions, type SessionRecord } from '../../lib/local/exporter-sessions.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStoryAndInspect } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';

const FILE = 'exporter-catch-up.yaml';
type Action = { atMs: number; actor: string; verb: string; kind?: string; name?: string };
const actionsOf = (r: ScenarioReport): Action[] => (r as unknown as { actions: Action[] }).actions;

describe('the exporter catching up at rest', () => {
  it('an hour at rest is four catch-ups of seconds; a scale-out at rest is stepped within 10 minutes', async () => {
    // Act
    const { report, seen } = await runStoryAndInspect(FILE, { inspect: async (stack) => ({ nowMs: stack.clock.nowMs(), log: stack.exporter instanceof ScheduledExporterSessions ? [...stack.exporter.log] : [] }) });
    const log: SessionRecord[] = seen?.log ?? [];
    // The report's times count from the run's start; the log's are the virtual clock's.
    const runStartMs = (seen?.nowMs ?? Number.NaN) - report.virtualMs;

    // Assert: every session that started in the hour at rest (timeline[2]) was a quiet catch-up of seconds.
    expect(report.passed).toBe(true);
    const rest = report.timeline[2];
    const patch = report.timeline[3];
    if (rest === undefined || patch === undefined) throw new Error('the story has no hour at rest');
    const inRest = log.filter((s) => s.startedAtMs - runStartMs >= rest.startMs && s.startedAtMs - runStartMs < rest.endMs);
    expect(inRest.map((s) => [s.plan, s.verdict])).toEqual([
      ['catch-up', 'quiet'],
      ['catch-up', 'quiet'],
      ['catch-up', 'quiet'],
      ['catch-up', 'quiet'],
    ]);
    for (const s of inRest) expect((s.endedAtMs ?? Number.NaN) - s.startedAtMs).toBeLessThanOrEqual((CATCH_UP_WATCH_SECONDS + 1) * 1000);

    // The scale-out: the StatefulSet update comes from a step within 10 minutes of the patch.
    const scaled = actionsOf(report).find((a) => a.actor === 'reconciler' && a.verb === 'update' && a.kind === 'StatefulSet' && a.name === 'basic-tikv' && a.atMs >= patch.startMs);
    expect(scaled?.atMs).toBeDefined();
    expect((scaled?.atMs ?? Number.NaN) - patch.startMs).toBeLessThanOrEqual(10 * 60_000);
  }, 300_000);

  itChecksOwnedStoriesPass('scenarios-exporter-catch-up');
});
