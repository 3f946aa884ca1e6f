/**
 * Where each claim of a component stands against the spec, as TiDB Operator v1.6's PVC modifier
 * judges it (`pkg/manager/volumes/phase.go`, docs/reference/volumes.md §V2–§V3): the desired volumes
 * come from the component's claim templates; a claim is `CannotModify` (a smaller size, or a larger
 * one its StorageClass may not grow to), `Modifying` (a change started and not yet confirmed: the
 * spec and status revision annotations differ), `Modified`, `Pending` (changed less than a minute
 * ago) or `Preparing` (may start now). Pure: the claims, classes and the time are given.
 */

import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { TidbCluster } from '../../model/kube.js';
import { quantityValue } from '../cluster/validate.js';
import type { ComponentDeclaration } from './component.js';

/** TiDB Operator v1.6's claim annotations (`pvc_modifier.go`), exact keys. */
export const VOLUME_ANNOTATIONS = {
  specRevision: 'spec.tidb.pingcap.com/revision',
  specStorageClass: 'spec.tidb.pingcap.com/storage-class',
  specStorageSize: 'spec.tidb.pingcap.com/storage-size',
  statusRevision: 'status.tidb.pingcap.com/revision',
  statusStorageClass: 'status.tidb.pingcap.com/storage-class',
  statusStorageSize: 'status.tidb.pingcap.com/storage-size',
  lastTransition: 'status.tidb.pingcap.com/last-transition-timestamp',
} as const;

/** As v1.6's `defaultModifyWaitingDuration`: a claim is not changed again within a minute of its last change. */
export const MODIFY_WAIT_MS = 60_000;

/** One volume as the spec wants it: the claim template (= pod volume) name, size and classes. */
export type DesiredVolume = {
  readonly name: string;
  readonly size: string;
  readonly storageClassName?: string;
  /** The VolumeAttributesClass the spec names (v1.6 then modifies through it, §V4). */
  readonly volumeAttributesClassName?: string;
};

/** Why a claim cannot be changed: a smaller size, a class that may not grow (named), or a class change the EBS modifier refuses. */
export type VolumeRefusal =
  | { readonly kind: 'shrink'; readonly claim: string; readonly from: string; readonly to: string }
  | { readonly kind: 'noExpansion'; readonly claim: string; readonly storageClass: string; readonly found: boolean }
  | { readonly kind: 'classChange'; readonly claim: string; readonly from: string; readonly to: string; readonly why: string };

/** The provisioner of the EBS CSI driver (v1.6's EBS modifier's name). */
export const EBS_PROVISIONER = 'ebs.csi.aws.com';

/** As v1.6's EBS modifier's `MinWaitDuration`: EBS allows one modification of a volume every six hours. */
export const EBS_MODIFY_WAIT_MS = 6 * 60 * 60 * 1000;

/**
 * What the `VolumeModifying` gate adds to the judgement (v1.6's `podVolModifier` with its EBS
 * modifier registered): the PersistentVolumes bound to the claims. Absent: the gate is off.
 */
export type VolumeModifying = { readonly volumes: readonly IPersistentVolume[] };

/** The EBS modifier's part of a claim moving to another EBS StorageClass: its volume and the classes. */
export type EbsRoute = { readonly pv: IPersistentVolume; readonly from: IStorageClass; readonly to: IStorageClass };

/** v1.6's volume phases, plus `Unbound` (a claim not bound yet is neither counted nor changed). */
export type VolumePhase = 'Unbound' | 'CannotModify' | 'Modifying' | 'Modified' | 'Pending' | 'Preparing';

/** One claim of a pod, judged. */
export type ActualVolume = {
  readonly desired: DesiredVolume;
  readonly claim: IPersistentVolumeClaim;
  readonly phase: VolumePhase;
  readonly refusal?: VolumeRefusal;
  /** When a `Pending` claim may start (its last change plus the wait). */
  readonly pendingUntilMs?: number;
  /** Set when v1.6's EBS modifier works on this claim (gate on, class changed to another EBS class). */
  readonly ebs?: EbsRoute;
};

