/**
 * What TiCDC's scale-in and rolling upgrade need beyond the shared scaler and walk, as TiDB Operator
 * v1's `ticdc_scaler.go` and `ticdc_upgrader.go` (§2.5): a pod leaves only after its graceful
 * shutdown (drain.ts); before a pod restarts for an upgrade — when TiCDC can drain across the
 * versions involved — it is drained, and the owner moves off the pod that rolls next; an updated pod
 * must be Ready and have a ready capture before the partition moves on.
 */

import type { Outcome } from '../../../model/outcome.js';
import { retry } from '../../engine/outcome.js';
import type { MemberInput, ScaleInCheck, Walk } from '../../member/component.js';
import { upgraderWho } from '../../member/upgrade.js';
import { captureOf, planTicdcDrain, resignIfOwner } from './drain.js';
import { TICDC_RETRY_MS, ticdcStatusOf, ticdcVersion } from './names.js';

/** TiCDC's `beforeScaleIn`: the pod's graceful shutdown (owner resigned, capture drained, or timed out). */
export function beforeTicdcScaleIn(input: MemberInput, podName: string): ScaleInCheck {
  const step = planTicdcDrain(input, podName);
  return 'hold' in step ? { hold: step.hold } : { first: [] };
}

const CROSS_UPGRADE_VERSION: readonly number[] = [6, 3, 0];

/** `v6.5.1` → [6, 5, 1] (pre-release and build suffixes dropped); undefined when it is not a version. */
export function parseVersion(text: string): number[] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

const compare = (a: readonly number[], b: readonly number[]): number => {
  for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/**
 * As TiDB Operator's `isTiCDCPodSupportGracefulUpgrade`: the same version drains; so does a pod of
 * 6.3.0 or later moving to a version less than two majors ahead; versions that cannot be read still
 * try (TiCDC answers 404 where it cannot drain); a pod before 6.3.0 changing version does not.
 */
export function isGracefulUpgradeSupported(podVersion: string, targetVersion: string | undefined): boolean {
  const pod = parseVersion(podVersion);
  const target = targetVersion === undefined ? undefined : parseVersion(targetVersion);
  if (!pod || !target) return true;
  if (compare(pod, target) === 0) return true;
  if (compare(pod, CROSS_UPGRADE_VERSION) < 0) return false;
  return compare(target, [(pod[0] ?? 0) + 2, 0, 0]) < 0;
}

/**
 * TiCDC's `beforeRestart` for the pod of `ordinal`: drained first when the versions allow (a pod
 * whose capture cannot be read is held by its drain until the timeout), then the owner resigns from
 * the pod that rolls next (the next lower ordinal) when a third capture can take it, and TiCDC must
 * have an owner other than the rolling pod; then it rolls.
 */
export function beforeTicdcRestart(input: MemberInput, ordinal: number): Walk {
  const podName = input.scope.podName(ordinal);
  const capture = captureOf(input, podName);
  if (capture && !isGracefulUpgradeSupported(capture.version, ticdcVersion(input.cluster))) return { kind: 'roll', ordinal };
  const drained = planTicdcDrain(input, podName);
  if ('hold' in drained) return { kind: 'hold', outcome: drained.hold.outcome, actions: drained.hold.actions, stop: true };
  if (ordinal === 0 || drained.timedOut) return { kind: 'roll', ordinal };
  const next = input.scope.podName(ordinal - 1);
  // Beyond TiDB Operator: the next pod resigns only when a third capture can take the ownership —
  // with two, it would go back to the pod about to restart, and the two would pass it back and forth.
  const third = Object.values(ticdcStatusOf(input).captures ?? {}).some((c) => c.ready === true && c.podName !== podName && c.podName !== next);
  const resign = third ? resignIfOwner(input, next) : [];
  if (resign.length > 0) return { kind: 'hold', outcome: retry(TICDC_RETRY_MS, `ticdc: ${next} is still the owner, try resign owner again`), actions: resign, stop: true };
  const hasOwner = Object.values(ticdcStatusOf(input).captures ?? {}).some((c) => c.isOwner === true && c.podName !== podName);
  if (!hasOwner) return { kind: 'hold', outcome: retry(TICDC_RETRY_MS, `ticdc: ${next} is resigned, wait for TiCDC cluster become healthy`) };
  return { kind: 'roll', ordinal };
}

/** TiCDC's `updatedPodHold`: the updated pod has a ready capture (as TiDB Operator: it is among the captures). */
export function ticdcUpdatedPodHold(input: MemberInput, podName: string): Outcome | undefined {
  if (ticdcStatusOf(input).captures?.[podName]?.ready === true) return undefined;
  return retry(TICDC_RETRY_MS, `${upgraderWho(input)}'s ticdc upgraded pod: [${podName}] is not ready`);
}
