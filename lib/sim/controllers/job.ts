/**
 * The batch/v1 Job controller of the simulated world (kubernetes pkg/controller/job/job_controller.go,
 * NonIndexed completion mode): pods from the template named `<job>-<5 random>`, owned by the Job
 * and carrying the job-tracking finalizer until they are counted; at most `parallelism` active pods
 * until `completions` have succeeded; a failed pod (phase Failed, or deleted before succeeding —
 * an eviction or `kubectl delete pod`) is replaced after a back-off of 10 s doubling per failure
 * (cap 6 min) until `failed > backoffLimit` — with restartPolicy OnFailure, until its pods' container
 * restarts reach it — (BackoffLimitExceeded) or `activeDeadlineSeconds` has
 * passed since `startTime` (DeadlineExceeded). As since Kubernetes 1.31, the terminal condition comes
 * in two steps: first FailureTarget / SuccessCriteriaMet (the active pods are deleted), then Failed /
 * Complete once no pod of the Job is left running or terminating; `completionTime` is set on
 * success only. Deleting the Job takes its pods through the garbage collector (ownerReferences); a
 * pod whose Job is gone loses its finalizer so it can go too.
 */
import type { KubeObject } from '../object.js';
import { jsonEqual, rfc3339 } from '../object.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { eventRecorder, type EventReport } from '../event-recorder.js';
import { type ErrorSink, LevelController, type SyncResult, controllerRef, isControlledBy, keyOf, ownerKey, splitKey } from './base.js';
import {
  JOB_TRACKING_FINALIZER,
  type JobCondition,
  failureOf,
  failureTargetOf,
  isJobFinished,
  isPodActive,
  isPodFailed,
  isPodSucceeded,
  pastBackoffLimitOnFailure,
  podBackoffMs,
  podFinishedAtMs,
  withCondition,
} from './job-status.js';

const BACKOFF_LIMIT_EXCEEDED = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };

/** The in-memory back-off record of one Job (as the controller's backoffRecordStore). */
type BackoffRecord = { uid: string; failuresAfterLastSuccess: number; lastFailureAtMs: number };

/** Runs Jobs: creates their pods, counts them, and writes the Job's status and conditions. */
export class JobController {
  private readonly loop: LevelController;
  private readonly backoff = new Map<string, BackoffRecord>();

  constructor(
    private readonly store: ObjectStore,
    onError?: ErrorSink,
  ) {
    const spec = { name: 'job-controller', keysFor: (ev: StoreEvent) => this.keysFor(ev), sync: (key: string) => this.sync(key), initialKeys: () => store.list('Job').map(keyOf) };
    this.loop = new LevelController(store, spec, onError);
  }

  /** Starts watching Jobs and their pods. */
  start(): void {
    this.loop.start();
  }

  /** Stops the controller. */
  stop(): void {
    this.loop.stop();
  }

  private keysFor(ev: StoreEvent): string[] {
    if (ev.kind === 'Job') return [keyOf(ev.object)];
    if (ev.kind !== 'Pod') return [];
    const key = ownerKey(ev.object, 'Job');
    return key ? [key] : [];
  }

