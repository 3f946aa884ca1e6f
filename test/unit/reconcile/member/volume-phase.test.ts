import { describe, expect, it } from '@jest/globals';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import { tikvComponent } from '../../../../lib/reconcile/components/tikv/recipe.js';
import { byPodOrder, desiredVolumes, judgeVolume, MODIFY_WAIT_MS, VOLUME_ANNOTATIONS } from '../../../../lib/reconcile/member/volume-phase.js';
import { observeVolumeStatus } from '../../../../lib/reconcile/member/volume-status.js';
import { T0, testPod, tidbCluster, withSpec } from '../../../support/fixtures.js';

const gp2: IStorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'gp2' }, provisioner: 'ebs.csi.aws.com', allowVolumeExpansion: true };
const fixed: IStorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fixed' }, provisioner: 'ebs.csi.aws.com' };

type ClaimOptions = { request?: string; capacity?: string; sc?: string; phase?: 'Pending' | 'Bound' | 'Lost'; annotations?: Record<string, string> };
function claim(name: string, o: ClaimOptions = {}): IPersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'demo', resourceVersion: '9', ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: { storageClassName: o.sc ?? 'gp2', resources: { requests: { storage: o.request ?? '10Gi' } } },
    status: { phase: o.phase ?? 'Bound', capacity: { storage: o.capacity ?? o.request ?? '10Gi' } },
  };
}
const want = (size: string) => ({ name: 'tikv', size });
const A = VOLUME_ANNOTATIONS;

describe("a claim's phase, as TiDB Operator v1.6's PVC modifier judges it", () => {
  it.each([
    { name: 'a claim at the desired size is Modified', c: claim('c', { request: '10Gi' }), size: '10Gi', phase: 'Modified' },
    { name: 'the same amount spelt otherwise is still Modified', c: claim('c', { request: '10240Mi' }), size: '10Gi', phase: 'Modified' },
    { name: 'a larger size in a class that may grow is Preparing', c: claim('c'), size: '20Gi', phase: 'Preparing' },
    { name: 'a larger size in a class without allowVolumeExpansion cannot be made', c: claim('c', { sc: 'fixed' }), size: '20Gi', phase: 'CannotModify', refusal: { kind: 'noExpansion', claim: 'c', storageClass: 'fixed', found: true } },
    { name: 'a class that does not exist cannot grow either', c: claim('c', { sc: 'gone' }), size: '20Gi', phase: 'CannotModify', refusal: { kind: 'noExpansion', claim: 'c', storageClass: 'gone', found: false } },
    { name: 'a static volume larger than its claim asked is no shrink', c: claim('c', { request: '1Gi', capacity: '10Gi' }), size: '1Gi', phase: 'Modified' },
    { name: 'a smaller size than the capacity is never made', c: claim('c', { request: '20Gi' }), size: '10Gi', phase: 'CannotModify', refusal: { kind: 'shrink', claim: 'c', from: '20Gi', to: '10Gi' } },
    { name: 'a change started and not confirmed is Modifying', c: claim('c', { request: '20Gi', capacity: '10Gi', annotations: { [A.specRevision]: '1', [A.specStorageSize]: '20Gi' } }), size: '20Gi', phase: 'Modifying' },
    { name: 'a confirmed change is Modified', c: claim('c', { request: '20Gi', annotations: { [A.specRevision]: '1', [A.statusRevision]: '1', [A.statusStorageSize]: '20Gi' } }), size: '20Gi', phase: 'Modified' },
    { name: 'a new size within a minute of the last change waits (Pending)', c: claim('c', { request: '20Gi', annotations: { [A.specRevision]: '1', [A.statusRevision]: '1', [A.statusStorageSize]: '20Gi', [A.lastTransition]: new Date(T0 - 30_000).toISOString() } }), size: '30Gi', phase: 'Pending' },
    { name: 'a new size a minute after the last change may start', c: claim('c', { request: '20Gi', annotations: { [A.specRevision]: '1', [A.statusRevision]: '1', [A.statusStorageSize]: '20Gi', [A.lastTransition]: new Date(T0 - MODIFY_WAIT_MS).toISOString() } }), size: '30Gi', phase: 'Preparing' },
    { name: 'an unbound claim is left alone', c: claim('c', { phase: 'Pending' }), size: '20Gi', phase: 'Unbound' },
  ])('$name', ({ c, size, phase, refusal }) => {
    // Act
    const judged = judgeVolume(c, want(size), [gp2, fixed], T0);
    // Assess
    expect(judged.phase).toBe(phase);
    expect(judged.refusal).toEqual(refusal);
  });

  it('the desired volumes are the claim templates: TiKV data claim with its size and class', () => {
    const tc = tidbCluster(withSpec({ tikv: { baseImage: 'pingcap/tikv', replicas: 3, storageClassName: 'gp3', requests: { storage: '20Gi' } } }));
    expect(desiredVolumes(tikvComponent, tc)[0]).toEqual({ name: 'tikv', size: '20Gi', storageClassName: 'gp3' });
    expect(desiredVolumes(tikvComponent, tidbCluster(withSpec({ tikv: undefined })))).toEqual([]);
  });

  it.each([
    { name: 'shorter names first', names: ['basic-tikv-10', 'basic-tikv-2', 'basic-tikv-1'], want: ['basic-tikv-1', 'basic-tikv-2', 'basic-tikv-10'] },
    { name: 'then by name', names: ['basic-tikv-1', 'basic-tikv-0'], want: ['basic-tikv-0', 'basic-tikv-1'] },
  ])('pods are walked in v1 order: $name', ({ names, want: order }) => {
    expect(names.map((n) => testPod(n)).sort(byPodOrder).map((p) => p.metadata?.name)).toEqual(order);
  });
});

describe('status.<component>.volumes as v1.6 SyncVolumeStatus reports it', () => {
  const pods = ['basic-tikv-0', 'basic-tikv-1', 'basic-tikv-2'].map((n) => ({ ...testPod(n, { component: 'tikv' }), spec: { containers: [], volumes: [{ name: 'tikv', persistentVolumeClaim: { claimName: `tikv-${n}` } }] } }));
  it.each([
    {
      name: 'all at the desired size: every count equal, current = modified',
      capacities: ['20Gi', '20Gi', '20Gi'],
      want: { boundCount: 3, currentCount: 3, modifiedCount: 3, resizedCount: 3, currentCapacity: '20Gi', modifiedCapacity: '20Gi' },
    },
    {
      name: 'one resized of three: current is the old size',
      capacities: ['20Gi', '10Gi', '10Gi'],
      want: { boundCount: 3, currentCount: 2, modifiedCount: 1, resizedCount: 1, currentCapacity: '10Gi', modifiedCapacity: '20Gi' },
    },
  ])('$name', ({ capacities, want: expected }) => {
    // Prepare
    const claims = capacities.map((capacity, i) => claim(`tikv-basic-tikv-${i}`, { request: '20Gi', capacity }));
    // Act
    const status = observeVolumeStatus(pods, claims, [want('20Gi')]);
    // Assess
    expect(status['tikv']).toMatchObject({ name: 'tikv', ...expected, currentStorageClass: 'gp2', modifiedStorageClass: 'gp2' });
  });

  it('an unbound claim is not counted, and a volume with none bound has no entry', () => {
    const claims = [0, 1, 2].map((i) => claim(`tikv-basic-tikv-${i}`, { phase: 'Pending' }));
    expect(observeVolumeStatus(pods, claims, [want('10Gi')])).toEqual({});
  });
});
