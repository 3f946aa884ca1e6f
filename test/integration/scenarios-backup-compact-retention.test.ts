/**
 * The compaction-retention story end to end: the BackupSchedule deletes its CompactBackups that
 * ended before now − maxReservedTime as v1 does, but only those no restore within the PiTR window
 * can use — each deleted compaction ends at or before the commitTs of the oldest Complete snapshot
 * still kept at that moment, and those after it stay where v1 deletes them; the log is truncated to
 * the boundary snapshot; deleting the schedule takes the CompactBackups with it, their data staying.
 */
import { describe, expect, it } from '@jest/globals';
import type { ActionRecord, ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStory } from '../support/story.js';

type Obj = { metadata: { name?: string }; spec?: { endTs?: string }; status?: { phase?: string; state?: string; commitTs?: string } };
const RUN_START_MS = Date.UTC(2026, 0, 1);
const objOf = (a: ActionRecord): Obj | undefined => (a as unknown as { object?: Obj }).object;
const utcMs = (datetime: string): number => Date.parse(`${datetime.replace(' ', 'T')}Z`);

/** Each hourly snapshot Backup: when it was first seen Complete (run ms) with its commit time, and when the schedule deleted it. */
function snapshotsOf(r: ScenarioReport): { completeAtMs: number; commitMs: number; deletedAtMs: number | undefined }[] {
  const names = new Set(r.actions.filter((a) => a.kind === 'Backup' && a.verb === 'create' && a.actor === 'reconciler' && /^hourly-/.test(a.name ?? '')).map((a) => a.name ?? ''));
  return [...names].flatMap((name) => {
    const complete = r.actions.find((a) => a.kind === 'Backup' && a.name === name && objOf(a)?.status?.phase === 'Complete');
    const commit = objOf(complete ?? ({} as ActionRecord))?.status?.commitTs;
    if (complete === undefined || commit === undefined) return [];
    const deleted = r.actions.find((a) => a.kind === 'Backup' && a.name === name && a.verb === 'delete' && a.actor === 'reconciler');
    return [{ completeAtMs: complete.atMs, commitMs: Number(BigInt(commit) >> 18n) - RUN_START_MS, deletedAtMs: deleted?.atMs }];
  });
}

describe('backup-schedule-compact-retention story', () => {
  it('deletes only ended compactions before the oldest kept snapshot; keeps those the window uses; the schedule\'s deletion takes the rest, data kept', async () => {
    // Act
    const r = await runStory('backup-schedule-compact-retention.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(r.invariants.flatMap((i) => i.violations)).toEqual([]);
    const deletes = r.actions.filter((a) => a.kind === 'CompactBackup' && a.verb === 'delete' && a.actor === 'reconciler');
    expect(deletes.length).toBeGreaterThan(3);
    const snapshots = snapshotsOf(r);
    for (const d of deletes) {
      const compact = objOf(d);
      expect({ name: d.name, state: compact?.status?.state }).toEqual({ name: d.name, state: expect.stringMatching(/^(Complete|Failed)$/) });
      const kept = snapshots.filter((s) => s.completeAtMs <= d.atMs && (s.deletedAtMs === undefined || s.deletedAtMs > d.atMs));
      const neededFromMs = Math.min(...kept.map((s) => s.commitMs));
      expect({ name: d.name, endMs: utcMs(compact?.spec?.endTs ?? '') - RUN_START_MS <= neededFromMs }).toEqual({ name: d.name, endMs: true });
    }
    // When the schedule was deleted, compactions that ended before now − 1h30m still stood: v1 deletes them, but
    // they follow the oldest snapshot kept, so a restore from it replays them.
    const goneAtMs = r.timeline.find((t) => t.verb === 'deleteObject')?.startMs ?? 0;
    const deletedNames = new Set(deletes.filter((d) => d.atMs <= goneAtMs).map((d) => d.name));
    const keptOld = r.actions.filter((a) => a.kind === 'CompactBackup' && a.verb === 'create' && a.actor === 'reconciler' && !deletedNames.has(a.name) && utcMs(objOf(a)?.spec?.endTs ?? '') - RUN_START_MS < goneAtMs - 90 * 60_000);
    expect(keptOld.length).toBeGreaterThan(0);
    expect(r.actions.some((a) => a.verb === 'event' && a.args?.['reason'] === 'SuccessfulTruncate')).toBe(true);
    const objects = (r.final as unknown as { objects: Record<string, unknown> }).objects;
    expect(Object.keys(objects).filter((k) => k.startsWith('CompactBackup/'))).toEqual([]);
    expect(r.final.buckets?.['backups']?.some((k) => k.includes('/v1/compaction_out/'))).toBe(true);
  }, 240_000);
});
