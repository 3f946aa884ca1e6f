/**
 * `eks:` on timeline entries and `objects:` items (docs/SCENARIOS.md, "Several EKS clusters"): the
 * entry acts in that EKS cluster's world, on its TidbCluster; every misuse names the field.
 */
import { describe, expect, it } from '@jest/globals';

import { parseScenario } from '../../lib/local/scenario/file.js';
import type { Scenario } from '../../lib/local/scenario/types.js';

const tc = (name: string, namespace: string) => `  - {apiVersion: pingcap.com/v1alpha1, kind: TidbCluster, metadata: {name: ${name}, namespace: ${namespace}}, spec: {pd: {replicas: 3}, tikv: {replicas: 3}}}\n`;
const THREE = 'sim:\n  eksClusters: [{name: eks-a}, {name: eks-b, tidbClusters: [team-b/other]}, {name: eks-c}]\n';
const file = (timeline: string, { sim = THREE, objects = '' } = {}) => `name: t\n${sim}${objects}clusters:\n${tc('basic', 'demo')}${tc('other', 'team-b')}timeline:\n${timeline}`;
const CONFIG_MAP = '{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {a: b}}';

function parsed(text: string): Scenario {
  const result = parseScenario(text, 's.yaml');
  if (!result.ok) throw new Error(result.error);
  return result.scenario;
}

