/**
 * TiCDC's graceful shutdown of one pod before it goes (scale-in) or restarts (upgrade), as TiDB
 * Operator v1's `gracefulDrainTiCDC` and `gracefulResignOwnerTiCDC` (§2.5): the begin time is
 * recorded once — on the pod (v1's annotation, which also tells the observer whose drain to follow)
 * and as a persisted deadline `ticdc/<pod>/gracefulShutdown` at begin + `gracefulShutdownTimeout`;
 * the owner resigns first; then the capture is drained, polled with short waits, until it holds no
 * table. Past the deadline the pod goes whatever it still holds, as TiDB Operator; and, as its
 * `ResignOwner` and `DrainCapture`, a capture TiCDC lists alone goes at once (nothing to move to).
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action, DeadlineSpec } from '../../../model/action.js';
import type { TicdcCaptureView } from '../../../model/ticdc.js';
import { toKubeTime } from '../../cluster/condition.js';
import { observedTicdc } from '../../cluster/observed.js';
import { retry } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { hasDeadline } from '../../member/failover.js';
import { TICDC_DRAIN_DEADLINE, TICDC_GRACEFUL_SHUTDOWN_BEGIN, TICDC_RETRY_MS, ticdcGracefulShutdownMs } from './names.js';

/** Where a graceful shutdown stands: the pod may go (`done`, with why; `timedOut` past the deadline), or hold with this decision. */
export type DrainStep = { readonly done: string; readonly timedOut: boolean } | { readonly hold: MemberDecision };

/** The persisted deadline of `podName`'s drain, begun at `sinceMs`. */
export const drainDeadline = (input: MemberInput, podName: string, sinceMs: number): DeadlineSpec => ({
  component: 'ticdc',
  member: podName,
  kind: TICDC_DRAIN_DEADLINE,
  sinceMs,
  deadlineAtMs: sinceMs + ticdcGracefulShutdownMs(input.cluster),
});

/** When the drain of `pod` began, by its annotation (undefined: not begun, or not a time — then it begins now). */
export function drainBeganAtMs(pod: IPod): number | undefined {
  const text = pod.metadata?.annotations?.[TICDC_GRACEFUL_SHUTDOWN_BEGIN];
  const at = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

// A drain in progress holds its component: as TiDB Operator, the round ends there.
const hold = (actions: readonly Action[], afterMs: number, message: string): DrainStep => ({ hold: { actions, outcome: retry(afterMs, message), stop: true } });

/** The capture running in `podName` as this step read it, if it answered. */
export function captureOf(input: MemberInput, podName: string): Extract<TicdcCaptureView, { ready: true }> | undefined {
  const capture = observedTicdc(input.snapshot)?.captures[podName];
  return capture?.ready === true ? capture : undefined;
}

/** The resignation of the owner running in `podName`, when it is the owner. */
export function resignIfOwner(input: MemberInput, podName: string): Action[] {
  const capture = captureOf(input, podName);
  return capture?.isOwner === true ? [{ kind: 'ticdc.resignOwner', pod: podName, capture: capture.id }] : [];
}

/**
 * Whether TiCDC may have another capture to take `podName`'s ownership, before its drain was first
 * read: another of the cluster's pods has a ready capture. (TiCDC's own list, read once the drain
 * has begun, is the word: captures of another cluster on the same PD count there too.)
 */
export function hasPeerCapture(input: MemberInput, podName: string): boolean {
  return Object.values(observedTicdc(input.snapshot)?.captures ?? {}).some((c) => c.ready && c.podName !== podName);
}

/**
 * The drain of `podName` (see the module comment). Guarantees: a missing pod needs nothing; the
 * first step records the begin time (pod annotation under its resourceVersion, then the deadline)
 * and resigns the owner there when another capture of the cluster is ready; once TiCDC lists the
 * capture alone the pod may go at once, with nothing resigned or drained (as TiDB Operator: with
 * one capture there is nothing to move to); otherwise later steps re-put a deadline that is missing,
 * resign while the capture is still the owner, and poll the drain every few seconds (never past the
 * deadline) until TiCDC answers zero tables; once the deadline has passed the pod may go.
 */
export function planTicdcDrain(input: MemberInput, podName: string): DrainStep {
  const pod = input.scope.pod(podName);
  if (!pod) return { done: `${podName} is gone`, timedOut: false };
  const nowMs = input.snapshot.nowMs;
  const began = drainBeganAtMs(pod);
  if (began === undefined) {
    const patch: Action = {
      kind: 'patch',
      ref: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: podName },
      patchType: 'merge',
      patch: { metadata: { annotations: { [TICDC_GRACEFUL_SHUTDOWN_BEGIN]: toKubeTime(nowMs) } } },
      resourceVersion: pod.metadata?.resourceVersion ?? '',
    };
    const deadline = drainDeadline(input, podName, nowMs);
    const resign = hasPeerCapture(input, podName) ? resignIfOwner(input, podName) : [];
    return hold([patch, { kind: 'state.putDeadline', deadline }, ...resign], TICDC_RETRY_MS, `graceful shutdown of TiCDC ${podName} begins`);
  }
  const persisted = input.snapshot.state.deadlines.find((d) => d.component === 'ticdc' && d.member === podName && d.kind === TICDC_DRAIN_DEADLINE);
  const deadline = persisted ?? drainDeadline(input, podName, began);
  if (nowMs >= deadline.deadlineAtMs) return { done: `graceful shutdown of ${podName} timed out at ${toKubeTime(deadline.deadlineAtMs)}`, timedOut: true };
  const drain = observedTicdc(input.snapshot)?.drains[podName];
  if (drain?.kind === 'alone') return { done: `${podName} is TiCDC's only capture: no other capture to take its ownership or tables`, timedOut: false };
  const put: Action[] = persisted !== undefined || hasDeadline(input.snapshot.state.deadlines, deadline) ? [] : [{ kind: 'state.putDeadline', deadline }];
  const pollMs = Math.min(TICDC_RETRY_MS, deadline.deadlineAtMs - nowMs);
  const resign = resignIfOwner(input, podName);
  if (resign.length > 0) return hold([...put, ...resign], pollMs, `ticdc: ${podName} is still the owner, try resign owner again`);
  if (drain === undefined) return hold(put, pollMs, `waiting to see the drain of ${podName}`);
  if (drain.kind === 'retry') return hold(put, pollMs, `ticdc: ${podName} needs to retry drain capture: ${drain.reason}`);
  if (drain.count > 0) return hold(put, pollMs, `ticdc: ${podName} still has ${drain.count} tables, wait draining`);
  return { done: `${podName} holds no table`, timedOut: false };
}

