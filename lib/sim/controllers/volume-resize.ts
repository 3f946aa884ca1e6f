/**
 * Volume expansion as EKS runs it for an EBS CSI claim whose request grew (the API server already
 * checked the class allows it, claim-update.ts): the CSI **external-resizer**
 * (kubernetes-csi/external-resizer `pkg/controller/controller.go`) marks the claim — condition
 * `Resizing`, `status.allocatedResources` the new size, `allocatedResourceStatuses.storage`
 * `ControllerResizeInProgress`, a Normal `Resizing` Event "External resizer is resizing volume
 * pvc-…" — and asks the driver to expand, which modifies the EBS volume (ebs-volumes.ts) and answers
 * once EBS reports `optimizing`; the volume's `spec.capacity` then grows and the claim's condition
 * becomes `FileSystemResizePending` ("Waiting for user to (re-)start a pod to finish file system
 * resize of volume on node."), `NodeResizePending`, with a Normal `FileSystemResizeRequired` Event
 * "Require file system resize of volume on node". EBS refusing a second modification within six
 * hours is a Warning `VolumeResizeFailed` "resize volume "pvc-…" by resizer "ebs.csi.aws.com"
 * failed: …" (retried every 5 minutes, the resizer's longest back-off). The **kubelet** of a running
 * pod that mounts the claim then grows the file system online (`nodeExpandMs`, default 2 s): the
 * claim's `status.capacity` becomes the volume's, the conditions and resize status go, and a Normal
 * `FileSystemResizeSuccessful` "MountVolume.NodeExpandVolume succeeded for volume "pvc-…" <node>".
 * A claim no running pod mounts stays `FileSystemResizePending`. Claims of other drivers (static
 * local volumes) have no resizer: nothing happens, as on a real cluster.
 */

import { eventRecorder } from '../event-recorder.js';
import { podClaimNames } from '../kubelet-scheduler.js';
import type { KubeObject } from '../object.js';
import { parseQuantity } from '../quantity.js';
import { EBS_PROVISIONER } from '../storage-classes.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type EbsVolumes, VolumeModificationRateExceeded, toGiB } from '../ebs-volumes.js';
import { type ErrorSink, LevelController, type SyncResult, keyOf, splitKey } from './base.js';

/** How often the external-resizer retries a failed expansion at most (its back-off cap). */
export const RESIZE_RETRY_MS = 5 * 60 * 1000;

const RESIZING = 'Resizing';
const FS_PENDING = 'FileSystemResizePending';
const FS_PENDING_MESSAGE = 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.';

type Condition = { type: string; status: string; lastProbeTime: null; lastTransitionTime: string; message?: string };

const bytes = (v: unknown): number => (typeof v === 'string' || typeof v === 'number' ? parseQuantity(v) : 0);

/** The external-resizer and the kubelet's online file system expansion, on the store's clock. */
export class VolumeResizeController {
  private readonly loop: LevelController;
  /** When the kubelet began expanding a claim's file system (by claim uid). */
  private readonly expandingSince = new Map<string, number>();
  private readonly nodeExpandMs: number;

  constructor(
    private readonly store: ObjectStore,
    private readonly ebs: EbsVolumes,
    opts: { nodeExpandMs?: number; onError?: ErrorSink } = {},
  ) {
    this.nodeExpandMs = opts.nodeExpandMs ?? 2_000;
    const spec = { name: 'volume-resize', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (key: string) => this.sync(key), initialKeys: () => store.list('PersistentVolumeClaim').map(keyOf) };
    this.loop = new LevelController(store, spec, opts.onError);
  }

  /** Starts watching claims and pods. */
  start(): void {
    this.loop.start();
  }

  /** Stops watching. */
  stop(): void {
    this.loop.stop();
  }

  private keysFor(ev: StoreEvent): string[] {
    if (ev.kind === 'PersistentVolumeClaim') return [keyOf(ev.object)];
    // A pod that starts running may finish a pending file system resize.
    if (ev.kind === 'Pod') return podClaimNames(ev.object).map((c) => `${ev.object.metadata.namespace ?? ''}/${c}`);
    return [];
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const claim = this.store.get('PersistentVolumeClaim', namespace, name);
    if (!claim || claim.metadata.deletionTimestamp || claim.status?.phase !== 'Bound') return;
    const request = bytes(claim.spec?.resources?.requests?.storage);
    if (request <= bytes(claim.status?.capacity?.storage)) return;
    const pv = this.store.get('PersistentVolume', undefined, String(claim.spec?.volumeName ?? ''));
    if (!pv || pv.spec?.csi?.driver !== EBS_PROVISIONER) return;
    if (bytes(pv.spec?.capacity?.storage) < request) return this.expandController(claim, pv, request);
    return this.expandNode(claim, pv);
  }