  private sync(key: string): SyncResult {
    const { namespace, name } = splitKey(key);
    const job = this.store.get('Job', namespace, name);
    if (!job) return this.releaseOrphans(namespace, name);
    const nowMs = this.store.clock.nowMs();
    const pods = this.store.list('Pod', namespace, (p) => isControlledBy(p, job.metadata.uid));
    const counted = this.countFinished(job, pods, nowMs);
    if (isJobFinished(job)) return this.writeStatus(job, counted.status);
    const status = counted.status;
    status.startTime ??= rfc3339(nowMs);
    const live = this.store.list('Pod', namespace, (p) => isControlledBy(p, job.metadata.uid));
    const active = live.filter(isPodActive);
    const terminating = live.filter((p) => p.metadata.deletionTimestamp !== undefined && !isPodSucceeded(p) && p.status?.phase !== 'Failed');
    const failure = failureOf({ ...job, status }, counted.failed, nowMs) ?? failureTargetOf(status) ?? (pastBackoffLimitOnFailure(job, active) ? BACKOFF_LIMIT_EXCEEDED : undefined);
    let conditions = (status.conditions ?? []) as JobCondition[];
    const completions = typeof job.spec?.completions === 'number' ? job.spec.completions : 1;
    const succeededEnough = counted.succeeded >= completions;
    if (failure || succeededEnough) {
      const [interim, final] = failure ? ['FailureTarget', 'Failed'] : ['SuccessCriteriaMet', 'Complete'];
      const why = failure ?? { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
      conditions = withCondition(conditions, interim, why.reason, why.message, nowMs);
      for (const pod of active) {
        this.store.delete('Pod', namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } });
        this.record(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name ?? ''}`);
      }
      if (active.length + terminating.length === 0) {
        conditions = withCondition(conditions, final, why.reason, why.message, nowMs);
        if (!failure) status.completionTime = rfc3339(nowMs);
        // recordJobFinished: "Completed" on success, the failure condition's reason and message otherwise.
        if (failure) this.record(job, 'Warning', failure.reason, failure.message);
        else this.record(job, 'Normal', 'Completed', 'Job completed');
      }
      return this.writeStatus(job, { ...status, conditions, active: 0, terminating: active.length + terminating.length, ready: 0 });
    }
    const wake = job.metadata.deletionTimestamp ? undefined : this.createPods(job, active.length, counted.succeeded, nowMs);
    const ready = active.filter((p) => ((p.status?.conditions ?? []) as { type?: string; status?: string }[]).some((c) => c.type === 'Ready' && c.status === 'True')).length;
    this.writeStatus(job, { ...status, conditions, active: active.length + (wake?.created ?? 0), ready, terminating: terminating.length });
    const deadlineMs = typeof job.spec?.activeDeadlineSeconds === 'number' ? Date.parse(String(status.startTime)) + job.spec.activeDeadlineSeconds * 1000 - nowMs : undefined;
    const waits = [wake?.retryAfterMs, deadlineMs].filter((ms): ms is number => ms !== undefined && ms >= 0);
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
  }

  /**
   * Counts the pods that finished since the last pass into `succeeded` / `failed` and removes their
   * tracking finalizer (so a deleted pod can go), updating the failure back-off record.
   */
  private countFinished(job: KubeObject, pods: readonly KubeObject[], nowMs: number): { status: Record<string, unknown>; succeeded: number; failed: number } {
    const status: Record<string, unknown> = { ...(job.status ?? {}) };
    let succeeded = typeof status.succeeded === 'number' ? status.succeeded : 0;
    let failed = typeof status.failed === 'number' ? status.failed : 0;
    const key = keyOf(job);
    const record = this.backoff.get(key)?.uid === job.metadata.uid ? (this.backoff.get(key) as BackoffRecord) : { uid: job.metadata.uid ?? '', failuresAfterLastSuccess: 0, lastFailureAtMs: 0 };
    for (const pod of pods) {
      if (!(pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER)) continue;
      if (isPodSucceeded(pod)) {
        succeeded++;
        record.failuresAfterLastSuccess = 0;
      } else if (isPodFailed(pod)) {
        failed++;
        record.failuresAfterLastSuccess++;
        record.lastFailureAtMs = Math.max(record.lastFailureAtMs, podFinishedAtMs(pod, nowMs));
      } else continue;
      this.removeFinalizer(pod);
    }
    this.backoff.set(key, record);
    status.succeeded = succeeded;
    status.failed = failed;
    return { status, succeeded, failed };
  }

  /** Creates the missing pods (one at a time after failures, once the back-off has passed). */
  private createPods(job: KubeObject, active: number, succeeded: number, nowMs: number): { created: number; retryAfterMs?: number } {
    const parallelism = typeof job.spec?.parallelism === 'number' ? job.spec.parallelism : 1;
    const completions = typeof job.spec?.completions === 'number' ? job.spec.completions : 1;
    const want = Math.min(parallelism, completions - succeeded) - active;
    if (want <= 0) return { created: 0 };
    const record = this.backoff.get(keyOf(job));
    const remainingMs = record ? record.lastFailureAtMs + podBackoffMs(record.failuresAfterLastSuccess) - nowMs : 0;
    if (remainingMs > 0) return { created: 0, retryAfterMs: remainingMs };
    const template = (job.spec?.template ?? {}) as { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
    for (let i = 0; i < want; i++) {
      const pod = this.store.create('Pod', {
        metadata: {
          generateName: `${job.metadata.name ?? ''}-`,
          namespace: job.metadata.namespace,
          labels: { ...(template.metadata?.labels ?? {}) },
          ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
          finalizers: [JOB_TRACKING_FINALIZER],
          ownerReferences: [controllerRef(job)],
        },
        spec: structuredClone(template.spec ?? {}),
      });
      this.record(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name ?? ''}`);
    }
    return { created: want };
  }

  /**
   * An Event on the Job, source `job-controller`: the pod control's `SuccessfulCreate` "Created pod:
   * x" / `SuccessfulDelete` "Deleted pod: x" (`pkg/controller/controller_utils.go` RealPodControl),
   * and the finished Job's (`pkg/controller/job/job_controller.go` recordJobFinished).
   */
  private record(job: KubeObject, type: EventReport['type'], reason: string, message: string): void {
    eventRecorder(this.store).record(job, { type, reason, message, source: { component: 'job-controller' } });
  }

  private removeFinalizer(pod: KubeObject): void {
    const finalizers = (pod.metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
    this.store.update('Pod', { ...pod, metadata: { ...pod.metadata, finalizers: finalizers.length > 0 ? finalizers : undefined } });
  }

  /** A Job that is gone leaves its pods without the tracking finalizer, so the garbage collector can remove them. */
  private releaseOrphans(namespace: string, name: string): SyncResult {
    this.backoff.delete(`${namespace}/${name}`);
    const orphans = this.store.list('Pod', namespace, (p) => ownerKey(p, 'Job') === `${namespace}/${name}` && (p.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER));
    for (const pod of orphans) this.removeFinalizer(pod);
    return undefined;
  }

  private writeStatus(job: KubeObject, status: Record<string, unknown>): SyncResult {
    const next: Record<string, unknown> = { ...status, uncountedTerminatedPods: {} };
    // active / succeeded / failed are omitempty in batch/v1 JobStatus; ready and terminating are pointers (kept at 0).
    for (const field of ['active', 'succeeded', 'failed']) if (next[field] === 0) delete next[field];
    if (next.conditions !== undefined && (next.conditions as unknown[]).length === 0) delete next.conditions;
    if (!jsonEqual(next, job.status ?? {})) this.store.update('Job', { ...job, status: next }, { subresource: 'status' });
    return undefined;
  }
}