/** The component's desired volumes (v1.6's `GetDesiredVolumes`): its claim templates, data claim first. */
export function desiredVolumes(component: ComponentDeclaration, tc: TidbCluster): DesiredVolume[] {
  if (!component.specOf(tc)) return [];
  return component.claimTemplates(tc).flatMap((t) => {
    const size = t.spec?.resources?.requests?.storage;
    if (t.metadata?.name === undefined || size === undefined) return [];
    const vac = t.spec?.volumeAttributesClassName ? { volumeAttributesClassName: t.spec.volumeAttributesClassName } : {};
    return [{ name: t.metadata.name, size: String(size), ...(t.spec?.storageClassName ? { storageClassName: t.spec.storageClassName } : {}), ...vac }];
  });
}

/** The claim's storage request, as written. */
export const requestOf = (claim: IPersistentVolumeClaim): string | undefined => stringOf(claim.spec?.resources?.requests?.storage);

/** The claim's capacity (`status.capacity.storage`), as written. */
export const capacityOf = (claim: IPersistentVolumeClaim): string | undefined => stringOf(claim.status?.capacity?.storage);

const stringOf = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));

/** Whether two quantities stand for the same amount (`1Gi` and `1024Mi`); false when either is missing. */
export function sameQuantity(a: string | undefined, b: string | undefined): boolean {
  const x = quantityValue(a);
  return x !== undefined && x === quantityValue(b);
}

/** -1, 0 or 1 as `a` is less than, equal to or more than `b`; undefined when either is not a quantity. */
export function compareQuantity(a: string | undefined, b: string | undefined): number | undefined {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (x === undefined || y === undefined) return undefined;
  return Math.sign(x - y);
}

/** The claim's class as v1.6 reads it: the status annotation once a class change completed, else the spec's. */
export function storageClassOf(claim: IPersistentVolumeClaim): string {
  return claim.metadata?.annotations?.[VOLUME_ANNOTATIONS.statusStorageClass] || (claim.spec?.storageClassName ?? '');
}

/** Whether `sc` lets its claims grow (`allowVolumeExpansion: true`; absent is false, as Kubernetes). */
export const allowsExpansion = (sc: IStorageClass | undefined): boolean => sc?.allowVolumeExpansion === true;

/**
 * As v1.6's `validate`, against the claim's request rather than its capacity: why the claim may not
 * take the desired size, or undefined. A volume larger than its claim asked (a static local disk) is
 * not a shrink while the spec asks what the claim asks — v1.6 would call it one and only log it.
 */
export function refusalOf(claim: IPersistentVolumeClaim, desired: DesiredVolume, classes: readonly IStorageClass[]): VolumeRefusal | undefined {
  const name = claim.metadata?.name ?? '';
  const request = requestOf(claim);
  const cmp = compareQuantity(desired.size, request);
  if (cmp === undefined || cmp === 0) return undefined;
  if (cmp < 0) return { kind: 'shrink', claim: name, from: request ?? '', to: desired.size };
  const className = storageClassOf(claim);
  const sc = classes.find((c) => c.metadata?.name === className);
  if (allowsExpansion(sc)) return undefined;
  return { kind: 'noExpansion', claim: name, storageClass: className, found: sc !== undefined };
}

/** As v1.6's `isPVCRevisionChanged`: a change was started (spec revision) and not yet confirmed (status revision). */
export function isRevisionChanged(claim: IPersistentVolumeClaim): boolean {
  const a = claim.metadata?.annotations ?? {};
  return (a[VOLUME_ANNOTATIONS.specRevision] ?? '') !== (a[VOLUME_ANNOTATIONS.statusRevision] ?? '');
}

/**
 * As v1.6's `needModify`: the size last confirmed (status annotation, else the request) differs
 * from the desired one — or, under the `VolumeModifying` gate, the class does (`classChanged`).
 */
export function needsModify(claim: IPersistentVolumeClaim, desired: DesiredVolume, classChanged = false): boolean {
  const confirmed = claim.metadata?.annotations?.[VOLUME_ANNOTATIONS.statusStorageSize] ?? requestOf(claim);
  return classChanged || !sameQuantity(confirmed, desired.size);
}

/** When the claim's last change started (its last-transition annotation), or undefined. */
export function lastTransitionMs(claim: IPersistentVolumeClaim): number | undefined {
  const at = claim.metadata?.annotations?.[VOLUME_ANNOTATIONS.lastTransition];
  const ms = at === undefined ? Number.NaN : Date.parse(at);
  return Number.isFinite(ms) ? ms : undefined;
}

/** As v1.6's `isStorageClassChanged`: the spec names a class and it is not the claim's. */
export const isClassChanged = (claim: IPersistentVolumeClaim, desired: DesiredVolume): boolean => (desired.storageClassName ?? '') !== '' && desired.storageClassName !== storageClassOf(claim);