  /** The external-resizer's part: mark the claim, modify the EBS volume, grow the PV once `optimizing`. */
  private expandController(claim: KubeObject, pv: KubeObject, request: number): SyncResult {
    const now = this.store.clock.nowMs();
    const resizer = { component: `external-resizer ${EBS_PROVISIONER}` };
    if (!hasCondition(claim, RESIZING)) {
      this.setStatus(claim, [condition(RESIZING, now)], 'ControllerResizeInProgress');
      eventRecorder(this.store).record(claim, { type: 'Normal', reason: 'Resizing', message: `External resizer is resizing volume ${pv.metadata.name ?? ''}`, source: resizer });
      return { requeueAfterMs: 0 };
    }
    const volumeId = String(pv.spec?.csi?.volumeHandle ?? '');
    // As the EBS CSI driver's ResizeOrModifyDisk: a volume already at least this large (modified
    // through EC2 directly, e.g. by TiDB Operator's EBS modifier) is not modified again.
    const last = this.ebs.describe(volumeId);
    const already = last !== undefined && last.targetSizeGiB >= toGiB(request) ? last : undefined;
    let state;
    try {
      state = already ?? this.ebs.modify(volumeId, toGiB(bytes(pv.spec?.capacity?.storage)), toGiB(request));
    } catch (err) {
      if (!(err instanceof VolumeModificationRateExceeded)) throw err;
      const message = `resize volume "${pv.metadata.name ?? ''}" by resizer "${EBS_PROVISIONER}" failed: rpc error: code = Internal desc = Could not resize volume "${volumeId}": ${err.code}: ${err.message}`;
      eventRecorder(this.store).record(claim, { type: 'Warning', reason: 'VolumeResizeFailed', message, source: resizer });
      return { requeueAfterMs: Math.min(RESIZE_RETRY_MS, Math.max(0, err.retryAtMs - now)) };
    }
    if (state.state === 'modifying') return { requeueAfterMs: Math.max(0, state.optimizingAtMs - now) };
    this.store.update('PersistentVolume', { ...pv, spec: { ...pv.spec, capacity: { ...(pv.spec?.capacity ?? {}), storage: claim.spec?.resources?.requests?.storage } } });
    this.setStatus(this.store.get('PersistentVolumeClaim', claim.metadata.namespace, claim.metadata.name ?? '') ?? claim, [condition(FS_PENDING, now, FS_PENDING_MESSAGE)], 'NodeResizePending');
    eventRecorder(this.store).record(claim, { type: 'Normal', reason: 'FileSystemResizeRequired', message: 'Require file system resize of volume on node', source: resizer });
    return { requeueAfterMs: 0 };
  }

  /** The kubelet's part: a running pod mounting the claim grows its file system, then the claim reports the size. */
  private expandNode(claim: KubeObject, pv: KubeObject): SyncResult {
    const uid = claim.metadata.uid ?? '';
    const pod = this.store.list('Pod', claim.metadata.namespace, (p) => Boolean(p.spec?.nodeName) && p.status?.phase === 'Running' && !p.metadata.deletionTimestamp && podClaimNames(p).includes(claim.metadata.name ?? ''))[0];
    if (!pod) {
      this.expandingSince.delete(uid);
      return;
    }
    const now = this.store.clock.nowMs();
    const since = this.expandingSince.get(uid) ?? now;
    this.expandingSince.set(uid, since);
    if (now < since + this.nodeExpandMs) return { requeueAfterMs: since + this.nodeExpandMs - now };
    this.expandingSince.delete(uid);
    const { allocatedResourceStatuses: _done, conditions: _conditions, ...rest } = (claim.status ?? {}) as Record<string, unknown>;
    const kept = ((claim.status?.conditions ?? []) as Condition[]).filter((c) => c.type !== RESIZING && c.type !== FS_PENDING);
    const status = { ...rest, capacity: { ...(claim.status?.capacity ?? {}), storage: pv.spec?.capacity?.storage }, ...(kept.length > 0 ? { conditions: kept } : {}) };
    this.store.update('PersistentVolumeClaim', { ...claim, status }, { subresource: 'status' });
    const nodeName = String(pod.spec?.nodeName ?? '');
    const message = `MountVolume.NodeExpandVolume succeeded for volume "${pv.metadata.name ?? ''}" ${nodeName}`;
    eventRecorder(this.store).record(claim, { type: 'Normal', reason: 'FileSystemResizeSuccessful', message, source: { component: 'kubelet', host: nodeName } });
  }

  private setStatus(claim: KubeObject, conditions: Condition[], resizeStatus: string): void {
    const others = ((claim.status?.conditions ?? []) as Condition[]).filter((c) => c.type !== RESIZING && c.type !== FS_PENDING);
    const status = {
      ...(claim.status ?? {}),
      conditions: [...others, ...conditions],
      allocatedResources: { storage: claim.spec?.resources?.requests?.storage },
      allocatedResourceStatuses: { storage: resizeStatus },
    };
    this.store.update('PersistentVolumeClaim', { ...claim, status }, { subresource: 'status' });
  }
}

const hasCondition = (claim: KubeObject, type: string): boolean => ((claim.status?.conditions ?? []) as Condition[]).some((c) => c.type === type && c.status === 'True');

function condition(type: string, nowMs: number, message?: string): Condition {
  return { type, status: 'True', lastProbeTime: null, lastTransitionTime: new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'), ...(message ? { message } : {}) };
}
