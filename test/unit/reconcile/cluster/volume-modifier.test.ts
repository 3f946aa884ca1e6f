import { describe, expect, it } from '@jest/globals';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { TidbClusterStatus } from '../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { planVolumeModifier, planVolumeStatus, volumeClassesToRead } from '../../../../lib/reconcile/cluster/volume-modifier.js';
import { VOLUME_REFUSED_CONDITION } from '../../../../lib/reconcile/cluster/volume-refusal.js';
import { ruleNames } from '../../../../lib/reconcile/engine/rule.js';
import { VOLUME_ANNOTATIONS as A } from '../../../../lib/reconcile/member/volume-phase.js';
import { ruleInputOf, snapshot, testPod, tidbCluster, withCluster, withOwned, withSpec, withStatus, type Change } from '../../../support/fixtures.js';

const PODS = ['basic-tikv-0', 'basic-tikv-1', 'basic-tikv-2'];
const gp2: IStorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'gp2' }, provisioner: 'ebs.csi.aws.com', allowVolumeExpansion: true };
const fixed: IStorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fixed' }, provisioner: 'ebs.csi.aws.com', allowVolumeExpansion: false };

const pod = (name: string, ready = true): IPod => {
  const base = testPod(name, { component: 'tikv', ready });
  return { ...base, spec: { ...base.spec, containers: base.spec?.containers ?? [], volumes: [{ name: 'tikv', persistentVolumeClaim: { claimName: `tikv-${name}` } }] } };
};
const claim = (podName: string, o: { request?: string; capacity?: string; sc?: string; annotations?: Record<string, string> } = {}): IPersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: `tikv-${podName}`, namespace: 'demo', resourceVersion: '9', ...(o.annotations ? { annotations: o.annotations } : {}) },
  spec: { storageClassName: o.sc ?? 'gp2', resources: { requests: { storage: o.request ?? '10Gi' } } },
  status: { phase: 'Bound', capacity: { storage: o.capacity ?? o.request ?? '10Gi' } },
});
const status = (phase = 'Normal', storeState = 'Up'): TidbClusterStatus =>
  ({ tikv: { phase, stores: Object.fromEntries(PODS.map((p, i) => [String(i + 1), { id: String(i + 1), podName: p, state: storeState, ip: '', leaderCount: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }])) } }) as unknown as TidbClusterStatus;
const cluster = (size: string, st = status(), sc?: string) => withCluster(tidbCluster(withSpec({ pd: undefined, tidb: undefined, tikv: { baseImage: 'pingcap/tikv', replicas: 3, requests: { storage: size }, ...(sc ? { storageClassName: sc } : {}) } }), withStatus(st)));
const classes = (...scs: IStorageClass[]): Change<Snapshot> => (s) => ({ ...s, storageClasses: scs });
const world = (size: string, claims: IPersistentVolumeClaim[], more: Change<Snapshot>[] = [], pods = PODS.map((p) => pod(p))) =>
  snapshot(cluster(size), withOwned('Pod', ...pods), withOwned('PersistentVolumeClaim', ...claims), classes(gp2, fixed), ...more);
const patched = (s: Snapshot) => planVolumeModifier(ruleInputOf(s)).actions.flatMap((a) => (a.kind === 'patch' ? [{ name: a.ref.name, patch: a.patch }] : []));

