/**
 * The GC-life-time story end to end: the Backup controller gives the Job the `from` password Secret,
 * the simulated backup-manager connects to the simulated TiDB through its Service, raises
 * `tikv_gc_life_time` while BR runs and sets it back after — the report's `final.gcLifeTime` shows
 * both writes, made from the backup pod — and fails with v1's reasons otherwise.
 */
import { describe, expect, it } from '@jest/globals';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStory } from '../support/story.js';

type Obj = { spec: Record<string, unknown>; status?: { podIP?: string; timeCompleted?: string; conditions?: { type: string; reason?: string; message?: string; lastTransitionTime?: string }[] } & Record<string, unknown> };
const objects = (r: ScenarioReport): Record<string, Obj> => (r.final as unknown as { objects: Record<string, Obj> }).objects;
const conditionAt = (o: Obj | undefined, type: string): number => Date.parse(o?.status?.conditions?.find((c) => c.type === type)?.lastTransitionTime ?? '');
const RUN_START_MS = Date.UTC(2026, 0, 1);

describe('backup-gc-life-time story', () => {
  it('raises tikv_gc_life_time to 72h from the backup pod while BR runs and sets 10m0s back; each failure has v1\'s reason', async () => {
    // Act
    const r = await runStory('backup-gc-life-time.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(r.invariants.flatMap((i) => i.violations)).toEqual([]);
    const gc = r.final.gcLifeTime?.['demo/basic'];
    expect(gc).toMatchObject({ value: '10m0s', effectiveMs: 600_000 });
    // b1 raised and reset; b2 (5m is lower than 10m0s) wrote nothing; b3 failed before writing; b4 never connected.
    expect(gc?.writes.map((w) => w.value)).toEqual(['72h', '10m0s']);
    const o = objects(r);
    const podIP = Object.entries(o).find(([k]) => k.startsWith('Pod/demo/backup-b1-'))?.[1].status?.podIP;
    expect(podIP).toMatch(/^10\./);
    expect(gc?.writes.every((w) => w.clientHost === podIP && w.user === 'root')).toBe(true);
    const b1 = o['Backup/demo/b1'];
    const [raised, reset] = gc?.writes.map((w) => RUN_START_MS + w.atMs) ?? [];
    expect(raised).toBeGreaterThanOrEqual(conditionAt(b1, 'Prepare'));
    expect(reset).toBeGreaterThan(raised ?? Infinity);
    // Condition times are whole seconds (RFC 3339): the reset falls within Complete's second or before.
    expect(Math.floor((reset ?? Infinity) / 1000) * 1000).toBeLessThanOrEqual(conditionAt(b1, 'Complete'));
    // As v1's makeBRBackupJob: the password env comes first, as a reference to the Secret's key.
    const env = ((o['Job/demo/backup-b1']?.spec['template'] as { spec: { containers: { env: { name: string }[] }[] } }).spec.containers[0]?.env ?? []).map((e) => e.name);
    expect(env[0]).toBe('BACKUP_MANAGER_PASSWORD');
    expect(JSON.stringify(o['Job/demo/backup-b1'])).not.toContain('not-the-root-password');
    expect(o['Backup/demo/b3']?.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({ reason: 'ParseConfiguredTikvGCLifeTimeFailed', message: 'time: unknown unit " days" in duration "3 days"' });
    // A wrong password: 30 minutes of refused pings (v1's CheckTimeout), then ConnectTidbFailed; no Prepare was written.
    const b4 = o['Backup/demo/b4'];
    expect(conditionAt(b4, 'Failed') - conditionAt(b4, 'Scheduled')).toBeGreaterThanOrEqual(30 * 60_000 - 10_000);
    expect(b4?.status?.conditions?.map((c) => c.type)).toEqual(['Scheduled', 'Failed']);
    expect(o['Backup/demo/b5']?.status?.conditions?.find((c) => c.type === 'RetryFailed')?.message).toBe('backup demo/b5, tidb secret tidb-nokey missing password key password');
  });
});
