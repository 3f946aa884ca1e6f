import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { ApiError } from '../../lib/sim/api-error.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import type { StorageClassSim } from '../../lib/sim/controllers/volumes.js';
import { EBS_MODIFY_COOLDOWN_MS, EbsVolumes, VolumeModificationRateExceeded } from '../../lib/sim/ebs-volumes.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

async function boundWorld(storageClasses: Record<string, StorageClassSim> = {}, className = 'gp2') {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes: 1, storageClasses });
  controllers.start();
  store.create('PersistentVolumeClaim', { metadata: { name: 'data', namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: className, resources: { requests: { storage: '10Gi' } } } });
  store.create('Pod', { metadata: { name: 'p', namespace: NS }, spec: { containers: [{ name: 'main', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] } });
  await clock.advance(5_000);
  const claim = (): KubeObject => store.mustGet('PersistentVolumeClaim', NS, 'data');
  const request = (storage: string): KubeObject => {
    const c = claim();
    return store.update('PersistentVolumeClaim', { ...c, spec: { ...c.spec, resources: { requests: { storage } } } });
  };
  const events = (reason: string): KubeObject[] => store.list('Event', NS, (e) => e.reason === reason && (e.involvedObject as { name?: string } | undefined)?.name === 'data');
  return { clock, store, controllers, claim, request, events };
}

const errorOf = (fn: () => unknown): ApiError | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
};

