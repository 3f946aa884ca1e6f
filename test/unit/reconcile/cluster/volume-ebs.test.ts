/**
 * TiDB Operator v1.6's EBS modifier under the `VolumeModifying` gate (lib/reconcile/cluster/volume-ebs.ts,
 * the gate's part of lib/reconcile/member/volume-phase.ts and volume-modifier.ts): which claims it
 * works on, the target it asks EC2 for, how EC2's last modification decides, and the actions for
 * the one pod in flight.
 */
import { describe, expect, it } from '@jest/globals';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { EbsVolumeModification } from '../../../../lib/model/ebs.js';
import { decideEbs, ebsTargetOf, isSameTarget } from '../../../../lib/reconcile/cluster/volume-ebs.js';
import { planPodClaims } from '../../../../lib/reconcile/cluster/volume-modifier.js';
import { EBS_MODIFY_WAIT_MS, judgeVolume, VOLUME_ANNOTATIONS } from '../../../../lib/reconcile/member/volume-phase.js';
import { T0, tidbCluster } from '../../../support/fixtures.js';

const A = VOLUME_ANNOTATIONS;
const sc = (name: string, provisioner: string, parameters: Record<string, string> = {}): IStorageClass => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, parameters, allowVolumeExpansion: true });
const CLASSES = [sc('gp3', 'ebs.csi.aws.com', { type: 'gp3' }), sc('gp3-fast', 'ebs.csi.aws.com', { type: 'gp3', iops: '6000', throughput: '500' }), sc('io2', 'ebs.csi.aws.com', { type: 'io2', iops: 'lots' }), sc('local', 'kubernetes.io/no-provisioner'), sc('efs', 'efs.csi.aws.com')];
const PV: IPersistentVolume = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-0' }, spec: { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0' } } };

function claim(o: { sc?: string; annotations?: Record<string, string>; request?: string } = {}): IPersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'tikv-basic-tikv-0', namespace: 'demo', resourceVersion: '9', ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: { storageClassName: o.sc ?? 'gp3', volumeName: 'pv-0', resources: { requests: { storage: o.request ?? '10Gi' } } },
    status: { phase: 'Bound', capacity: { storage: o.request ?? '10Gi' } },
  };
}
const want = (storageClassName: string, size = '10Gi') => ({ name: 'tikv', size, storageClassName });
const gate = { volumes: [PV] };
const started = { [A.specRevision]: '1', [A.specStorageClass]: 'gp3-fast', [A.specStorageSize]: '10Gi', [A.lastTransition]: new Date(T0 - 60_000).toISOString() };

describe('which claims the EBS modifier works on (gate on)', () => {
  it.each([
    { name: 'a move to another EBS class is the EBS route, Preparing', c: claim(), to: 'gp3-fast', g: gate, phase: 'Preparing', ebs: true },
    { name: 'without the gate a class change is no change (Modified)', c: claim(), to: 'gp3-fast', g: undefined, phase: 'Modified', ebs: false },
    { name: 'a class of another driver has no modifier: v1.6 records it in the annotations only (Preparing, no EBS route)', c: claim(), to: 'efs', g: gate, phase: 'Preparing', ebs: false },
    { name: 'an EBS class for a volume of another provisioner is refused, as v1.6 validates', c: claim({ sc: 'local' }), to: 'gp3-fast', g: gate, phase: 'CannotModify', refusal: 'provisioner should not be changed, now from kubernetes.io/no-provisioner to ebs.csi.aws.com' },
    { name: 'a class the cluster does not have is refused, naming it', c: claim(), to: 'gp3-slow', g: gate, phase: 'CannotModify', refusal: 'StorageClass "gp3-slow" does not exist' },
    { name: 'a volume the step did not see is refused (v1.6: no PV permission)', c: claim(), to: 'gp3-fast', g: { volumes: [] }, phase: 'CannotModify', refusal: 'was not found' },
    { name: 'a started modification is Modifying', c: claim({ annotations: started }), to: 'gp3-fast', g: gate, phase: 'Modifying', ebs: true },
    { name: 'a confirmed one is Modified', c: claim({ annotations: { ...started, [A.statusRevision]: '1', [A.statusStorageClass]: 'gp3-fast', [A.statusStorageSize]: '10Gi' } }), to: 'gp3-fast', g: gate, phase: 'Modified', ebs: false },
    { name: 'another EBS class within six hours of the last change waits (Pending)', c: claim({ annotations: { ...started, [A.statusRevision]: '1', [A.statusStorageClass]: 'gp3', [A.lastTransition]: new Date(T0 - EBS_MODIFY_WAIT_MS + 1000).toISOString() } }), to: 'gp3-fast', g: gate, phase: 'Pending', ebs: true },
    { name: 'six hours after the last change it may start', c: claim({ annotations: { ...started, [A.statusRevision]: '1', [A.statusStorageClass]: 'gp3', [A.lastTransition]: new Date(T0 - EBS_MODIFY_WAIT_MS).toISOString() } }), to: 'gp3-fast', g: gate, phase: 'Preparing', ebs: true },
  ])('$name', ({ c, to, g, phase, ebs, refusal }) => {
    // Act
    const judged = judgeVolume(c, want(to), CLASSES, T0, g);
    // Assess
    expect(judged.phase).toBe(phase);
    if (ebs !== undefined) expect(judged.ebs !== undefined).toBe(ebs);
    if (refusal) expect(judged.refusal?.kind === 'classChange' && judged.refusal.why).toContain(refusal);
  });
});

