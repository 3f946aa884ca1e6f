/**
 * The backup faults a scenario injects into the world: `job-pod-killed` deletes a Job's running
 * pod, as a node drain or an eviction does — its process stops where it is (nothing more is written
 * to the Backup) and the Job controller counts the pod failed (`s3-down` is SimS3.setDown).
 */
import type { ObjectStore } from '../store.js';

/** Deletes the running pods of Job `namespace/job`; returns their names (none when the Job has no running pod). */
export function killJobPods(store: ObjectStore, namespace: string, job: string): string[] {
  const running = store.list('Pod', namespace, (p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === job && !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  for (const pod of running) store.delete('Pod', namespace, pod.metadata.name ?? '');
  return running.map((p) => p.metadata.name ?? '');
}
