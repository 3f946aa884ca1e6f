/**
 * Storage, as the PV controller, a CSI provisioner (EBS-like) and the PVC protection controller
 * together behave. A Pending claim binds an existing volume when one fits (named by its
 * `spec.volumeName`, pre-bound to it by the volume's `claimRef`, or Available with its class, access
 * modes and size); otherwise its StorageClass (a stored object: EKS's gp2/gp3 by default) provisions
 * a volume `pvc-<claim uid>` with the class's reclaim policy. A class that does not exist leaves the
 * claim Pending with a `ProvisioningFailed` Warning Event, as the real controller. Under
 * WaitForFirstConsumer provisioning waits for the scheduler's `volume.kubernetes.io/selected-node`
 * and pins the volume to that node's zone. A deleted claim's volume is deleted (Delete) or left
 * Released with its data (Retain); an admin who removes a Released volume's `claimRef` makes it
 * Available again, to be bound by a new claim. Every claim carries the `kubernetes.io/pvc-protection`
 * finalizer, removed only once no scheduled, unfinished pod mounts it. A `kubernetes.io/no-provisioner`
 * class never provisions (Immediate: a `ProvisioningFailed` Warning); a delayed claim waits with a
 * Normal `WaitForFirstConsumer` Event; static local volumes are reclaimed by their provisioner
 * (local-volumes.ts), never deleted here.
 *
 * Difference from a real cluster: the finalizer is added just after create (the real admission
 * plugin adds it in the create itself).
 */
import { type KubeObject, jsonEqual } from '../object.js';
import { SELECTED_NODE_ANNOTATION, podClaimNames } from '../kubelet-scheduler.js';
import { ZONE_LABEL } from '../nodes.js';
import { NO_PROVISIONER, type ResolvedClass, resolveClass } from '../storage-classes.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type ErrorSink, LevelController, type SyncResult, keyOf, splitKey } from './base.js';
import { claimEvent, findVolumeFor, isReleasedFrom } from './volume-binding.js';
import { VolumeClaimIndex } from './volume-index.js';
import { isStaticLocalVolume } from './local-volumes.js';
import { compareKeys } from '../store-bucket.js';
import { recordProvisioningStarted, recordProvisioningSucceeded } from './provisioning-events.js';

export type { StorageClassSim } from '../storage-classes.js';

/** The finalizer that keeps a claim while a pod uses it. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

/** Options of the volume controllers. */
export type VolumeOptions = {
  /** How long provisioning a volume takes (default 0). */
  provisionMs?: number;
  onError?: ErrorSink;
};

/** The last letter of each claim Event's name, one per reason (so each is recorded once). */
const EVENT_SUFFIX: Readonly<Record<string, string>> = { FailedBinding: 'b', ProvisioningFailed: 'p', WaitForFirstConsumer: 'w' };

/** Prefix of the keys of volume syncs (claims are keyed `namespace/name`). */
const VOLUME_KEY = 'pv:';

