import { describe, expect, it } from '@jest/globals';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { planOrphanPods, planPvcCleaner } from '../../../../lib/reconcile/cluster/cleaners.js';
import { planPodLabels } from '../../../../lib/reconcile/cluster/meta-info.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { ruleNames } from '../../../../lib/reconcile/engine/rule.js';
import {
  pdMemberView,
  pdViewOf,
  ruleInputOf,
  snapshot,
  testPod,
  testPvc,
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  withSpec,
  type Change,
} from '../../../support/fixtures.js';

const DEFER = { 'tidb.pingcap.com/pvc-defer-deleting': '2026-01-01T00:00:00Z', 'tidb.pingcap.com/pod-name': 'basic-pd-3' };
const bound = (pvc: IPersistentVolumeClaim, volumeName = 'pv-3'): IPersistentVolumeClaim => ({ ...pvc, spec: { ...pvc.spec, volumeName }, status: { phase: 'Bound' } });
const volume = (policy: 'Retain' | 'Delete'): IPersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv-3', resourceVersion: '40' },
  spec: { persistentVolumeReclaimPolicy: policy, claimRef: { namespace: 'demo', name: 'pd-basic-pd-3', uid: 'uid-pd-basic-pd-3' } },
});
const withVolumes = (...volumes: IPersistentVolume[]): Change<Snapshot> => (s) => ({ ...s, volumes });
const reclaim = withCluster(tidbCluster(withSpec({ enablePVReclaim: true })));
const brief = (s: Snapshot) => planPvcCleaner(ruleInputOf(s)).actions.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : a.kind));

describe('the orphan-pod cleaner (TiDB Operator orphanPodsCleaner)', () => {
  it.each([
    { name: 'an unscheduled PD pod whose claim is gone is deleted', pod: testPod('basic-pd-1', { nodeName: null, claims: ['pd-basic-pd-1'] }), pvcs: [], want: ['basic-pd-1'] },
    { name: 'an unscheduled pod whose claims all exist is kept', pod: testPod('basic-pd-1', { nodeName: null, claims: ['pd-basic-pd-1'] }), pvcs: [testPvc('pd-basic-pd-1', 'basic-pd-1')], want: [] },
    { name: 'a scheduled pod is kept even without its claim', pod: testPod('basic-pd-1', { claims: ['pd-basic-pd-1'] }), pvcs: [], want: [] },
    { name: 'a pod without claims is kept', pod: testPod('basic-pd-1', { nodeName: null }), pvcs: [], want: [] },
    { name: 'a TiDB pod is not its business', pod: testPod('basic-tidb-0', { nodeName: null, component: 'tidb', claims: ['x'] }), pvcs: [], want: [] },
    { name: "another instance's pod is not either", pod: testPod('other-pd-0', { nodeName: null, instance: 'other', claims: ['x'] }), pvcs: [], want: [] },
    { name: 'a pod already going is left to go', pod: testPod('basic-pd-1', { nodeName: null, deleting: true, claims: ['x'] }), pvcs: [], want: [] },
  ])('$name', ({ pod, pvcs, want }) => {
    // Act
    const decision = planOrphanPods(ruleInputOf(snapshot(withOwned('Pod', pod), withOwned('PersistentVolumeClaim', ...pvcs))));
    // Assess
    expect(decision.actions.map((a) => ('ref' in a ? a.ref.name : ''))).toEqual(want);
    expect(decision.stop).toBeUndefined();
  });

  it('the delete is bound to the pod observed (uid and resourceVersion)', () => {
    const decision = planOrphanPods(ruleInputOf(snapshot(withOwned('Pod', testPod('basic-pd-1', { nodeName: null, claims: ['gone'] })))));
    expect(decision.actions).toEqual([{ kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-pd-1' }, uid: 'uid-basic-pd-1', resourceVersion: '7' }]);
  });
});

describe('the PVC cleaner (TiDB Operator pvcCleaner with enablePVReclaim)', () => {
  it.each([
    { name: 'without enablePVReclaim nothing is reclaimed', changes: [withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER }))), withVolumes(volume('Retain'))], want: [] },
    {
      name: "a deferred claim whose pod is gone: its volume set to Delete, then the claim deleted",
      changes: [reclaim, withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER }))), withVolumes(volume('Retain'))],
      want: ['patch PersistentVolume/pv-3', 'delete PersistentVolumeClaim/pd-basic-pd-3'],
    },
    {
      name: 'a volume already Delete is not patched',
      changes: [reclaim, withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER }))), withVolumes(volume('Delete'))],
      want: ['delete PersistentVolumeClaim/pd-basic-pd-3'],
    },
    {
      name: 'a deferred claim whose pod still exists is kept',
      changes: [reclaim, withOwned('Pod', testPod('basic-pd-3')), withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER }))), withVolumes(volume('Retain'))],
      want: [],
    },
    { name: 'a claim not deferred is kept', changes: [reclaim, withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: { 'tidb.pingcap.com/pod-name': 'basic-pd-3' } }))), withVolumes(volume('Retain'))], want: [] },
    { name: 'an unbound claim is kept', changes: [reclaim, withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER })), withVolumes(volume('Retain'))], want: [] },
    { name: 'a claim whose volume was not observed waits', changes: [reclaim, withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER })))], want: [] },
    { name: 'a claim already going is left to go', changes: [reclaim, withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER, deleting: true }))), withVolumes(volume('Retain'))], want: [] },
  ])('$name', ({ changes, want }) => {
    expect(brief(snapshot(...changes))).toEqual(want);
  });

  it('the claim delete is bound to the claim observed, after the volume patch under its resourceVersion', () => {
    const [patch, del] = planPvcCleaner(ruleInputOf(snapshot(reclaim, withOwned('PersistentVolumeClaim', bound(testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: DEFER }))), withVolumes(volume('Retain'))))).actions;
    expect(patch).toEqual({ kind: 'patch', ref: { kind: 'PersistentVolume', name: 'pv-3' }, patchType: 'merge', patch: { spec: { persistentVolumeReclaimPolicy: 'Delete' } }, resourceVersion: '40' });
    expect(del).toEqual({ kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name: 'pd-basic-pd-3' }, uid: 'uid-pd-basic-pd-3', resourceVersion: '9' });
  });
});