describe("the target asked of EC2 (v1.6's getExpectedVolume)", () => {
  const route = (to: string) => ({ pv: PV, from: CLASSES[0] as IStorageClass, to: CLASSES.find((c) => c.metadata?.name === to) as IStorageClass });
  it.each([
    { name: "the size in GiB and the class's type, iops and throughput", size: '10Gi', to: 'gp3-fast', want: { target: { volumeId: 'vol-0', sizeGiB: 10, iops: 6000, throughput: 500, volumeType: 'gp3' } } },
    { name: 'parameters the class leaves out are not asked', size: '20Gi', to: 'gp3', want: { target: { volumeId: 'vol-0', sizeGiB: 20, volumeType: 'gp3' } } },
    { name: 'a parameter that is not an integer is an error naming it', size: '10Gi', to: 'io2', want: { error: "can't parse iops param in storage class io2: lots" } },
    { name: 'a size below 1 GiB is an error', size: '512Mi', to: 'gp3', want: { error: 'invalid storage size: 512Mi' } },
    { name: 'a size above 16 TiB is an error', size: '17Ti', to: 'gp3', want: { error: 'invalid storage size: 17Ti' } },
  ])('$name', ({ size, to, want: expected }) => {
    expect(ebsTargetOf(size, route(to))).toEqual(expected);
  });
});

describe("EC2's last modification decides (v1.6's ModifyVolume)", () => {
  const target = { volumeId: 'vol-0', sizeGiB: 10, iops: 6000, throughput: 500, volumeType: 'gp3' };
  const m = (state: EbsVolumeModification['state'], over: Partial<EbsVolumeModification> = {}, startMs = T0 - 60_000): EbsVolumeModification => ({ ...target, state, startTime: new Date(startMs).toISOString(), ...over });
  it.each([
    { name: 'never modified: modify', observed: undefined, kind: 'modify' },
    { name: 'the same target optimizing is done (usable)', observed: m('optimizing'), kind: 'done' },
    { name: 'the same target completed is done', observed: m('completed'), kind: 'done' },
    { name: 'the same target modifying waits', observed: m('modifying'), kind: 'wait' },
    { name: 'the same target failed is asked again', observed: m('failed'), kind: 'modify' },
    { name: 'another target less than six hours ago waits (EC2 would refuse)', observed: m('completed', { iops: 3000 }), kind: 'wait' },
    { name: 'another target six hours ago or more is modified', observed: m('completed', { iops: 3000 }, T0 - EBS_MODIFY_WAIT_MS), kind: 'modify' },
    { name: 'a value EC2 does not report counts as equal', observed: m('completed', { throughput: undefined }), kind: 'done' },
  ])('$name', ({ observed, kind }) => {
    expect(decideEbs(target, observed, T0).kind).toBe(kind);
  });

  it.each([
    { name: 'a different type differs', a: { volumeId: 'v', volumeType: 'io2' }, b: { volumeId: 'v', volumeType: 'gp3' }, same: false },
    { name: 'an empty type on either side is equal', a: { volumeId: 'v', volumeType: '' }, b: { volumeId: 'v', volumeType: 'gp3' }, same: true },
    { name: 'a different size differs', a: { volumeId: 'v', sizeGiB: 10 }, b: { volumeId: 'v', sizeGiB: 20 }, same: false },
  ])('$name', ({ a, b, same }) => expect(isSameTarget(a, b)).toBe(same));
});

