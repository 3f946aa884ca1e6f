/**
 * The Events the scheduler records about a pod (`pkg/scheduler/schedule_one.go`): `Scheduled`
 * "Successfully assigned <ns>/<pod> to <node>" once it is bound (`bindingCycle`), and a Warning
 * `FailedScheduling` with the FitError's "0/N nodes are available: …" for each attempt that finds
 * no node (`handleSchedulingFailure`). An unschedulable pod is retried on cluster changes, no more
 * often than its back-off (`DefaultPodMaxBackoffDuration`, 10 s), so a repeat of the same message
 * is counted at most once per 10 s per pod: its Event's count grows as on a real cluster instead
 * of with every change the simulated scheduler wakes up for. Reporting component `default-scheduler`.
 */
import { eventRecorder } from './event-recorder.js';
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';

/** The scheduler's component name (`v1.DefaultSchedulerName`). */
export const SCHEDULER_COMPONENT = 'default-scheduler';

/** DefaultPodMaxBackoffDuration: an unschedulable pod is not retried more often than this. */
export const SCHEDULER_MAX_BACKOFF_MS = 10_000;

/** The scheduler's Event recording for one world. */
export class SchedulerEvents {
  /** Pod uid → the last FailedScheduling message counted and when. */
  private readonly lastFailure = new Map<string, { message: string; atMs: number }>();

  constructor(private readonly store: ObjectStore) {}

  /** `Scheduled`: the pod was bound to `node`. */
  scheduled(pod: KubeObject, node: string): void {
    this.lastFailure.delete(pod.metadata.uid ?? '');
    const message = `Successfully assigned ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} to ${node}`;
    eventRecorder(this.store).record(pod, { type: 'Normal', reason: 'Scheduled', message, source: { component: SCHEDULER_COMPONENT } });
  }

  /** `FailedScheduling` for an attempt that found no node; a repeat within the back-off is not an attempt. */
  failed(pod: KubeObject, message: string): void {
    const uid = pod.metadata.uid ?? '';
    const nowMs = this.store.clock.nowMs();
    const last = this.lastFailure.get(uid);
    if (last && last.message === message && nowMs - last.atMs < SCHEDULER_MAX_BACKOFF_MS) return;
    this.lastFailure.set(uid, { message, atMs: nowMs });
    eventRecorder(this.store).record(pod, { type: 'Warning', reason: 'FailedScheduling', message, source: { component: SCHEDULER_COMPONENT } });
  }

  /** Forgets a pod that is gone (its uid will not come back). */
  forget(uid: string): void {
    this.lastFailure.delete(uid);
  }
}
