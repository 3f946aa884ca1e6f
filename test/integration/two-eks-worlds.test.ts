/**
 * Two EKS clusters from one deployment in the simulated world (sim.eksClusters, docs/adr/0027):
 * test/scenarios/two-eks-isolation.yaml, and what it rests on — that eks-b's API server really is
 * down during the fault (nothing of it seen or written), and that each world's TidbCluster is kept
 * under its own EKS cluster's keys; and test/scenarios/two-eks-operations.yaml, whose entries name
 * the EKS cluster they act in (eks:), with eks-b's actions, objects and PD reported under its name.
 */
import { describe, expect, it } from '@jest/globals';

import type { TimelineEntry } from '../../lib/local/scenario/types.js';
import type { ActionRecord, EksWorldReport } from '../../lib/local/scenario/report.js';
import { runStory, runStoryAndInspect } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';

const FILE = 'two-eks-isolation.yaml';
const NINE_MINUTES = 9 * 60_000;

describe('two EKS clusters from one deployment', () => {
  it("while eks-b's API server is down its TidbCluster's status cannot change: the wait for the dead TiDB times out inside the outage", async () => {
    // Prepare: wait 1 minute instead of 9 after the TiDB dies, so the 5-minute wait ends before the outage does.
    const change = (entries: readonly TimelineEntry[]) => entries.map((e) => (e.verb === 'advance' && e.durationMs === NINE_MINUTES ? { ...e, durationMs: 60_000 } : e));

    // Act
    const report = await runStory(FILE, { change: (s) => ({ ...s, timeline: change(s.timeline) }) });

    // Assess
    const failed = report.timeline.filter((t) => !t.ok);
    expect(failed).toEqual([expect.objectContaining({ verb: 'waitFor', index: 9 })]);
    expect(report.passed).toBe(false);
  }, 300_000);

  it("each TidbCluster is stepped under its own EKS cluster's key, in its own world", async () => {
    // Act
    const { report, seen } = await runStoryAndInspect(FILE, { inspect: async (stack) => Promise.all(['eks-a/demo/basic', 'eks-b/demo/other', 'eks-a/demo/other', 'local/demo/basic'].map(async (key) => (await stack.inspector.get(key)) !== undefined)) });

    // Assess
    expect(report.passed).toBe(true);
    expect(seen).toEqual([true, true, false, false]);
    const tidbclusters = (report.final as { tidbclusters?: Record<string, { status?: { tikv?: { statefulSet?: { replicas?: number } } } } | null> }).tidbclusters;
    expect([tidbclusters?.['demo/basic']?.status?.tikv?.statefulSet?.replicas, tidbclusters?.['demo/other']?.status?.tikv?.statefulSet?.replicas]).toEqual([4, 3]);
  }, 300_000);
});

describe('entries and objects that name their EKS cluster (eks:)', () => {
  it("act in eks-b's world only, and the report shows eks-b's actions, objects and PD under its name", async () => {
    // Act
    const report = await runStory('two-eks-operations.yaml');

    // Assess
    expect(report.passed).toBe(true);
    const eksB = report.eksClusters?.['eks-b'] as EksWorldReport;
    const names = (actions: readonly ActionRecord[], actor: string, kind: string): string[] => actions.filter((a) => a.actor === actor && a.kind === kind).map((a) => `${a.verb} ${a.name ?? ''}`);
    // The timeline's patch of other (TiKV 3 -> 4) and the reconciler's writes of other's StatefulSets are eks-b's, not eks-a's.
    expect(names(eksB.actions, 'timeline', 'TidbCluster')).toEqual(['create other', 'patch other']);
    expect(names(eksB.actions, 'reconciler', 'StatefulSet')).toContain('update other-tikv');
    expect(report.actions.filter((a) => a.name?.startsWith('other') === true)).toEqual([]);
    expect(names(report.actions, 'timeline', 'TidbCluster')).toEqual(['create basic', 'patch basic']);
    // The objects of eks-b's entries are in its world only.
    expect(Object.keys(eksB.objects).filter((k) => k.includes('team-b'))).toEqual(['ConfigMap/demo/team-b-limits', 'ConfigMap/demo/team-b-settings']);
    expect(Object.keys(report.final.objects).filter((k) => k.includes('team-b'))).toEqual([]);
    expect(eksB.pd?.stores.length).toBe(4);
    expect(report.final.pd.stores.length).toBe(3);
    // admin with eks: eks-b addresses eks-b's TidbCluster.
    expect(report.timeline.at(-1)).toMatchObject({ verb: 'admin', ok: true, answer: { key: 'eks-b/demo/other', cluster: { eksCluster: 'eks-b', namespace: 'demo', name: 'other' } } });
  }, 300_000);

  itChecksOwnedStoriesPass('two-eks-worlds');
});