describe('the actions for the pod in flight', () => {
  const tc = tidbCluster();
  const plan = (c: IPersistentVolumeClaim, modifications: Partial<Record<string, EbsVolumeModification>>) =>
    planPodClaims([judgeVolume(c, want('gp3-fast'), CLASSES, T0, gate)], T0, { tc, title: 'TiKV', modifications: modifications as Record<string, EbsVolumeModification> });
  it.each([
    { name: 'Preparing: the spec annotations (revision + 1) and ModifyVolume, no larger request', c: claim(), mods: {}, kinds: ['patch', 'ec2.modifyVolume'] },
    { name: 'Modifying while EC2 modifies: nothing', c: claim({ annotations: started }), mods: { 'vol-0': { volumeId: 'vol-0', sizeGiB: 10, iops: 6000, throughput: 500, volumeType: 'gp3', state: 'modifying' as const } }, kinds: [] },
    { name: 'Modifying once optimizing: the status annotations', c: claim({ annotations: started }), mods: { 'vol-0': { volumeId: 'vol-0', sizeGiB: 10, iops: 6000, throughput: 500, volumeType: 'gp3', state: 'optimizing' as const } }, kinds: ['patch'] },
  ])('$name', ({ c, mods, kinds }) => {
    // Act
    const { actions } = plan(c, mods);
    // Assess
    expect(actions.map((a) => a.kind)).toEqual(kinds);
    const patch = actions.find((a) => a.kind === 'patch') as { patch: { metadata: { annotations: Record<string, string> }; spec?: unknown } } | undefined;
    if (kinds[0] === 'patch' && kinds.length === 2) {
      expect(patch?.patch.metadata.annotations).toMatchObject({ [A.specStorageClass]: 'gp3-fast', [A.specRevision]: '1' });
      expect(patch?.patch.spec).toBeUndefined();
      expect(actions[1]).toMatchObject({ kind: 'ec2.modifyVolume', target: { volumeId: 'vol-0', iops: 6000, throughput: 500, volumeType: 'gp3', sizeGiB: 10 }, onError: { reason: 'VolumeModifyFailed' } });
    }
    if (kinds.length === 1) expect(patch?.patch.metadata.annotations).toEqual({ [A.statusRevision]: '1', [A.statusStorageSize]: '10Gi', [A.statusStorageClass]: 'gp3-fast' });
  });
});

describe('EC2 could not be read', () => {
  it('the claim waits: no ModifyVolume, no annotation, a Warning naming the failure', () => {
    // Prepare
    const c = claim({ annotations: started });
    // Act
    const { actions, waits } = planPodClaims([judgeVolume(c, want('gp3-fast'), CLASSES, T0, gate)], T0, { tc: tidbCluster(), title: 'TiKV', modifications: {}, readError: 'EC2 DescribeVolumesModifications failed: UnauthorizedOperation: denied' });
    // Assess
    expect(actions).toEqual([expect.objectContaining({ kind: 'event', type: 'Warning', reason: 'VolumeModifyFailed', once: true, message: 'TiKV claim tikv-basic-tikv-0: EC2 DescribeVolumesModifications failed: UnauthorizedOperation: denied' })]);
    expect(waits).toEqual(['EC2 DescribeVolumesModifications failed: UnauthorizedOperation: denied']);
  });
});
