/**
 * The local-volume stories show what they are about in the final objects and the recorded actions:
 * a member whose local volume's node is lost never runs there again, comes back on a new claim
 * bound to a disk of another node, and the lost node's disk stays Released (its provisioner is down,
 * and pvReclaimPolicy Retain keeps it anyway).
 */
import { describe, expect, it } from '@jest/globals';

import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { runStory } from '../support/story.js';
import { itChecksOwnedStoriesPass } from '../support/story-owners.js';


const run = (file: string): Promise<ScenarioReport> => runStory(file);

type Obj = { metadata: { name?: string; uid?: string }; spec: Record<string, unknown> & { nodeName?: string; volumeName?: string; claimRef?: { name?: string; uid?: string }; nodeAffinity?: { required: { nodeSelectorTerms: { matchExpressions: { values: string[] }[] }[] } } }; status?: { phase?: string } };
const objectsOf = (r: ScenarioReport, prefix: string): Obj[] => Object.entries(r.final.objects).filter(([k]) => k.startsWith(prefix)).map(([, v]) => v as Obj);
const nodeOfVolume = (pv: Obj | undefined): string | undefined => pv?.spec.nodeAffinity?.required.nodeSelectorTerms[0]?.matchExpressions[0]?.values[0];

describe('a member on a local volume whose node is lost', () => {
  it.each([
    { name: 'TiKV', file: 'tikv-local-volume-node-lost.yaml', pod: 'basic-tikv-1', claim: 'tikv-basic-tikv-1', lostNode: 'kv-2' },
    { name: 'PD', file: 'pd-local-volume-node-lost.yaml', pod: 'basic-pd-2', claim: 'pd-basic-pd-2', lostNode: 'pd-2' },
  ])('$name: back on a new claim bound to another node\'s disk; the lost disk stays Released', async ({ file, pod, claim, lostNode }) => {
    // Act
    const report = await run(file);
    // Assess
    expect(report.passed).toBe(true);
    const volumes = objectsOf(report, 'PersistentVolume/').filter((pv) => (pv.metadata.name ?? '').startsWith('local-pv-'));
    const claimObj = objectsOf(report, 'PersistentVolumeClaim/').find((c) => c.metadata.name === claim);
    const bound = volumes.find((pv) => pv.metadata.name === claimObj?.spec.volumeName);
    const lost = volumes.filter((pv) => nodeOfVolume(pv) === lostNode);
    expect(objectsOf(report, 'Pod/').find((p) => p.metadata.name === pod)?.spec.nodeName).toBe(nodeOfVolume(bound));
    expect(nodeOfVolume(bound)).not.toBe(lostNode);
    expect(lost.map((pv) => ({ phase: pv.status?.phase, claim: pv.spec.claimRef?.name }))).toEqual([{ phase: 'Released', claim }]);
    expect(lost[0]?.spec.claimRef?.uid).not.toBe(claimObj?.metadata.uid);
    // The claim on the lost disk was deleted by the reconciler, once.
    const claimDeletes = report.actions.filter((a) => a.actor === 'reconciler' && a.verb === 'delete' && a.kind === 'PersistentVolumeClaim' && a.name === claim);
    expect(claimDeletes).toHaveLength(1);
  });
});

itChecksOwnedStoriesPass('local-volume-stories');
