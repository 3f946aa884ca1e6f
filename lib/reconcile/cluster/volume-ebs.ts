/**
 * TiDB Operator v1.6's EBS modifier (`pkg/manager/volumes/delegation/aws/ebs_modifier.go`, feature
 * gate `VolumeModifying`; docs/reference/volumes.md §V5): for a claim whose component moved to
 * another EBS StorageClass, the volume's target is the claim's desired size in GiB (1–16384) and
 * the new class's `type`, `iops` and `throughput` parameters; EC2's last modification of the volume
 * (read by the step) decides — the same target and `completed` or `optimizing` is done, `modifying`
 * waits, `failed` or another target calls `ModifyVolume` again. Values the class leaves out (or EC2
 * does not report) are taken as equal, as v1.6's `diffVolume`. Pure: the modifications are given.
 */

import type { Action, Ec2ModifyVolumeAction } from '../../model/action.js';
import type { EbsVolumeModification, EbsVolumeTarget } from '../../model/ebs.js';
import type { TidbCluster } from '../../model/kube.js';
import { quantityValue } from './validate.js';
import { clusterWarning } from './events.js';
import { EBS_MODIFY_WAIT_MS, type ActualVolume, type EbsRoute } from '../member/volume-phase.js';

/** The Warning reason of a `ModifyVolume` EC2 refused (ours: v1.6 only logs the failed sync). */
export const VOLUME_MODIFY_FAILED = 'VolumeModifyFailed';

/** The Warning reason of a class change that waits for EBS's six-hour rule (ours: v1.6 only logs "modification is pending"). */
export const VOLUME_MODIFY_PENDING = 'VolumeModifyPending';

const GIB = 2 ** 30;
const MIN_GIB = 1;
const MAX_GIB = 16_384;

/** As v1.6's `getExpectedVolume`: the volume's target, or why none can be made (an invalid size or class parameter). */
export function ebsTargetOf(desiredSize: string, route: EbsRoute): { target: EbsVolumeTarget } | { error: string } {
  const bytes = quantityValue(desiredSize);
  const sizeGiB = bytes === undefined ? Number.NaN : Math.floor(bytes / GIB);
  if (!(sizeGiB >= MIN_GIB && sizeGiB <= MAX_GIB)) return { error: `invalid storage size: ${desiredSize}` };
  const params = route.to.parameters ?? {};
  const ints: Partial<Record<'iops' | 'throughput', number>> = {};
  for (const key of ['iops', 'throughput'] as const) {
    const raw = params[key];
    if (raw === undefined || raw === '') continue;
    if (!/^[+-]?\d+$/.test(raw) || Math.abs(Number(raw)) > 2 ** 31 - 1) return { error: `can't parse ${key} param in storage class ${route.to.metadata?.name ?? ''}: ${raw}` };
    ints[key] = Number(raw);
  }
  const volumeType = params['type'] ?? '';
  return { target: { volumeId: route.pv.spec?.csi?.volumeHandle ?? '', sizeGiB, ...ints, ...(volumeType === '' ? {} : { volumeType }) } };
}

/** As v1.6's `diffVolume`, negated: every value both sides have is equal. */
export function isSameTarget(observed: EbsVolumeTarget, target: EbsVolumeTarget): boolean {
  const same = (a: number | undefined, b: number | undefined): boolean => a === undefined || b === undefined || a === b;
  if (!same(observed.iops, target.iops) || !same(observed.throughput, target.throughput) || !same(observed.sizeGiB, target.sizeGiB)) return false;
  return !observed.volumeType || !target.volumeType || observed.volumeType === target.volumeType;
}

/** What the EBS modifier makes of one claim: done, waiting (why), or a `ModifyVolume` to send. */
export type EbsDecision = { readonly kind: 'done' } | { readonly kind: 'wait'; readonly why: string } | { readonly kind: 'modify'; readonly target: EbsVolumeTarget };

/**
 * As v1.6's `EBSModifier.ModifyVolume`: the decision for `target` given EC2's last modification
 * (`observed`) at `nowMs`. Ours on top: a volume whose last (other, not failed) modification started
 * less than six hours ago is not asked again — EC2 would refuse it (`VolumeModificationRateExceeded`);
 * the claim waits until then (v1.6 calls and fails every round).
 */
export function decideEbs(target: EbsVolumeTarget, observed: EbsVolumeModification | undefined, nowMs: number): EbsDecision {
  if (observed && isSameTarget(observed, target)) {
    if (observed.state === 'completed' || observed.state === 'optimizing') return { kind: 'done' };
    if (observed.state === 'modifying') return { kind: 'wait', why: `EBS volume ${target.volumeId} is modifying` };
  }
  const startedMs = observed?.startTime === undefined ? Number.NaN : Date.parse(observed.startTime);
  if (observed && observed.state !== 'failed' && nowMs < startedMs + EBS_MODIFY_WAIT_MS) {
    return { kind: 'wait', why: `EBS volume ${target.volumeId} was last modified at ${observed.startTime ?? ''} to other values; EBS allows its next modification six hours later` };
  }
  return { kind: 'modify', target };
}

/** The `ModifyVolume` action for `v`, with the Warning it records if EC2 refuses. */
export function modifyVolumeAction(tc: TidbCluster, title: string, v: ActualVolume, target: EbsVolumeTarget): Ec2ModifyVolumeAction {
  const claim = `${v.claim.metadata?.namespace ?? ''}/${v.claim.metadata?.name ?? ''}`;
  const to = v.ebs?.to.metadata?.name ?? '';
  const onError = clusterWarning(tc, VOLUME_MODIFY_FAILED, `${title} claim ${v.claim.metadata?.name ?? ''}: EC2 ModifyVolume of ${target.volumeId} for StorageClass "${to}" failed: `);
  return { kind: 'ec2.modifyVolume', target, claim, onError };
}

/**
 * The EBS part of one in-flight claim this step: `ModifyVolume` when EC2 must be asked, nothing
 * while it works, or `done` (the caller then grows the request and confirms, as for a resize).
 */
export function planEbsClaim(tc: TidbCluster, title: string, v: ActualVolume, modifications: Readonly<Record<string, EbsVolumeModification>>, nowMs: number, readError?: string): { actions: Action[]; done: boolean; why?: string } {
  if (!v.ebs) return { actions: [], done: true };
  // EC2 could not be read: never ask it blind (a modification may be under way); report and wait.
  if (readError !== undefined) return { actions: [{ ...clusterWarning(tc, VOLUME_MODIFY_FAILED, `${title} claim ${v.claim.metadata?.name ?? ''}: ${readError}`), once: true }], done: false, why: readError };
  const made = ebsTargetOf(v.desired.size, v.ebs);
  if ('error' in made) return { actions: [], done: false, why: `claim ${v.claim.metadata?.name ?? ''}: ${made.error}` };
  const decision = decideEbs(made.target, modifications[made.target.volumeId], nowMs);
  switch (decision.kind) {
    case 'done':
      return { actions: [], done: true };
    case 'wait':
      return { actions: [], done: false, why: decision.why };
    case 'modify':
      return { actions: [modifyVolumeAction(tc, title, v, decision.target)], done: false, why: `modifying EBS volume ${decision.target.volumeId} of claim ${v.claim.metadata?.name ?? ''}` };
    default: {
      const never: never = decision;
      return never;
    }
  }
}
