/**
 * The printer of batch/v1 Jobs, as Kubernetes' printJob (pkg/printers/internalversion/printers.go):
 * NAME, STATUS (Complete, Failed, Terminating, Suspended, FailureTarget, else Running), COMPLETIONS
 * as `succeeded/completions` (`n/1` without completions, `n/1 of p` with parallelism > 1), DURATION
 * (start → completion, or → now while it runs; empty before it starts), AGE; wide CONTAINERS, IMAGES,
 * SELECTOR.
 */
import type { KubeObject } from '../object.js';
import { AGE_COLUMN, NAME_COLUMN, type TablePrinter, ageOf, column, containerCells, count, formatSelector, humanDuration, list } from './format.js';

function hasCondition(job: KubeObject, type: string): boolean {
  return list<{ type?: string; status?: string }>(job.status?.conditions).some((c) => c.type === type && c.status === 'True');
}

function jobStatus(job: KubeObject): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function completions(job: KubeObject): string {
  const succeeded = count(job.status?.succeeded);
  if (typeof job.spec?.completions === 'number') return `${succeeded}/${job.spec.completions}`;
  const parallelism = count(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function duration(job: KubeObject, nowMs: number): string {
  const start = Date.parse(String(job.status?.startTime ?? ''));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(String(job.status?.completionTime ?? ''));
  return humanDuration((Number.isNaN(end) ? nowMs : end) - start);
}

/** The Job kind's printer: NAME, STATUS, COMPLETIONS, DURATION, AGE; wide CONTAINERS, IMAGES, SELECTOR. */
export const JOB_PRINTER: TablePrinter = {
  columns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'Status of the job.' },
    { name: 'Completions', type: 'string', description: 'The number of pods which reached phase Succeeded.' },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.' },
    AGE_COLUMN,
    { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.' },
    { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.' },
    column('Selector', 1),
  ],
  cells: (job, nowMs) => [job.metadata.name ?? '', jobStatus(job), completions(job), duration(job, nowMs), ageOf(job, nowMs), ...containerCells(job.spec?.template), formatSelector(job.spec?.selector)],
};
