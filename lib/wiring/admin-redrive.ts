/**
 * The admin function's `redrive` action: the reconcile messages that failed five receives wait in
 * the dead-letter queue; `dry-run` counts them (and lists the recent move tasks), `start` moves them
 * back to the reconcile queue with one SQS message move task, `status` reports the move tasks (each
 * with SQS's approximate counts: moved so far, and how many it set out to move). `dry-run` and
 * `status` only read and are answered to any caller; `start` needs a verified caller whom Kubernetes
 * RBAC lets patch TidbClusters in every namespace (`authorizeRedrive`), and is logged with who asked.
 */

import type { AccessEntries } from '../eks/port.js';
import type { AdminInvocationEvent } from '../platform/admin-caller.js';
import { ConfigError } from '../platform/config.js';
import { isMutatingRedrive, parseRedriveRequest, type RedriveMode } from '../platform/redrive-request.js';
import type { MoveTask, DeadLetterRedrive } from '../queue/redrive.js';
import type { Requester } from '../state/port.js';
import { errorText } from '../step/error-outcome.js';
import { authorizeRedrive } from './admin-auth.js';
import { deadlineOf, type Invocation, type Runtime } from './ports.js';

/** A redrive answer: the queues, what waits in the dead-letter queue, and the move tasks (newest first). */
export type RedriveSuccess = {
  readonly ok: true;
  readonly action: 'redrive';
  readonly mode: RedriveMode;
  /** The dead-letter queue's ARN. */
  readonly source: string;
  /** The reconcile queue's ARN. */
  readonly destination: string;
  /** Messages in the dead-letter queue when asked (SQS's ApproximateNumberOfMessages). */
  readonly waiting: number;
  /** Messages of the dead-letter queue received and not yet deleted (ApproximateNumberOfMessagesNotVisible). */
  readonly inFlight: number;
  /** `start`: whether a task was started (none when nothing waits). */
  readonly started?: boolean;
  readonly tasks: readonly MoveTask[];
  readonly requestedBy?: Requester;
  readonly message?: string;
};

/** A refused or failed redrive (as the other actions' `AdminFailure`). */
export type RedriveFailure = { readonly ok: false; readonly error: string; readonly field?: string; readonly forbidden?: true };

/** What the action is built from; `getRedrive` throws `ConfigError` when the queues are not configured. */
export type RedriveDeps = { readonly getRuntime: () => Runtime; readonly getAccessEntries: () => AccessEntries; readonly getRedrive: () => DeadLetterRedrive };

/** The variables the deployed admin function finds the two queues by (serverless.yml sets them). */
export const REDRIVE_ENV = { deadLetterQueueUrl: 'RECONCILE_DLQ_URL', deadLetterQueueArn: 'RECONCILE_DLQ_ARN', destinationArn: 'RECONCILE_QUEUE_ARN' } as const;

/** The queues from `env`; throws `ConfigError` naming every variable that is not set. */
export function redriveSettings(env: Readonly<Record<string, string | undefined>>): { deadLetterQueueUrl: string; deadLetterQueueArn: string; destinationArn: string } {
  const missing = Object.values(REDRIVE_ENV).filter((name) => (env[name]?.trim() ?? '') === '');
  if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name}: not set`));
  const read = (name: string): string => env[name]?.trim() ?? '';
  return { deadLetterQueueUrl: read(REDRIVE_ENV.deadLetterQueueUrl), deadLetterQueueArn: read(REDRIVE_ENV.deadLetterQueueArn), destinationArn: read(REDRIVE_ENV.destinationArn) };
}

/** Runs one redrive request. Never throws: every failure is answered. */
export async function runRedrive(deps: RedriveDeps, event: Exclude<AdminInvocationEvent, { kind: 'url-error' }>, invocation: Invocation): Promise<RedriveSuccess | RedriveFailure> {
  const parsed = parseRedriveRequest(event.payload);
  if (!parsed.ok) return { ok: false, error: parsed.error.message, field: parsed.error.field };
  const request = parsed.request;
  if (isMutatingRedrive(request) && event.kind === 'direct') {
    return { ok: false, forbidden: true, error: 'redrive moves messages, so it needs the caller\'s verified identity: send it to the admin function URL (`tidb-reconciler admin redrive --url URL`); a direct invoke carries no caller (--dry-run and --status work either way)' };
  }
  let redrive: DeadLetterRedrive;
  let runtime: Runtime;
  try {
    redrive = deps.getRedrive();
    runtime = deps.getRuntime();
  } catch (err) {
    const what = err instanceof ConfigError ? err.problems.join('; ') : errorText(err);
    return { ok: false, error: `redrive is not configured: ${what} (the dead-letter queue's URL and ARN and the reconcile queue's ARN; serverless.yml sets them)` };
  }
  try {
    let requestedBy: Requester | undefined;
    if (isMutatingRedrive(request) && event.kind === 'url') {
      const kube = runtime.clients.withDeadline(deadlineOf(runtime, invocation)).kube;
      const auth = await authorizeRedrive({ accessEntries: deps.getAccessEntries(), kube }, event.caller);
      if (!auth.ok) {
        runtime.logger.warn('admin action refused', { action: 'redrive', caller: event.caller.arn, error: auth.error });
        return { ok: false, error: auth.error, forbidden: true };
      }
      requestedBy = { arn: auth.requester.arn, username: auth.requester.username };
    }
    const { waiting, inFlight } = await redrive.counts();
    const base = { ok: true as const, action: 'redrive' as const, mode: request.mode, source: redrive.sourceArn, destination: redrive.destinationArn, waiting, inFlight, ...(requestedBy ? { requestedBy } : {}) };
    if (request.mode !== 'start') return { ...base, tasks: await redrive.tasks() };
    if (waiting === 0) return { ...base, started: false, tasks: await redrive.tasks(), message: `nothing waits in the dead-letter queue${inFlight > 0 ? ` (${inFlight} in flight: received by someone and not deleted; they become visible again when their visibility timeout ends)` : ''}: no task started` };
    await redrive.start(request.maxPerSecond);
    runtime.logger.info('dead-letter redrive started', { source: redrive.sourceArn, destination: redrive.destinationArn, waiting, requestedBy });
    return { ...base, started: true, tasks: await redrive.tasks() };
  } catch (err) {
    runtime.logger.error('admin action failed', { action: 'redrive', mode: request.mode, error: errorText(err) });
    return { ok: false, error: `redrive ${request.mode} failed: ${errorText(err)}` };
  } finally {
    runtime.metrics.flush();
  }
}