/**
 * Whether a drain of `podName` is still wanted: its ordinal is above the replicas TiCDC should have
 * (a scale-in), or TiCDC is upgrading and the pod does not run the update revision yet.
 */
export function isDrainWanted(input: MemberInput, podName: string): boolean {
  const ordinal = input.scope.ordinalOf(podName);
  if (ordinal === undefined) return false;
  if (ordinal >= (input.cluster.spec.ticdc?.replicas ?? 0)) return true;
  const status = input.status.ticdc;
  const pod = input.scope.pod(podName);
  const revision = pod?.metadata?.labels?.['controller-revision-hash'];
  return status?.phase === 'Upgrade' && revision !== undefined && revision !== status.statefulSet?.updateRevision;
}

/**
 * The bookkeeping of drains no one needs any more. Guarantees: a persisted drain deadline whose pod
 * is gone, or is a new pod without the begin annotation (it restarted after its drain), is deleted;
 * a running pod that still carries the begin annotation although no scale-in or upgrade wants it
 * drained (the scale-in was taken back) loses the annotation and its deadline, so a later drain
 * starts afresh with its full timeout.
 */
export function staleDrainBookkeeping(input: MemberInput): Action[] {
  const deadlineRef = (member: string) => ({ component: 'ticdc', member, kind: TICDC_DRAIN_DEADLINE });
  const stale = input.snapshot.state.deadlines
    .filter((d) => d.component === 'ticdc' && d.kind === TICDC_DRAIN_DEADLINE)
    .filter((d) => {
      const pod = input.scope.pod(d.member);
      return !pod || drainBeganAtMs(pod) === undefined;
    })
    .map((d): Action => ({ kind: 'state.deleteDeadline', deadline: deadlineRef(d.member) }));
  const abandoned = input.scope.pods.filter((pod) => {
    const name = pod.metadata?.name ?? '';
    return drainBeganAtMs(pod) !== undefined && pod.metadata?.deletionTimestamp === undefined && !isDrainWanted(input, name);
  });
  const unmark = abandoned.flatMap((pod): Action[] => {
    const name = pod.metadata?.name ?? '';
    const patch: Action = {
      kind: 'patch',
      ref: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name },
      patchType: 'merge',
      patch: { metadata: { annotations: { [TICDC_GRACEFUL_SHUTDOWN_BEGIN]: null } } },
      resourceVersion: pod.metadata?.resourceVersion ?? '',
    };
    const persisted = input.snapshot.state.deadlines.some((d) => d.component === 'ticdc' && d.member === name && d.kind === TICDC_DRAIN_DEADLINE);
    return [patch, ...(persisted ? [{ kind: 'state.deleteDeadline' as const, deadline: deadlineRef(name) }] : [])];
  });
  return [...stale, ...unmark];
}
