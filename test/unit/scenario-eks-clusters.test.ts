import { describe, it, expect } from '@jest/globals';

import { parseScenario } from '../../lib/local/scenario/file.js';
import { eksClusterOf } from '../../lib/local/scenario/eks-clusters.js';

const tc = (name: string) => `  - {apiVersion: pingcap.com/v1alpha1, kind: TidbCluster, metadata: {name: ${name}, namespace: demo}, spec: {pd: {replicas: 3}, tikv: {replicas: 3}}}\n`;
const file = (sim: string, timeline = '  - waitFor: ready\n') => `name: t\n${sim}clusters:\n${tc('basic')}${tc('other')}timeline:\n${timeline}`;
const TWO = 'sim:\n  eksClusters: [{name: eks-a}, {name: eks-b, tidbClusters: [demo/other]}]\n';

describe('scenario file: several EKS clusters (sim.eksClusters)', () => {
  it('each TidbCluster is placed in its EKS cluster, the unlisted ones in the first', () => {
    // Act
    const result = parseScenario(file(TWO, '  - fault: {kind: eks-api-down, eks: eks-b, for: 10m}\n'), 's.yaml');

    // Assess
    if (!result.ok) throw new Error(result.error);
    const eks = result.scenario.sim.eksClusters;
    expect(eks).toEqual([{ name: 'eks-a', tidbClusters: [] }, { name: 'eks-b', tidbClusters: ['demo/other'] }]);
    expect([eksClusterOf(eks, 'demo', 'basic'), eksClusterOf(eks, 'demo', 'other')]).toEqual(['eks-a', 'eks-b']);
    expect(result.scenario.timeline[0]).toMatchObject({ verb: 'fault', fault: { kind: 'eks-api-down', eks: 'eks-b', forMs: 600_000 } });
  });

  it.each([
    { name: 'an eks-api-down naming no listed EKS cluster', sim: TWO, timeline: '  - fault: {kind: eks-api-down, eks: eks-c, for: 1m}\n', error: 'timeline[0].fault.eks: "eks-c" is not an EKS cluster of sim.eksClusters (eks-a, eks-b)' },
    { name: 'an eks-api-down without sim.eksClusters', sim: '', timeline: '  - fault: {kind: eks-api-down, eks: eks-a, for: 1m}\n', error: 'timeline[0].fault.eks: "eks-a" is not an EKS cluster of sim.eksClusters (none is given)' },
    { name: 'an EKS cluster name EKS refuses', sim: 'sim:\n  eksClusters: [{name: "eks a"}]\n', error: 'sim.eksClusters[0].name: "eks a" is not an EKS cluster name' },
    { name: 'an EKS cluster listed twice', sim: 'sim:\n  eksClusters: [{name: a}, {name: a}]\n', error: 'sim.eksClusters[1].name: "a" is listed twice' },
    { name: 'a TidbCluster that is not in clusters:', sim: 'sim:\n  eksClusters: [{name: a}, {name: b, tidbClusters: [demo/nope]}]\n', error: 'sim.eksClusters[1].tidbClusters[0]: "demo/nope" is not a TidbCluster of clusters:' },
    { name: 'the first TidbCluster moved out of the first EKS cluster', sim: 'sim:\n  eksClusters: [{name: a}, {name: b, tidbClusters: [basic]}]\n', error: 'the first TidbCluster (the one the timeline\'s verbs act on) must be in the first EKS cluster' },
    { name: 'an unknown field of an entry', sim: 'sim:\n  eksClusters: [{name: a, region: us-east-1}]\n', error: 'sim.eksClusters[0].region: unknown field' },
  ])('$name is rejected naming the field', ({ sim, timeline, error }) => {
    // Act
    const result = parseScenario(file(sim, timeline), 's.yaml');

    // Assess
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining(error) });
  });
});
