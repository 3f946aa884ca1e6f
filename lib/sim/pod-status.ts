/**
 * Reading pod status the way controllers do: Running and Ready, ready since when, terminating.
 */
import type { KubeObject } from './object.js';

type Condition = { type: string; status: string; lastTransitionTime?: string };

/** The pod's condition of `type`, if any. */
export function podCondition(pod: KubeObject, type: string): Condition | undefined {
  return (pod.status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);
}

/** Running with condition Ready=True, as the StatefulSet controller's isRunningAndReady. */
export function isPodReady(pod: KubeObject): boolean {
  return pod.status?.phase === 'Running' && podCondition(pod, 'Ready')?.status === 'True';
}

/** A pod whose deletion has begun. */
export function isTerminating(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}

/** A pod that ended for good (Failed or Succeeded). */
export function isPodFinished(pod: KubeObject): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

/**
 * Ready for at least `minReadySeconds` at `nowMs` (podutil.IsPodAvailable): what availableReplicas
 * counts. With 0 every ready pod is available.
 */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(podCondition(pod, 'Ready')?.lastTransitionTime ?? '');
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= nowMs;
}

/**
 * How long until a ready pod becomes available (0 when it already is, undefined when it is not
 * ready): controllers requeue after this to count it once minReadySeconds have passed.
 */
export function msUntilAvailable(pod: KubeObject, minReadySeconds: number, nowMs: number): number | undefined {
  if (!isPodReady(pod)) return undefined;
  const since = Date.parse(podCondition(pod, 'Ready')?.lastTransitionTime ?? '');
  if (minReadySeconds <= 0 || Number.isNaN(since)) return 0;
  return Math.max(0, since + minReadySeconds * 1000 - nowMs);
}
