/**
 * Volume attribute changes through a VolumeAttributesClass (Kubernetes 1.34, GA), as the CSI
 * external-resizer's modify controller (kubernetes-csi/external-resizer `pkg/modifycontroller`) runs
 * them for an EBS CSI claim: when `spec.volumeAttributesClassName` differs from
 * `status.currentVolumeAttributesClassName`, the claim's `status.modifyVolumeStatus` says
 * `{targetVolumeAttributesClassName, status}` — `Pending` while the class does not exist,
 * `Infeasible` when it is another driver's, else `InProgress` with a Normal `VolumeModify` Event —
 * and the EBS volume is modified to the class's `type`, `iops` and `throughput` (ebs-volumes.ts:
 * usable once `optimizing`). Done, the claim's (and its volume's) class is the new one and
 * `modifyVolumeStatus` goes, with a Normal `VolumeModifySuccessful`; EBS refusing a second
 * modification within six hours is a Warning `VolumeModifyFailed` (retried every 5 minutes).
 */

import { eventRecorder } from '../event-recorder.js';
import type { KubeObject } from '../object.js';
import { parseQuantity } from '../quantity.js';
import { EBS_PROVISIONER } from '../storage-classes.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type EbsVolumes, VolumeModificationRateExceeded, toGiB } from '../ebs-volumes.js';
import { type ErrorSink, LevelController, type SyncResult, keyOf, splitKey } from './base.js';
import { RESIZE_RETRY_MS } from './volume-resize.js';

/** The EBS parameters a VolumeAttributesClass may set (the EBS CSI driver's `type`, `iops`, `throughput`). */
export const EBS_ATTRIBUTE_KEYS = ['type', 'iops', 'throughput'] as const;

/** The external-resizer's modify controller over the simulated EBS, on the store's clock. */
export class VolumeModifyController {
  private readonly loop: LevelController;

  constructor(
    private readonly store: ObjectStore,
    private readonly ebs: EbsVolumes,
    opts: { onError?: ErrorSink } = {},
  ) {
    const spec = { name: 'volume-modify', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (key: string) => this.sync(key), initialKeys: () => store.list('PersistentVolumeClaim').map(keyOf) };
    this.loop = new LevelController(store, spec, opts.onError);
  }

  /** Starts watching claims and classes. */
  start(): void {
    this.loop.start();
  }

  /** Stops watching. */
  stop(): void {
    this.loop.stop();
  }

  private keysFor(ev: StoreEvent): string[] {
    if (ev.kind === 'PersistentVolumeClaim') return [keyOf(ev.object)];
    // A class created later lets the claims waiting for it (Pending) go on.
    if (ev.kind === 'VolumeAttributesClass') return this.store.list('PersistentVolumeClaim', undefined, (c) => c.status?.modifyVolumeStatus?.status === 'Pending').map(keyOf);
    return [];
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const claim = this.store.get('PersistentVolumeClaim', namespace, name);
    if (!claim || claim.metadata.deletionTimestamp || claim.status?.phase !== 'Bound') return;
    const target = typeof claim.spec?.volumeAttributesClassName === 'string' ? claim.spec.volumeAttributesClassName : '';
    if (target === '' || target === claim.status?.currentVolumeAttributesClassName) return;
    const pv = this.store.get('PersistentVolume', undefined, String(claim.spec?.volumeName ?? ''));
    if (!pv || pv.spec?.csi?.driver !== EBS_PROVISIONER) return;
    const vac = this.store.get('VolumeAttributesClass', undefined, target);
    if (!vac) return this.setModifyStatus(claim, target, 'Pending');
    if (vac.driverName !== EBS_PROVISIONER) return this.setModifyStatus(claim, target, 'Infeasible');
    const resizer = { component: `external-resizer ${EBS_PROVISIONER}` };
    if (claim.status?.modifyVolumeStatus?.status !== 'InProgress' || claim.status.modifyVolumeStatus.targetVolumeAttributesClassName !== target) {
      this.setModifyStatus(claim, target, 'InProgress');
      eventRecorder(this.store).record(claim, { type: 'Normal', reason: 'VolumeModify', message: `external resizer is modifying volume ${claim.metadata.name ?? ''} with vac ${target}`, source: resizer });
      return { requeueAfterMs: 0 };
    }
    const now = this.store.clock.nowMs();
    const volumeId = String(pv.spec?.csi?.volumeHandle ?? '');
    const size = toGiB(typeof pv.spec?.capacity?.storage === 'string' ? parseQuantity(pv.spec.capacity.storage) : 0);
    const parameters = (vac.parameters ?? {}) as Record<string, string>;
    const attributes = Object.fromEntries(EBS_ATTRIBUTE_KEYS.flatMap((k) => (parameters[k] === undefined ? [] : [[k, String(parameters[k])]])));
    let state;
    try {
      state = this.ebs.modify(volumeId, size, size, attributes);
    } catch (err) {
      if (!(err instanceof VolumeModificationRateExceeded)) throw err;
      const message = `${err.code}: ${err.message}`;
      eventRecorder(this.store).record(claim, { type: 'Warning', reason: 'VolumeModifyFailed', message, source: resizer });
      return { requeueAfterMs: Math.min(RESIZE_RETRY_MS, Math.max(0, err.retryAtMs - now)) };
    }
    if (state.state === 'modifying') return { requeueAfterMs: Math.max(0, state.optimizingAtMs - now) };
    this.store.update('PersistentVolume', { ...pv, spec: { ...pv.spec, volumeAttributesClassName: target } });
    const { modifyVolumeStatus: _done, ...rest } = (claim.status ?? {}) as Record<string, unknown>;
    this.store.update('PersistentVolumeClaim', { ...claim, status: { ...rest, currentVolumeAttributesClassName: target } }, { subresource: 'status' });
    eventRecorder(this.store).record(claim, { type: 'Normal', reason: 'VolumeModifySuccessful', message: `external resizer modified volume ${claim.metadata.name ?? ''} with vac ${target} successfully`, source: resizer });
  }

  private setModifyStatus(claim: KubeObject, target: string, status: 'Pending' | 'Infeasible' | 'InProgress'): void {
    const modifyVolumeStatus = { targetVolumeAttributesClassName: target, status };
    if (JSON.stringify(claim.status?.modifyVolumeStatus) === JSON.stringify(modifyVolumeStatus)) return;
    this.store.update('PersistentVolumeClaim', { ...claim, status: { ...(claim.status ?? {}), modifyVolumeStatus } }, { subresource: 'status' });
  }
}