describe('scenario file: eks: names the EKS cluster an entry or object acts in', () => {
  it('an entry keeps its eks, and an apply there defaults to the namespace of that EKS cluster\'s TidbCluster', () => {
    // Act
    const s = parsed(file(`  - patch: {spec: {tikv: {replicas: 4}}}\n    eks: eks-b\n  - apply: ${CONFIG_MAP}\n    eks: eks-b\n  - apply: ${CONFIG_MAP}\n`));

    // Assess
    expect(s.timeline.map((e) => e.eks)).toEqual(['eks-b', 'eks-b', undefined]);
    const namespaces = s.timeline.map((e) => (e.verb === 'apply' ? e.manifest.metadata.namespace : undefined));
    expect(namespaces).toEqual([undefined, 'team-b', 'demo']);
  });

  it('an object naming a further EKS cluster is created there only, in its TidbCluster\'s namespace; one naming the first stays in objects', () => {
    // Act
    const s = parsed(file('  - waitFor: ready\n', { objects: `objects:\n  - {eks: eks-b, ${CONFIG_MAP.slice(1)}\n  - {eks: eks-a, ${CONFIG_MAP.slice(1)}\n  - {eks: eks-c, ${CONFIG_MAP.slice(1)}\n` }));

    // Assess
    expect(s.objects.map((o) => [o.metadata.namespace, 'eks' in o])).toEqual([['demo', false]]);
    expect(Object.keys(s.eksObjects ?? {})).toEqual(['eks-b', 'eks-c']);
    expect(s.eksObjects?.['eks-b']?.map((o) => o.metadata.namespace)).toEqual(['team-b']);
    // eks-c holds no TidbCluster: the first's namespace.
    expect(s.eksObjects?.['eks-c']?.map((o) => o.metadata.namespace)).toEqual(['demo']);
  });

  it.each([
    { name: 'an entry naming no listed EKS cluster', timeline: '  - patch: {spec: {tikv: {replicas: 4}}}\n    eks: eks-z\n', error: 's.yaml:9: timeline[0].eks: "eks-z" is not an EKS cluster of sim.eksClusters (eks-a, eks-b, eks-c)' },
    { name: 'an entry naming an EKS cluster without sim.eksClusters', sim: '', timeline: '  - patch: {spec: {tikv: {replicas: 4}}}\n    eks: eks-b\n', error: 'timeline[0].eks: "eks-b" is not an EKS cluster of sim.eksClusters (none is given)' },
    { name: 'an eks that is not text', timeline: '  - waitFor: ready\n    eks: [eks-b]\n', error: 'timeline[0].eks: expected a string, got a list' },
    { name: 'eks on advance', timeline: '  - advance: 1m\n    eks: eks-b\n', error: 'timeline[0].eks: advance acts in no one EKS cluster; eks is allowed with waitFor, patch, annotate, fault, heal, world, admin, delete, apply, deleteObject' },
    { name: 'eks on mark', timeline: '  - mark: m\n    eks: eks-b\n', error: 'timeline[0].eks: mark acts in no one EKS cluster' },
    { name: 'eks on a fault of the deployment', timeline: '  - fault: {kind: step-crash, afterActions: 1, times: 1}\n    eks: eks-b\n', error: 'timeline[0].eks: the step-crash fault is not of one EKS cluster\'s world; eks is not allowed with step-crash, duplicate-delivery, s3-down, eks-api-down' },
    { name: 'eks on an eks-api-down', timeline: '  - fault: {kind: eks-api-down, eks: eks-b, for: 1m}\n    eks: eks-b\n', error: 'timeline[0].eks: the eks-api-down fault is not of one EKS cluster\'s world' },
    { name: 'a patch in an EKS cluster holding no TidbCluster', timeline: '  - patch: {spec: {tikv: {replicas: 4}}}\n    eks: eks-c\n', error: 'timeline[0].eks: EKS cluster eks-c holds no TidbCluster for patch to act on (list one under its sim.eksClusters entry\'s tidbClusters)' },
    { name: 'a waitFor by phase in an EKS cluster holding no TidbCluster', timeline: '  - waitFor: {component: pd, phase: Normal}\n    eks: eks-c\n', error: 'timeline[0].eks: EKS cluster eks-c holds no TidbCluster for waitFor to act on' },
    { name: 'a pd-api-down in an EKS cluster holding no TidbCluster', timeline: '  - fault: {kind: pd-api-down, for: 1m}\n    eks: eks-c\n', error: 'timeline[0].eks: EKS cluster eks-c holds no TidbCluster for fault to act on' },
    { name: 'a waitFor on a TidbCluster of another EKS cluster', timeline: '  - waitFor: {object: TidbCluster/demo/basic, jsonpath: $.spec, notEquals: null}\n    eks: eks-b\n', error: 'timeline[0].eks: TidbCluster demo/basic, which the entry names, is in EKS cluster eks-a, not eks-b' },
    { name: 'a pod of another EKS cluster\'s TidbCluster', timeline: '  - fault: {kind: pod-down, pod: other-pd-0}\n    eks: eks-a\n', error: 'timeline[0].eks: TidbCluster team-b/other, which the entry names, is in EKS cluster eks-b, not eks-a' },
    { name: 'a heal of a pod of another EKS cluster\'s TidbCluster', timeline: '  - heal: {pod: basic-pd-0}\n    eks: eks-b\n', error: 'timeline[0].eks: TidbCluster demo/basic, which the entry names, is in EKS cluster eks-a, not eks-b' },
    { name: 'an object naming no listed EKS cluster', objects: `objects:\n  - {eks: eks-z, ${CONFIG_MAP.slice(1)}\n`, error: 's.yaml:5: objects[0].eks: "eks-z" is not an EKS cluster of sim.eksClusters (eks-a, eks-b, eks-c)' },
    { name: 'an object listed twice in one EKS cluster', objects: `objects:\n  - {eks: eks-b, ${CONFIG_MAP.slice(1)}\n  - {eks: eks-b, ${CONFIG_MAP.slice(1)}\n`, error: 'objects[1].metadata.name: ConfigMap/team-b/settings is listed twice in EKS cluster eks-b' },
  ])('$name is rejected naming the field', ({ timeline, sim, objects, error }) => {
    // Act
    const result = parseScenario(file(timeline ?? '  - waitFor: ready\n', { ...(sim === undefined ? {} : { sim }), ...(objects === undefined ? {} : { objects }) }), 's.yaml');

    // Assess
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining(error) });
  });

  it('the same object in two EKS clusters is two objects', () => {
    // Act
    const s = parsed(file('  - waitFor: ready\n', { objects: `objects:\n  - {eks: eks-b, ${CONFIG_MAP.slice(1)}\n  - ${CONFIG_MAP}\n` }));

    // Assess
    expect([s.objects.length, s.eksObjects?.['eks-b']?.length]).toEqual([1, 1]);
  });
});
