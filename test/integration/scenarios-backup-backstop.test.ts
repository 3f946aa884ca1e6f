/**
 * Two backup stories and what they are about: a Backup created while the exporter is down is
 * completed thanks to the sweep (its Job created while the exporter is still down), and a PiTR
 * Restore into a cluster whose TiKV config says nothing of gc proceeds because the TiKV ConfigMap
 * gets `gc.ratio-threshold = -1` in place while it is pending (no TiKV pod restarted) and loses it after.
 */
import { describe, expect, it } from '@jest/globals';
import { datasetChecksum } from '../../lib/sim/backup/dataset.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStory } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';

type Action = { atMs: number; actor: string; verb: string; kind?: string; namespace?: string; name?: string };
const actionsOf = (r: ScenarioReport): Action[] => (r as unknown as { actions: Action[] }).actions;
const violations = (r: ScenarioReport): unknown[] => r.invariants.flatMap((i) => i.violations);
const EXPORTER_DOWN_MS = 25 * 60_000;

describe('the sweep and the TiKV rules as backstops of the backup controllers', () => {
  it.each([1, 2, 3])('backup-sweep-exporter-down, seed %i: the Job is created by a sweep step while the exporter is still down', async (seed) => {
    // Act
    const r = await runStory('backup-sweep-exporter-down.yaml', { seed });

    // Assert
    expect(r.passed).toBe(true);
    expect(violations(r)).toEqual([]);
    const downAtMs = r.timeline.find((t) => t.verb === 'fault')?.startMs ?? Number.NaN;
    const jobs = actionsOf(r).filter((a) => a.actor === 'reconciler' && a.verb === 'create' && a.kind === 'Job' && a.name === 'backup-b1');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.atMs).toBeGreaterThan(downAtMs);
    expect(jobs[0]?.atMs).toBeLessThan(downAtMs + EXPORTER_DOWN_MS);
  }, 120_000);

  it('backup-pitr-restore-gc-overlay: two in-place updates of fresh-tikv, no TiKV pod of fresh deleted, the dataset at pitrRestoredTs', async () => {
    // Act
    const r = await runStory('backup-pitr-restore-gc-overlay.yaml');

    // Assert
    expect(r.passed).toBe(true);
    expect(violations(r)).toEqual([]);
    const mine = actionsOf(r).filter((a) => a.actor === 'reconciler' && a.namespace === 'demo');
    expect(mine.filter((a) => a.kind === 'ConfigMap' && a.name?.startsWith('fresh-tikv')).map((a) => [a.verb, a.name])).toEqual([
      ['create', 'fresh-tikv'],
      ['update', 'fresh-tikv'],
      ['update', 'fresh-tikv'],
    ]);
    expect(mine.filter((a) => a.kind === 'Pod' && a.verb === 'delete' && a.name?.startsWith('fresh-tikv'))).toEqual([]);
    const datasets = (r.final as unknown as { datasets: Record<string, { checksum: string }> }).datasets;
    expect(datasets['demo/fresh']?.checksum).toBe(datasetChecksum('demo/basic', 300));
  }, 120_000);
});

itChecksOwnedStoriesPass('scenarios-backup-backstop');