describe('the VolumeModifier rule: one pod at a time, as TiDB Operator v1.6', () => {
  it('a larger request grows only the first pod’s claim, with v1.6’s spec annotations, under its resourceVersion', () => {
    // Act
    const decision = planVolumeModifier(ruleInputOf(world('20Gi', PODS.map((p) => claim(p)))));
    // Assess
    expect(decision.actions).toHaveLength(1);
    expect(decision.actions[0]).toMatchObject({
      kind: 'patch',
      ref: { kind: 'PersistentVolumeClaim', name: 'tikv-basic-tikv-0' },
      patchType: 'merge',
      resourceVersion: '9',
      patch: { metadata: { annotations: { [A.specStorageSize]: '20Gi', [A.specRevision]: '1' } }, spec: { resources: { requests: { storage: '20Gi' } } } },
    });
    expect(decision.outcome.kind).toBe('retry');
    expect(decision.status?.tikv?.conditions?.find((c) => c.type === 'ComponentVolumeResizing')).toMatchObject({ status: 'True', reason: 'BeginResizing' });
  });

  const started = { [A.specRevision]: '1', [A.specStorageSize]: '20Gi' };
  const done = { ...started, [A.statusRevision]: '1', [A.statusStorageSize]: '20Gi' };
  it.each([
    { name: 'a claim whose capacity is not there yet: nothing is written, the walk waits on it', claims: [claim(PODS[0] ?? '', { request: '20Gi', capacity: '10Gi', annotations: started }), claim(PODS[1] ?? ''), claim(PODS[2] ?? '')], want: [] },
    {
      name: 'a claim at its new capacity is confirmed (status annotations), the next pod waits its turn',
      claims: [claim(PODS[0] ?? '', { request: '20Gi', capacity: '20Gi', annotations: started }), claim(PODS[1] ?? ''), claim(PODS[2] ?? '')],
      want: [{ name: 'tikv-basic-tikv-0', patch: { metadata: { annotations: { [A.statusRevision]: '1', [A.statusStorageSize]: '20Gi' } } } }],
    },
    { name: 'once the first is confirmed the second pod’s claim grows', claims: [claim(PODS[0] ?? '', { request: '20Gi', annotations: done }), claim(PODS[1] ?? ''), claim(PODS[2] ?? '')], want: ['tikv-basic-tikv-1'] },
    { name: 'every claim at its size: nothing to do', claims: PODS.map((p) => claim(p, { request: '20Gi', annotations: done })), want: [] },
  ])('$name', ({ claims, want }) => {
    const got = patched(world('20Gi', claims));
    expect(typeof want[0] === 'string' ? got.map((g) => g.name) : got).toEqual(want);
  });

  it.each([
    { name: 'a component scaling', more: [cluster('20Gi', status('Scale'))], pods: PODS.map((p) => pod(p)), why: 'component phase is Scale, not Normal' },
    { name: 'a pod not ready', more: [], pods: [pod('basic-tikv-0'), pod('basic-tikv-1', false), pod('basic-tikv-2')], why: 'pods not ready: basic-tikv-1' },
    { name: 'a store not Up', more: [cluster('20Gi', status('Normal', 'Disconnected'))], pods: PODS.map((p) => pod(p)), why: 'stores not Up' },
  ])('never while unhealthy: $name holds the resize', ({ more, pods, why }) => {
    // Act
    const decision = planVolumeModifier(ruleInputOf(world('20Gi', PODS.map((p) => claim(p)), more, pods)));
    // Assess
    expect(decision.actions).toEqual([]);
    expect(decision.outcome).toMatchObject({ kind: 'retry' });
    expect('message' in decision.outcome ? decision.outcome.message : '').toContain(why);
  });

  it('a class without expansion: no claim is patched; a condition and one Warning Event name the class', () => {
    // Prepare
    const s = world('20Gi', PODS.map((p) => claim(p, { sc: 'fixed' })));
    // Act
    const decision = planVolumeModifier(ruleInputOf(s));
    // Assess
    expect(decision.actions.filter((a) => a.kind === 'patch')).toEqual([]);
    const condition = decision.status?.conditions?.find((c) => c.type === VOLUME_REFUSED_CONDITION);
    expect(condition).toMatchObject({ status: 'True', reason: 'StorageClassDisallowsExpansion' });
    expect(condition?.message).toContain('StorageClass "fixed" does not allow volume expansion');
    expect(decision.actions).toEqual([expect.objectContaining({ kind: 'event', type: 'Warning', reason: 'StorageClassDisallowsExpansion' })]);
    // Act again on the status it left: no second Event, no status write
    const again = planVolumeModifier({ ...ruleInputOf(s), status: decision.status ?? {} });
    expect(again.actions).toEqual([]);
    expect(again.status).toBeUndefined();
  });

  it('a smaller request is refused, saying so, and nothing is written to the claims', () => {
    const decision = planVolumeModifier(ruleInputOf(world('5Gi', PODS.map((p) => claim(p)))));
    expect(decision.actions.map((a) => a.kind)).toEqual(['event']);
    expect(decision.status?.conditions?.find((c) => c.type === VOLUME_REFUSED_CONDITION)).toMatchObject({ reason: 'VolumeShrinkRefused' });
  });

  it('the classes read are those of claims that must grow, none when all have their size', () => {
    const tc = tidbCluster(withSpec({ pd: undefined, tidb: undefined, tikv: { baseImage: 'pingcap/tikv', replicas: 3, requests: { storage: '20Gi' } } }));
    const owned = { Pod: PODS.map((p) => pod(p)), PersistentVolumeClaim: [claim(PODS[0] ?? '', { sc: 'fixed' }), claim(PODS[1] ?? '', { request: '20Gi' }), claim(PODS[2] ?? '')] };
    expect(volumeClassesToRead(tc, owned)).toEqual(['fixed', 'gp2']);
    expect(volumeClassesToRead(tc, { ...owned, PersistentVolumeClaim: PODS.map((p) => claim(p, { request: '20Gi' })) })).toEqual([]);
  });

  it('VolumeStatus writes status.tikv.volumes once, then leaves the status alone', () => {
    const s = world('20Gi', PODS.map((p) => claim(p)));
    const first = planVolumeStatus(ruleInputOf(s));
    expect(first.status?.tikv?.volumes?.['tikv']).toMatchObject({ boundCount: 3, modifiedCount: 0, currentCapacity: '10Gi', modifiedCapacity: '20Gi' });
    expect(planVolumeStatus({ ...ruleInputOf(s), status: first.status ?? {} }).status).toBeUndefined();
  });

  it('a VolumeAttributesClass in the spec: every claim gets size and class in one patch, all pods in one step (v1.6 VAC modifier)', () => {
    // Prepare
    const tc = tidbCluster(withSpec({ pd: undefined, tidb: undefined, tikv: { baseImage: 'pingcap/tikv', replicas: 3, volumeAttributesClassName: 'fast', requests: { storage: '10Gi' } } }), withStatus(status()));
    const s = snapshot(withCluster(tc), withOwned('Pod', ...PODS.map((p) => pod(p))), withOwned('PersistentVolumeClaim', ...PODS.map((p) => claim(p))), classes(gp2));
    // Act
    const got = patched(s);
    // Assess
    expect(got.map((g) => g.name)).toEqual(['tikv-basic-tikv-0', 'tikv-basic-tikv-1', 'tikv-basic-tikv-2']);
    expect(got[0]?.patch).toEqual({ spec: { resources: { requests: { storage: '10Gi' } }, volumeAttributesClassName: 'fast' } });
  });

  it('claims already on the class wait until the cluster reports it current, then complete', () => {
    const tc = tidbCluster(withSpec({ pd: undefined, tidb: undefined, tikv: { baseImage: 'pingcap/tikv', replicas: 3, volumeAttributesClassName: 'fast', requests: { storage: '10Gi' } } }), withStatus(status()));
    const onClass = (p: string, current?: string): IPersistentVolumeClaim => {
      const c = claim(p);
      return { ...c, spec: { ...c.spec, volumeAttributesClassName: 'fast' }, status: { ...c.status, ...(current ? { currentVolumeAttributesClassName: current } : {}) } };
    };
    const waiting = planVolumeModifier(ruleInputOf(snapshot(withCluster(tc), withOwned('Pod', ...PODS.map((p) => pod(p))), withOwned('PersistentVolumeClaim', ...PODS.map((p) => onClass(p))))));
    const done = planVolumeModifier(ruleInputOf(snapshot(withCluster(tc), withOwned('Pod', ...PODS.map((p) => pod(p))), withOwned('PersistentVolumeClaim', ...PODS.map((p) => onClass(p, 'fast'))))));
    expect(waiting.actions).toEqual([]);
    expect(waiting.outcome.kind).toBe('retry');
    expect(done.outcome.kind).toBe('complete');
  });

  it('the recipe runs the modifier after the PVC cleaner and before the Ready condition (v1.6 order)', () => {
    const names = ruleNames(clusterRules);
    expect(names.indexOf('act:VolumeModifier')).toBeGreaterThan(names.indexOf('act:PvcCleaner'));
    expect(names.indexOf('act:VolumeModifier')).toBeLessThan(names.indexOf('status:ClusterStatus'));
  });
});