/** Provisions, binds, reclaims and protects volumes on the store's clock. */
export class VolumeController {
  private readonly loop: LevelController;
  /** The volumes by the claim they name, while started. */
  private volumes: VolumeClaimIndex | undefined;
  private readonly provisionMs: number;
  /** When provisioning of a claim (by uid) started, so `provisionMs` is waited once. */
  private readonly provisioningSince = new Map<string, number>();
  /** Claim uid + reason of the Events already recorded (the real recorder aggregates repeats). */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly store: ObjectStore,
    opts: VolumeOptions = {},
  ) {
    this.provisionMs = opts.provisionMs ?? 0;
    const initialKeys = (): string[] => [...store.list('PersistentVolumeClaim').map(keyOf), ...store.list('PersistentVolume').map((pv) => VOLUME_KEY + (pv.metadata.name ?? ''))];
    const spec = { name: 'volumes', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (key: string) => this.sync(key), initialKeys };
    this.loop = new LevelController(store, spec, opts.onError);
  }

  /** Starts watching claims, volumes, classes and pods. */
  start(): void {
    this.volumes ??= new VolumeClaimIndex(this.store);
    this.loop.start();
  }

  /** Stops watching. */
  stop(): void {
    this.loop.stop();
    this.volumes?.stop();
    this.volumes = undefined;
  }

  private keysFor(ev: StoreEvent): string[] {
    const obj = ev.object;
    if (ev.kind === 'PersistentVolumeClaim') return [keyOf(obj)];
    if (ev.kind === 'Pod') return podClaimNames(obj).map((c) => `${obj.metadata.namespace ?? ''}/${c}`);
    // A class created (or changed) later lets the claims waiting for it provision.
    if (ev.kind === 'StorageClass') return this.store.list('PersistentVolumeClaim', undefined, (c) => c.status?.phase !== 'Bound').map(keyOf);
    if (ev.kind !== 'PersistentVolume') return [];
    const ref = obj.spec?.claimRef as { namespace?: string; name?: string } | undefined;
    const volumeKey = VOLUME_KEY + (obj.metadata.name ?? '');
    // A volume made Available may be what a Pending claim was waiting for.
    const waiting = ref?.name ? [] : this.store.list('PersistentVolumeClaim', undefined, (c) => c.status?.phase !== 'Bound').map(keyOf);
    return ref?.name ? [`${ref.namespace ?? ''}/${ref.name}`, volumeKey] : [volumeKey, ...waiting];
  }

  private sync(key: string): SyncResult {
    if (key.startsWith(VOLUME_KEY)) return this.syncVolume(key.slice(VOLUME_KEY.length));
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

  /** The volumes `claim` could bind: the one it names, those naming it, the unclaimed; by name. */
  private candidateVolumes(claim: KubeObject): KubeObject[] {
    if (!this.volumes) return this.store.list('PersistentVolume');
    const out = this.volumes.candidatesFor(claim.metadata.namespace, claim.metadata.name ?? '');
    const named = typeof claim.spec?.volumeName === 'string' ? this.store.get('PersistentVolume', undefined, claim.spec.volumeName) : undefined;
    if (named && !out.includes(named)) return [...out, named].sort((a, b) => compareKeys(a.metadata.name ?? '', b.metadata.name ?? ''));
    return out;
  }

  /** A volume without a claimRef (new, or an admin cleared a Released one's) is Available. */
  private syncVolume(name: string): void {
    const pv = this.store.get('PersistentVolume', undefined, name);
    if (!pv || pv.metadata.deletionTimestamp || pv.spec?.claimRef || pv.status?.phase === 'Available') return;
    this.store.update('PersistentVolume', { ...pv, status: { ...(pv.status ?? {}), phase: 'Available' } }, { subresource: 'status' });
  }

  /** Volumes whose claim is gone (or replaced by a new claim of the same name) are reclaimed. */
  private reclaimReleased(namespace: string, name: string, liveUid: string | undefined): void {
    const named = this.volumes?.claimedBy(namespace, name) ?? this.store.list('PersistentVolume');
    for (const pv of named.filter((v) => isReleasedFrom(v, namespace, name, liveUid))) {
      if (pv.metadata.deletionTimestamp) continue;
      // A static local volume is deleted by its external deleter (local-volumes.ts), not here: as
      // pv_controller's deleteVolumeOperation, which leaves a volume provisioned by an external
      // provisioner Released for it.
      if (pv.spec?.persistentVolumeReclaimPolicy === 'Delete' && !isStaticLocalVolume(pv)) this.store.delete('PersistentVolume', undefined, pv.metadata.name ?? '');
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
    const className = typeof claim.spec?.storageClassName === 'string' ? claim.spec.storageClassName : '';
    const sc = className === '' ? undefined : resolveClass(this.store.get('StorageClass', undefined, className));
    const selectedNode = claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION];
    const node = selectedNode ? this.store.get('Node', undefined, selectedNode) : undefined;
    const delayed = sc?.volumeBindingMode === 'WaitForFirstConsumer';
    const found = findVolumeFor(claim, this.candidateVolumes(claim), delayed, node);
    if (found.pv) return this.bindExisting(claim, found.pv);
    if (found.conflict) return this.pending(claim, 'FailedBinding', found.conflict);
    // A claim naming a volume, or no class, is bound statically or not at all.
    if (claim.spec?.volumeName || className === '') return this.pending(claim);
    if (!sc) return this.pending(claim, 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
    // As pv_controller's syncUnboundClaim: a delayed claim waits for the scheduler's choice (a
    // Normal event), and a class no in-tree plugin provisions for fails provisioning by name.
    if (delayed && !selectedNode) return this.pending(claim, 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding', 'Normal');
    if (sc.provisioner === NO_PROVISIONER) return this.pending(claim, 'ProvisioningFailed', `no volume plugin matched name: ${NO_PROVISIONER}`);
    return this.provisionFor(claim, sc, selectedNode);
  }

  private provisionFor(claim: KubeObject, sc: ResolvedClass, selectedNode: string | undefined): SyncResult {
    const uid = claim.metadata.uid ?? '';
    const now = this.store.clock.nowMs();
    const since = this.provisioningSince.get(uid) ?? now;
    if (!this.provisioningSince.has(uid)) recordProvisioningStarted(this.store, claim, sc.provisioner);
    this.provisioningSince.set(uid, since);
    if (now < since + this.provisionMs) return { requeueAfterMs: since + this.provisionMs - now };
    let pv = this.store.get('PersistentVolume', undefined, `pvc-${uid}`);
    if (!pv) {
      pv = this.provision(claim, sc, selectedNode);
      recordProvisioningSucceeded(this.store, claim, sc.provisioner, pv);
    }
    this.provisioningSince.delete(uid);
    const withVolume = this.store.update('PersistentVolumeClaim', {
      ...claim,
      metadata: { ...claim.metadata, annotations: { ...(claim.metadata.annotations ?? {}), 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes', 'volume.kubernetes.io/storage-provisioner': sc.provisioner } },
      spec: { ...claim.spec, volumeName: pv.metadata.name },
    });
    return this.markBound(withVolume, pv);
  }

  /** Binds `claim` to an existing volume: the volume's claimRef gets the claim's uid, both go Bound. */
  private bindExisting(claim: KubeObject, pv: KubeObject): void {
    const claimRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion };
    let volume = pv;
    if (pv.spec?.claimRef?.uid !== claim.metadata.uid) {
      volume = this.store.update('PersistentVolume', { ...pv, spec: { ...pv.spec, claimRef } });
    }
    if (volume.status?.phase !== 'Bound') volume = this.store.update('PersistentVolume', { ...volume, status: { ...(volume.status ?? {}), phase: 'Bound' } }, { subresource: 'status' });
    const byController: Record<string, string> = claim.spec?.volumeName ? {} : { 'pv.kubernetes.io/bound-by-controller': 'yes' };
    const annotations = { ...(claim.metadata.annotations ?? {}), 'pv.kubernetes.io/bind-completed': 'yes', ...byController };
    const withVolume = this.store.update('PersistentVolumeClaim', { ...claim, metadata: { ...claim.metadata, annotations }, spec: { ...claim.spec, volumeName: volume.metadata.name } });
    this.markBound(withVolume, volume);
  }

  /** Leaves `claim` Pending, recording the Warning Event once per claim and reason. */
  private pending(claim: KubeObject, reason?: string, message?: string, type: 'Warning' | 'Normal' = 'Warning'): void {
    const id = `${claim.metadata.uid ?? ''}/${reason ?? ''}`;
    if (reason && message && !this.recorded.has(id)) {
      this.recorded.add(id);
      const suffix = `${(claim.metadata.uid ?? '').slice(0, 8)}${EVENT_SUFFIX[reason] ?? 'p'}`;
      if (!this.store.get('Event', claim.metadata.namespace, `${claim.metadata.name ?? ''}.${suffix}`)) this.store.create('Event', claimEvent(claim, reason, message, this.store.clock.nowMs(), suffix, type));
    }
    if (claim.status?.phase === 'Pending') return;
    this.store.update('PersistentVolumeClaim', { ...claim, status: { ...(claim.status ?? {}), phase: 'Pending' } }, { subresource: 'status' });
  }

  private markBound(claim: KubeObject, pv: KubeObject): void {
    const status = { phase: 'Bound', accessModes: pv.spec?.accessModes ?? claim.spec?.accessModes, capacity: pv.spec?.capacity };
    if (jsonEqual(status, claim.status)) return;
    this.store.update('PersistentVolumeClaim', { ...claim, status }, { subresource: 'status' });
  }

  /** The volume for `claim`, pinned to the selected node's zone when there is one. */
  private provision(claim: KubeObject, sc: ResolvedClass, selectedNode: string | undefined): KubeObject {
    const node = selectedNode ? this.store.get('Node', undefined, selectedNode) : undefined;
    const zone = node?.metadata.labels?.[ZONE_LABEL];
    const nodeAffinity = zone ? { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_LABEL, operator: 'In', values: [zone] }] }] } } : undefined;
    const uid = claim.metadata.uid ?? '';
    const pv: KubeObject = {
      metadata: { name: `pvc-${uid}`, annotations: { 'pv.kubernetes.io/provisioned-by': sc.provisioner } },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
        accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid, resourceVersion: claim.metadata.resourceVersion },
        persistentVolumeReclaimPolicy: sc.reclaimPolicy,
        storageClassName: sc.name,
        volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
        csi: { driver: sc.provisioner, volumeHandle: `vol-${uid.replace(/-/g, '').slice(0, 17)}`, fsType: 'ext4' },
        ...(nodeAffinity ? { nodeAffinity } : {}),
      },
      status: { phase: 'Bound' },
    };
    return this.store.create('PersistentVolume', pv, { keepStatus: true });
  }
}
