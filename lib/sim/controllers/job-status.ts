/**
 * The pure parts of the simulated Job controller (kubernetes pkg/controller/job/job_controller.go):
 * which of a Job's pods are active, finished or terminating, the pod-failure back-off, and the
 * conditions and status it writes.
 */
import { type KubeObject, rfc3339 } from '../object.js';

/** The finalizer the Job controller puts on its pods so none finishes uncounted (job tracking with finalizers). */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

// As the controller's DefaultJobPodFailureBackOff / MaxJobPodFailureBackOff.
const POD_FAILURE_BACKOFF_MS = 10_000;
const MAX_POD_FAILURE_BACKOFF_MS = 360_000;

/** A Job condition as the controller writes it. */
export type JobCondition = { type: string; status: string; lastProbeTime: string; lastTransitionTime: string; reason?: string; message?: string };

/** Whether the Job has condition `type` with status True. */
export function hasJobCondition(job: KubeObject, type: string): boolean {
  return ((job.status?.conditions ?? []) as JobCondition[]).some((c) => c.type === type && c.status === 'True');
}

/** Whether the Job is finished: Complete or Failed. */
export function isJobFinished(job: KubeObject): boolean {
  return hasJobCondition(job, 'Complete') || hasJobCondition(job, 'Failed');
}

/** Whether a pod ended in success (phase Succeeded). */
export function isPodSucceeded(pod: KubeObject): boolean {
  return pod.status?.phase === 'Succeeded';
}

/**
 * isPodFailed: phase Failed, or — to count pods that never get the chance to reach Failed (an
 * eviction, a `kubectl delete pod`) — being deleted without having succeeded.
 */
export function isPodFailed(pod: KubeObject): boolean {
  return pod.status?.phase === 'Failed' || (pod.metadata.deletionTimestamp !== undefined && !isPodSucceeded(pod));
}

/** Active: neither finished nor being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  return !isPodSucceeded(pod) && pod.status?.phase !== 'Failed' && pod.metadata.deletionTimestamp === undefined;
}

/** When a failed pod finished: its containers' last finishedAt, else its deletion time, else `nowMs` (getFinishedTime). */
export function podFinishedAtMs(pod: KubeObject, nowMs: number): number {
  const statuses = (pod.status?.containerStatuses ?? []) as { state?: { terminated?: { finishedAt?: string } } }[];
  const finished = statuses.map((s) => Date.parse(s.state?.terminated?.finishedAt ?? '')).filter((ms) => !Number.isNaN(ms));
  if (finished.length > 0) return Math.max(...finished);
  const deleted = Date.parse(pod.metadata.deletionTimestamp ?? '');
  return Number.isNaN(deleted) ? nowMs : Math.min(deleted, nowMs);
}

/**
 * The back-off before a new pod after `failures` consecutive failures (backoffRecord): 10 s doubling
 * per failure, capped at 6 min, counted from the last failure.
 */
export function podBackoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(MAX_POD_FAILURE_BACKOFF_MS, POD_FAILURE_BACKOFF_MS * 2 ** (failures - 1));
}

/** `conditions` with a True condition of `type` added (kept as it is when already there). */
export function withCondition(conditions: readonly JobCondition[], type: string, reason: string, message: string, nowMs: number): JobCondition[] {
  if (conditions.some((c) => c.type === type && c.status === 'True')) return [...conditions];
  const at = rfc3339(nowMs);
  return [...conditions.filter((c) => c.type !== type), { type, status: 'True', lastProbeTime: at, lastTransitionTime: at, reason, message }];
}

/** Why a Job fails now, if it does: too many failed pods, or past its activeDeadlineSeconds. */
export function failureOf(job: KubeObject, failed: number, nowMs: number): { reason: string; message: string } | undefined {
  const spec = job.spec ?? {};
  if (typeof spec.backoffLimit === 'number' && failed > spec.backoffLimit) return { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  const started = Date.parse(String(job.status?.startTime ?? ''));
  if (typeof spec.activeDeadlineSeconds === 'number' && !Number.isNaN(started) && nowMs - started >= spec.activeDeadlineSeconds * 1000) {
    return { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
  }
  return undefined;
}

/**
 * With `restartPolicy: OnFailure` a failing container restarts inside its pod, so the pod never
 * fails: the Job controller counts the restarts of its Pending / Running pods' (init) containers
 * instead, and the Job has failed once they reach `backoffLimit` (any restart when it is 0) —
 * kubernetes pkg/controller/job/job_controller.go `pastBackoffLimitOnFailure`.
 */
export function pastBackoffLimitOnFailure(job: KubeObject, pods: readonly KubeObject[]): boolean {
  const template = (job.spec?.template ?? {}) as { spec?: { restartPolicy?: string } };
  if (template.spec?.restartPolicy !== 'OnFailure') return false;
  const limit = typeof job.spec?.backoffLimit === 'number' ? job.spec.backoffLimit : 6;
  let restarts = 0;
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running' && pod.status?.phase !== 'Pending') continue;
    const statuses = [...((pod.status?.initContainerStatuses ?? []) as { restartCount?: number }[]), ...((pod.status?.containerStatuses ?? []) as { restartCount?: number }[])];
    for (const s of statuses) restarts += s.restartCount ?? 0;
  }
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/**
 * The failure a Job already decided (its `FailureTarget=True` condition): once set it holds until the
 * Job is Failed, even when what caused it is gone (the OnFailure pod whose restarts counted is deleted).
 */
export function failureTargetOf(status: Record<string, unknown>): { reason: string; message: string } | undefined {
  const target = ((status.conditions ?? []) as JobCondition[]).find((c) => c.type === 'FailureTarget' && c.status === 'True');
  return target === undefined ? undefined : { reason: target.reason ?? '', message: target.message ?? '' };
}