/**
 * Under the gate, a class change as v1.6's `getVolumeModifier` and EBS `Validate` see it: the EBS
 * route when both classes exist, differ and the new one is the EBS CSI driver's (its volume must be
 * known, its provisioner unchanged — else a refusal); nothing when another driver's (v1.6 has no
 * modifier then: the annotations record the class, the volume stays as it is).
 */
export function classChangeOf(claim: IPersistentVolumeClaim, desired: DesiredVolume, classes: readonly IStorageClass[], gate: VolumeModifying): { ebs?: EbsRoute; refusal?: VolumeRefusal } {
  const name = claim.metadata?.name ?? '';
  const fromName = storageClassOf(claim);
  const toName = desired.storageClassName ?? '';
  const from = classes.find((c) => c.metadata?.name === fromName);
  const to = classes.find((c) => c.metadata?.name === toName);
  const refuse = (why: string): { refusal: VolumeRefusal } => ({ refusal: { kind: 'classChange', claim: name, from: fromName, to: toName, why } });
  if (!to) return refuse(`StorageClass "${toName}" does not exist`);
  if (!from) return refuse(`the claim's StorageClass "${fromName}" does not exist`);
  if (to.provisioner !== EBS_PROVISIONER) return {};
  if (from.provisioner !== to.provisioner) return refuse(`provisioner should not be changed, now from ${from.provisioner} to ${to.provisioner}`);
  const pv = gate.volumes.find((v) => v.metadata?.name === claim.spec?.volumeName);
  if (!pv?.spec?.csi?.volumeHandle) return refuse(`its PersistentVolume "${claim.spec?.volumeName ?? ''}" (an EBS CSI volume) was not found`);
  return { ebs: { pv, from, to } };
}

/**
 * The claim judged against `desired` at `nowMs` (v1.6's `getVolumePhase`, in its order). With
 * `gate` (the `VolumeModifying` feature gate) a class change is a change too, and the EBS
 * modifier's six-hour wait applies to claims it works on.
 */
export function judgeVolume(claim: IPersistentVolumeClaim, desired: DesiredVolume, classes: readonly IStorageClass[], nowMs: number, gate?: VolumeModifying): ActualVolume {
  if (claim.status?.phase !== 'Bound') return { desired, claim, phase: 'Unbound' };
  const refusal = refusalOf(claim, desired, classes);
  if (refusal) return { desired, claim, phase: 'CannotModify', refusal };
  const changed = gate !== undefined && isClassChanged(claim, desired);
  const route = changed && gate ? classChangeOf(claim, desired, classes, gate) : {};
  if (route.refusal) return { desired, claim, phase: 'CannotModify', refusal: route.refusal };
  const ebs = route.ebs ? { ebs: route.ebs } : {};
  if (isRevisionChanged(claim)) return { desired, claim, phase: 'Modifying', ...ebs };
  if (!needsModify(claim, desired, changed)) return { desired, claim, phase: 'Modified' };
  const since = lastTransitionMs(claim);
  const waitMs = route.ebs ? EBS_MODIFY_WAIT_MS : MODIFY_WAIT_MS;
  if (since !== undefined && nowMs < since + waitMs) return { desired, claim, phase: 'Pending', pendingUntilMs: since + waitMs, ...ebs };
  return { desired, claim, phase: 'Preparing', ...ebs };
}

/**
 * The managed claims of `pod` (v1.6's `GetActualVolumes`): each of its volumes backed by a claim
 * among `claims` whose volume name is a desired volume, judged, in the pod's volume order.
 */
export function podVolumes(pod: IPod, claims: readonly IPersistentVolumeClaim[], desired: readonly DesiredVolume[], classes: readonly IStorageClass[], nowMs: number, gate?: VolumeModifying): ActualVolume[] {
  return (pod.spec?.volumes ?? []).flatMap((v) => {
    const claimName = v.persistentVolumeClaim?.claimName;
    const want = desired.find((d) => d.name === v.name);
    const claim = claimName === undefined ? undefined : claims.find((c) => c.metadata?.name === claimName);
    return want && claim ? [judgeVolume(claim, want, classes, nowMs, gate)] : [];
  });
}

/** As v1.6 sorts a component's pods: shorter names first, then by name (`-2` before `-10`). */
export function byPodOrder(a: IPod, b: IPod): number {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
}