describe('pod identity labels (TiDB Operator UpdateMetaInfo of pods)', () => {
  const pd = withPd(pdViewOf([pdMemberView('basic-pd-0')], 'basic-pd-0', '7000000000000000042'));
  it.each([
    {
      name: 'a PD pod gets the cluster id and its member id',
      pod: testPod('basic-pd-0'),
      want: { 'tidb.pingcap.com/member-id': pdMemberView('basic-pd-0').id, 'tidb.pingcap.com/cluster-id': '7000000000000000042' },
    },
    { name: 'a pod of another component gets the cluster id', pod: testPod('basic-tidb-0', { component: 'tidb' }), want: { 'tidb.pingcap.com/cluster-id': '7000000000000000042' } },
    { name: 'a pod with its ids gets nothing', pod: testPod('basic-tidb-0', { component: 'tidb', labels: { 'tidb.pingcap.com/cluster-id': '7000000000000000042' } }), want: undefined },
    { name: 'a pod going away gets nothing', pod: testPod('basic-tidb-0', { component: 'tidb', deleting: true }), want: undefined },
  ])('$name', ({ pod, want }) => {
    const [patch, ...more] = planPodLabels(ruleInputOf(snapshot(pd, withOwned('Pod', pod)))).actions;
    expect(more).toEqual([]);
    if (want === undefined) expect(patch).toBeUndefined();
    else expect(patch).toEqual({ kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name: pod.metadata?.name }, patchType: 'merge', patch: { metadata: { labels: want } }, resourceVersion: '7' });
  });

  it('without PD read, the cluster id recorded in the status is used', () => {
    const tc = tidbCluster((t) => ({ ...t, status: { clusterID: '7000000000000000042' } }));
    const actions = planPodLabels(ruleInputOf(snapshot(withCluster(tc), withOwned('Pod', testPod('basic-tidb-0', { component: 'tidb' }))))).actions;
    expect(actions).toHaveLength(1);
  });
});

describe("the cleaners' places in the recipe (v1 §1.3)", () => {
  it('orphan pods before the components, the PVC cleaner after them, both after Paused', () => {
    const names = ruleNames(clusterRules).map((n) => n.slice(n.indexOf(':') + 1));
    expect(names.indexOf('OrphanPods')).toBeGreaterThan(names.indexOf('Paused'));
    expect(names.indexOf('OrphanPods')).toBeLessThan(names.indexOf('PdGate'));
    expect(names.indexOf('PvcCleaner')).toBeGreaterThan(names.indexOf('PdStatefulSet'));
    expect(names.indexOf('PvcCleaner')).toBeLessThan(names.indexOf('ClusterStatus'));
  });
});
