/**
 * Storage, as the PV controller, a CSI provisioner (EBS-like) and the PVC protection controller
 * together behave: a Pending claim gets a volume `pvc-<claim uid>` (capacity, access modes, class,
 * claimRef, reclaim policy from its storage class, Delete by default) and both become Bound; under
 * WaitForFirstConsumer (the EKS default classes' mode, and the default here) provisioning waits for
 * the scheduler's `volume.kubernetes.io/selected-node` and pins the volume to that node's zone. A
 * deleted claim's volume is deleted (Delete) or Released (Retain). Every claim carries the
 * `kubernetes.io/pvc-protection` finalizer, removed only once no scheduled, unfinished pod mounts
 * it, so a claim deleted under a running pod stays Terminating.
 *
 * Differences from a real cluster: the finalizer is added just after create (the real admission
 * plugin adds it in the create itself), and an unknown storage class is provisioned with the
 * defaults instead of leaving the claim Pending.
 */
import { type KubeObject, jsonEqual } from '../object.js';
import { SELECTED_NODE_ANNOTATION, podClaimNames } from '../kubelet-scheduler.js';
import { ZONE_LABEL } from '../nodes.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type ErrorSink, LevelController, type SyncResult, keyOf, splitKey } from './base.js';

/** The finalizer that keeps a claim while a pod uses it. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

/** How a storage class provisions. */
export type StorageClassSim = { reclaimPolicy?: 'Delete' | 'Retain'; volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer' };

/** Options of the volume controllers. */
export type VolumeOptions = {
  /** Classes by name; a claim without a class uses `defaultClass`. */
  storageClasses?: Record<string, StorageClassSim>;
  /** The default class's name (default `gp2`, as EKS). */
  defaultClass?: string;
  /** How long provisioning a volume takes (default 0). */
  provisionMs?: number;
  onError?: ErrorSink;
};

const PROVISIONER = 'ebs.csi.aws.com';

/** Provisions, binds, reclaims and protects volumes on the store's clock. */
export class VolumeController {
  private readonly loop: LevelController;
  private readonly classes: Record<string, StorageClassSim>;
  private readonly defaultClass: string;
  private readonly provisionMs: number;
  /** When provisioning of a claim (by uid) started, so `provisionMs` is waited once. */
  private readonly provisioningSince = new Map<string, number>();

  constructor(
    private readonly store: ObjectStore,
    opts: VolumeOptions = {},
  ) {
    this.defaultClass = opts.defaultClass ?? 'gp2';
    this.classes = opts.storageClasses ?? {};
    this.provisionMs = opts.provisionMs ?? 0;
    const spec = { name: 'volumes', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (key: string) => this.sync(key), initialKeys: () => store.list('PersistentVolumeClaim').map(keyOf) };
    this.loop = new LevelController(store, spec, opts.onError);
  }

  /** Starts watching claims, volumes and pods. */
  start(): void {
    this.loop.start();
  }

  /** Stops watching. */
  stop(): void {
    this.loop.stop();
  }

  private keysFor(ev: StoreEvent): string[] {
    const obj = ev.object;
    if (ev.kind === 'PersistentVolumeClaim') return [keyOf(obj)];
    if (ev.kind === 'Pod') return podClaimNames(obj).map((c) => `${obj.metadata.namespace ?? ''}/${c}`);
    if (ev.kind !== 'PersistentVolume') return [];
    const ref = obj.spec?.claimRef as { namespace?: string; name?: string } | undefined;
    return ref?.name ? [`${ref.namespace ?? ''}/${ref.name}`] : [];
  }

  private classOf(claim: KubeObject): Required<StorageClassSim> & { name: string } {
    const name = typeof claim.spec?.storageClassName === 'string' ? claim.spec.storageClassName : this.defaultClass;
    const sc = this.classes[name] ?? {};
    return { name, reclaimPolicy: sc.reclaimPolicy ?? 'Delete', volumeBindingMode: sc.volumeBindingMode ?? 'WaitForFirstConsumer' };
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const claim = this.store.get('PersistentVolumeClaim', namespace, name);
    this.reclaimReleased(namespace, name, claim?.metadata.uid);
    if (!claim) return;
    if (claim.metadata.deletionTimestamp) return this.unprotectIfUnused(claim);
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER)) {
      const finalizers = [...(claim.metadata.finalizers ?? []), PVC_PROTECTION_FINALIZER];
      this.store.update('PersistentVolumeClaim', { ...claim, metadata: { ...claim.metadata, finalizers } });
      return { requeueAfterMs: 0 };
    }
    return this.bind(claim);
  }

  /** Volumes whose claim is gone (or replaced by a new claim of the same name) are reclaimed. */
  private reclaimReleased(namespace: string, name: string, liveUid: string | undefined): void {
    const mine = (pv: KubeObject): boolean => pv.spec?.claimRef?.namespace === namespace && pv.spec?.claimRef?.name === name && pv.spec?.claimRef?.uid !== liveUid;
    for (const pv of this.store.list('PersistentVolume', undefined, mine)) {
      if (pv.metadata.deletionTimestamp) continue;
      if (pv.spec?.persistentVolumeReclaimPolicy === 'Delete') this.store.delete('PersistentVolume', undefined, pv.metadata.name ?? '');
      else if (pv.status?.phase !== 'Released') this.store.update('PersistentVolume', { ...pv, status: { ...(pv.status ?? {}), phase: 'Released' } }, { subresource: 'status' });
    }
  }

  private unprotectIfUnused(claim: KubeObject): void {
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER)) return;
    // As the PVC protection controller: only scheduled pods that have not finished hold the claim.
    const holders = this.store.list('Pod', claim.metadata.namespace, (p) => Boolean(p.spec?.nodeName) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && podClaimNames(p).includes(claim.metadata.name ?? ''));
    if (holders.length > 0) return;
    const finalizers = (claim.metadata.finalizers ?? []).filter((f) => f !== PVC_PROTECTION_FINALIZER);
    this.store.update('PersistentVolumeClaim', { ...claim, metadata: { ...claim.metadata, finalizers: finalizers.length > 0 ? finalizers : undefined } });
  }

  private bind(claim: KubeObject): SyncResult {
    if (claim.status?.phase === 'Bound') return;
    const volumeName = claim.spec?.volumeName as string | undefined;
    const existing = volumeName ? this.store.get('PersistentVolume', undefined, volumeName) : undefined;
    if (existing) return this.markBound(claim, existing);
    const sc = this.classOf(claim);
    const selectedNode = claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION];
    if (sc.volumeBindingMode === 'WaitForFirstConsumer' && !selectedNode) return this.markPending(claim);
    const uid = claim.metadata.uid ?? '';
    const now = this.store.clock.nowMs();
    const since = this.provisioningSince.get(uid) ?? now;
    this.provisioningSince.set(uid, since);
    if (now < since + this.provisionMs) return { requeueAfterMs: since + this.provisionMs - now };
    const pv = this.store.get('PersistentVolume', undefined, `pvc-${uid}`) ?? this.provision(claim, sc, selectedNode);
    this.provisioningSince.delete(uid);
    const withVolume = this.store.update('PersistentVolumeClaim', {
      ...claim,
      metadata: { ...claim.metadata, annotations: { ...(claim.metadata.annotations ?? {}), 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes', 'volume.kubernetes.io/storage-provisioner': PROVISIONER } },
      spec: { ...claim.spec, volumeName: pv.metadata.name, storageClassName: sc.name },
    });
    return this.markBound(withVolume, pv);
  }

  private markPending(claim: KubeObject): void {
    if (claim.status?.phase === 'Pending') return;
    this.store.update('PersistentVolumeClaim', { ...claim, status: { ...(claim.status ?? {}), phase: 'Pending' } }, { subresource: 'status' });
  }

  private markBound(claim: KubeObject, pv: KubeObject): void {
    const status = { phase: 'Bound', accessModes: pv.spec?.accessModes ?? claim.spec?.accessModes, capacity: pv.spec?.capacity };
    if (jsonEqual(status, claim.status)) return;
    this.store.update('PersistentVolumeClaim', { ...claim, status }, { subresource: 'status' });
  }

  /** The volume for `claim`, pinned to the selected node's zone when there is one. */
  private provision(claim: KubeObject, sc: Required<StorageClassSim> & { name: string }, selectedNode: string | undefined): KubeObject {
    const node = selectedNode ? this.store.get('Node', undefined, selectedNode) : undefined;
    const zone = node?.metadata.labels?.[ZONE_LABEL];
    const nodeAffinity = zone ? { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_LABEL, operator: 'In', values: [zone] }] }] } } : undefined;
    const uid = claim.metadata.uid ?? '';
    const pv: KubeObject = {
      metadata: { name: `pvc-${uid}`, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER } },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
        accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid, resourceVersion: claim.metadata.resourceVersion },
        persistentVolumeReclaimPolicy: sc.reclaimPolicy,
        storageClassName: sc.name,
        volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
        csi: { driver: PROVISIONER, volumeHandle: `vol-${uid.replace(/-/g, '').slice(0, 17)}`, fsType: 'ext4' },
        ...(nodeAffinity ? { nodeAffinity } : {}),
      },
      status: { phase: 'Bound' },
    };
    return this.store.create('PersistentVolume', pv, { keepStatus: true });
  }
}