describe('the API server on a claim update (ValidatePersistentVolumeClaimUpdate, PersistentVolumeClaimResize)', () => {
  const FIXED: Record<string, StorageClassSim> = { fixed: { volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: false } };
  it.each<{ name: string; classes: Record<string, StorageClassSim>; className: string; storage: string; code: number | undefined; message: string | undefined }>([
    { name: 'growing a bound claim of a class that allows expansion is accepted', classes: {}, className: 'gp2', storage: '20Gi', code: undefined, message: undefined },
    {
      name: 'growing a claim whose class disallows expansion is Forbidden by the admission plugin',
      classes: FIXED,
      className: 'fixed',
      storage: '20Gi',
      code: 403,
      message: 'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    },
    { name: 'shrinking below status.capacity is Invalid', classes: {}, className: 'gp2', storage: '5Gi', code: 422, message: 'PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity' },
  ])('$name', async ({ classes, className, storage, code, message }) => {
    // Prepare
    const w = await boundWorld(classes, className);
    expect(w.claim().status?.phase).toBe('Bound');
    // Act
    const err = errorOf(() => w.request(storage));
    // Assess
    expect(err?.code).toBe(code);
    expect(err?.message).toBe(message);
    if (err) expect(w.claim().spec?.resources?.requests?.storage).toBe('10Gi');
  });

  it('any other spec change of a bound claim is refused: the spec is immutable', async () => {
    const w = await boundWorld();
    const c = w.claim();
    const err = errorOf(() => w.store.update('PersistentVolumeClaim', { ...c, spec: { ...c.spec, accessModes: ['ReadWriteMany'] } }));
    expect(err?.code).toBe(422);
    expect(err?.message).toContain('spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
  });
});

describe('EBS CSI expansion: Resizing → FileSystemResizePending → the new capacity', () => {
  it('the claim passes through the resizer and the kubelet on EBS timing, its pod kept running', async () => {
    // Prepare
    const w = await boundWorld();
    const podUid = w.store.mustGet('Pod', NS, 'p').metadata.uid;
    // Act
    w.request('20Gi');
    await w.clock.advance(1);
    const resizing = w.claim();
    await w.clock.advance(20_000);
    const pending = w.claim();
    await w.clock.advance(2_000);
    // Assess
    expect(resizing.status?.conditions?.map((c: { type: string }) => c.type)).toEqual(['Resizing']);
    expect(resizing.status?.allocatedResourceStatuses).toEqual({ storage: 'ControllerResizeInProgress' });
    expect(resizing.status?.capacity?.storage).toBe('10Gi');
    expect(pending.status?.conditions?.map((c: { type: string }) => c.type)).toEqual(['FileSystemResizePending']);
    expect(w.store.mustGet('PersistentVolume', undefined, pending.spec.volumeName).spec.capacity.storage).toBe('20Gi');
    expect(w.claim().status?.capacity?.storage).toBe('20Gi');
    expect(w.claim().status?.conditions).toBeUndefined();
    expect(w.events('Resizing')).toHaveLength(1);
    expect(w.events('FileSystemResizeRequired')).toHaveLength(1);
    expect(w.events('FileSystemResizeSuccessful')[0]?.message).toMatch(/^MountVolume.NodeExpandVolume succeeded for volume "pvc-.*" node-0$/);
    expect(w.store.mustGet('Pod', NS, 'p').metadata.uid).toBe(podUid);
  });

  it('a second resize within six hours is refused by EBS (VolumeResizeFailed) and done once the six hours pass', async () => {
    // Prepare: a first resize done
    const w = await boundWorld();
    w.request('20Gi');
    await w.clock.advance(60_000);
    expect(w.claim().status?.capacity?.storage).toBe('20Gi');
    // Act
    w.request('30Gi');
    await w.clock.advance(60 * 60 * 1000);
    const refused = w.claim();
    await w.clock.advance(EBS_MODIFY_COOLDOWN_MS);
    // Assess
    expect(refused.status?.capacity?.storage).toBe('20Gi');
    expect(refused.status?.conditions?.map((c: { type: string }) => c.type)).toEqual(['Resizing']);
    expect(w.events('VolumeResizeFailed')[0]?.message).toContain('VolumeModificationRateExceeded');
    expect(w.claim().status?.capacity?.storage).toBe('30Gi');
  });
});

describe('a VolumeAttributesClass change: InProgress, EBS modified, then current', () => {
  const vac = (name: string, iops: string): KubeObject => ({ metadata: { name }, driverName: 'ebs.csi.aws.com', parameters: { type: 'gp3', iops } });
  const switchTo = (w: Awaited<ReturnType<typeof boundWorld>>, name: string): KubeObject => {
    const c = w.claim();
    return w.store.update('PersistentVolumeClaim', { ...c, spec: { ...c.spec, volumeAttributesClassName: name } });
  };
  it('the claim reports the class once EBS is optimizing, and the volume carries it', async () => {
    // Prepare
    const w = await boundWorld({}, 'gp3');
    w.store.create('VolumeAttributesClass', vac('fast', '6000'));
    // Act
    switchTo(w, 'fast');
    await w.clock.advance(1);
    const inProgress = w.claim();
    await w.clock.advance(21_000);
    // Assess
    expect(inProgress.status?.modifyVolumeStatus).toEqual({ targetVolumeAttributesClassName: 'fast', status: 'InProgress' });
    expect(w.claim().status?.currentVolumeAttributesClassName).toBe('fast');
    expect(w.claim().status?.modifyVolumeStatus).toBeUndefined();
    expect(w.store.mustGet('PersistentVolume', undefined, w.claim().spec.volumeName).spec.volumeAttributesClassName).toBe('fast');
    expect(w.controllers.ebs.describe(w.store.mustGet('PersistentVolume', undefined, w.claim().spec.volumeName).spec.csi.volumeHandle)?.targetAttributes).toEqual({ type: 'gp3', iops: '6000' });
  });

  it.each([
    { name: 'a class that does not exist leaves the claim Pending', create: false, second: false, want: 'Pending', current: undefined },
    { name: 'a second class within six hours stays InProgress, the first kept current (EBS refuses)', create: true, second: true, want: 'InProgress', current: 'fast' },
  ])('$name', async ({ create, second, want, current }) => {
    const w = await boundWorld({}, 'gp3');
    if (create) w.store.create('VolumeAttributesClass', vac('fast', '6000'));
    w.store.create('VolumeAttributesClass', vac('faster', '9000'));
    switchTo(w, 'fast');
    await w.clock.advance(60_000);
    if (second) switchTo(w, 'faster');
    await w.clock.advance(60 * 60_000);
    expect(w.claim().status?.modifyVolumeStatus?.status).toBe(want);
    expect(w.claim().status?.currentVolumeAttributesClassName).toBe(current);
    if (second) expect(w.events('VolumeModifyFailed')[0]?.message).toContain('VolumeModificationRateExceeded');
  });
});

describe('EBS modifications (ModifyVolume, DescribeVolumesModifications)', () => {
  it.each([
    { name: 'modifying at first', afterMs: 1_000, state: 'modifying' },
    { name: 'optimizing once the modifying time passed', afterMs: 21_000, state: 'optimizing' },
    { name: 'completed after optimizing', afterMs: 21_000 + 10 * 60_000, state: 'completed' },
  ])('a modification is $name', async ({ afterMs, state }) => {
    const clock = new VirtualClock(START_MS);
    const ebs = new EbsVolumes(clock);
    ebs.modify('vol-1', 10, 20);
    await clock.advance(afterMs);
    expect(ebs.describe('vol-1')?.state).toBe(state);
  });

  it.each([
    { name: 'five hours later', afterMs: 5 * 3_600_000, refused: true },
    { name: 'six hours later', afterMs: 6 * 3_600_000, refused: false },
  ])('another modification of the same volume $name: refused=$refused', async ({ afterMs, refused }) => {
    const clock = new VirtualClock(START_MS);
    const ebs = new EbsVolumes(clock);
    ebs.modify('vol-1', 10, 20);
    await clock.advance(afterMs);
    let err: unknown;
    try {
      ebs.modify('vol-1', 20, 30);
    } catch (e) {
      err = e;
    }
    expect(err instanceof VolumeModificationRateExceeded).toBe(refused);
    // Another volume is never held by this one's modification.
    expect(() => ebs.modify('vol-2', 10, 20)).not.toThrow();
  });
});

describe('a volume already grown through EC2 (the EBS modifier)', () => {
  it('the resizer does not modify it again: the claim reaches the size with no VolumeResizeFailed', async () => {
    // Prepare: EC2 grew the volume to 20 GiB with new attributes, outside EBS CSI
    const w = await boundWorld();
    const pv = w.store.mustGet('PersistentVolume', undefined, String(w.claim().spec?.volumeName ?? ''));
    w.controllers.ebs.modify(String(pv.spec?.csi?.volumeHandle ?? ''), 10, 20, { type: 'gp3', iops: '6000', throughput: '500' });
    await w.clock.advance(90_000);
    // Act
    w.request('20Gi');
    await w.clock.advance(30_000);
    // Assess
    expect(w.claim().status?.capacity?.storage).toBe('20Gi');
    expect(w.events('VolumeResizeFailed')).toEqual([]);
  });
});
