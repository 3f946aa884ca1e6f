/**
 * What the API server does to a batch/v1 Job before storing it (pkg/apis/batch/v1/defaults.go
 * SetDefaults_Job, pkg/registry/batch/job/strategy.go generateSelector): completions and
 * parallelism 1 when neither is set, backoffLimit 6, completionMode NonIndexed, suspend false,
 * podReplacementPolicy TerminatingOrFailed; and, unless `manualSelector`, a selector on the Job's
 * own uid with the same labels put on its pod template (both the `batch.kubernetes.io/` labels and
 * the legacy `controller-uid` / `job-name`).
 */
import type { KubeObject } from './object.js';

type Json = Record<string, unknown>;

/** The label on a Job's pods naming the Job's uid (the generated selector matches it). */
export const JOB_CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
/** The label on a Job's pods naming the Job. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

/** SetDefaults_Job on `spec`, in place (on every write, as the server's defaulting). */
export function defaultJobSpec(spec: Json): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy === undefined ? 'TerminatingOrFailed' : 'Failed';
}

/**
 * generateSelector: on create, once the Job has its uid, the selector and the template labels that
 * tie its pods to it (only when the user did not ask for a manual selector).
 */
export function generateJobSelector(job: KubeObject): void {
  const spec = job.spec as Json | undefined;
  if (!spec || spec.manualSelector === true) return;
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  const template = (spec.template ?? {}) as Json;
  const meta = (template.metadata ?? {}) as Json;
  meta.labels = { ...((meta.labels as Record<string, string> | undefined) ?? {}), [JOB_CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name, 'controller-uid': uid, 'job-name': name };
  template.metadata = meta;
  spec.template = template;
  spec.selector = { matchLabels: { [JOB_CONTROLLER_UID_LABEL]: uid } };
}
