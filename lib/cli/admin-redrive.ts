/**
 * `tidb-reconciler admin redrive`: sends the redrive request (admin-redrive.ts of the admin function)
 * and prints its answer — what waits in the dead-letter queue and each move task with SQS's
 * approximate counts ("moved 3 of 3"). With `--wait`, after starting it asks for the tasks again
 * every `pollMs` until the task it started has ended or the time limit is spent, printing each
 * change of its counts. Exit 0: the answer is ok (with --wait: the task COMPLETED); 1 otherwise.
 */
import type { AdminCommand } from './admin-args.js';
import { invokeAdmin, type InvokeOutcome } from './admin-invoke.js';
import type { AdminCommandIo } from './admin.js';
import type { RedriveRequest } from '../platform/redrive-request.js';
import type { MoveTask } from '../queue/redrive.js';
import type { RedriveSuccess } from '../wiring/admin-redrive.js';

/** How often `--wait` asks for the task's progress (SQS moves messages in the background). */
export const REDRIVE_POLL_MS = 1000;

/** Runs a parsed redrive command; resolves to the exit code. `pollMs` is for tests. */
export async function runRedriveCommand(command: AdminCommand & { readonly request: RedriveRequest }, io: AdminCommandIo, pollMs = REDRIVE_POLL_MS): Promise<number> {
  const deadlineMs = Date.now() + command.timeoutMs;
  const first = answerOf(await invokeAdmin(command.target, command.request, command.timeoutMs), io);
  if (first === undefined) return 1;
  if (command.json) io.out(JSON.stringify(first, null, 2));
  else io.out(formatRedrive(first));
  if (!command.wait || first.started !== true) return 0;
  let last = first.tasks[0];
  for (;;) {
    if (last === undefined) return fail(io, 'the started move task is not listed by ListMessageMoveTasks');
    if (last.status !== 'RUNNING') return last.status === 'COMPLETED' ? 0 : 1;
    const leftMs = deadlineMs - Date.now();
    if (leftMs <= 0) return fail(io, `the move task still runs after ${Math.round(command.timeoutMs / 1000)}s (${progress(last)}); follow it with: tidb-reconciler admin redrive --status`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, leftMs)));
    const answer = answerOf(await invokeAdmin(command.target, { action: 'redrive', mode: 'status' }, Math.max(1000, deadlineMs - Date.now())), io);
    if (answer === undefined) return 1;
    const task = answer.tasks.find((t) => t.startedAtMs === last?.startedAtMs) ?? answer.tasks[0];
    if (task !== undefined && (task.status !== last.status || task.approximateMoved !== last.approximateMoved)) io.out(command.json ? JSON.stringify(task) : `${task.status}: ${progress(task)}`);
    last = task;
  }
}

/** A redrive answer as text: the queues, what waits, what was done, and the recent move tasks. */
export function formatRedrive(a: RedriveSuccess): string {
  const lines = [`dead-letter queue ${a.source}`, `  → reconcile queue ${a.destination}`, `waiting: ${count(a.waiting)} (${a.inFlight} in flight), as SQS approximates`];
  if (a.mode === 'dry-run') lines.push(a.waiting === 0 ? 'dry run: nothing to redrive' : `dry run: a redrive would move ${count(a.waiting)} back to the reconcile queue; nothing was moved`);
  if (a.mode === 'start') lines.push(a.started === true ? `redrive started${a.requestedBy ? ` by ${a.requestedBy.arn}` : ''}: ${a.tasks[0] ? progress(a.tasks[0]) : 'task not listed yet'}` : `no redrive started: ${a.message ?? 'nothing waits'}`);
  if (a.tasks.length > 0) {
    lines.push('move tasks (newest first):');
    for (const t of a.tasks) lines.push(`  ${new Date(t.startedAtMs).toISOString().slice(0, 19).replace('T', ' ')}Z  ${t.status.padEnd(10)} ${progress(t)}${t.failureReason ? `  failure: ${t.failureReason}` : ''}`);
  } else if (a.mode !== 'start') lines.push('move tasks: none');
  return lines.join('\n');
}

/** "moved 2 of 3" as SQS reports it (the total is what the source held when the task started). */
function progress(t: MoveTask): string {
  return `moved ${t.approximateMoved} of ${t.approximateToMove ?? '?'}`;
}

function count(n: number): string {
  return `${n} message${n === 1 ? '' : 's'}`;
}

/** The redrive answer, or undefined after printing why there is none. */
function answerOf(outcome: InvokeOutcome, io: AdminCommandIo): RedriveSuccess | undefined {
  switch (outcome.kind) {
    case 'answer': {
      const a = outcome.answer as { ok?: unknown; action?: unknown; error?: unknown; field?: unknown } | null;
      if (a?.ok === true && a.action === 'redrive') return a as unknown as RedriveSuccess;
      io.err(`tidb-reconciler admin redrive: ${String(a?.error ?? JSON.stringify(outcome.answer))}${a?.field ? ` (field: ${String(a.field)})` : ''}`);
      return undefined;
    }
    case 'function-error':
      io.err(`tidb-reconciler admin redrive: the admin function failed (${outcome.errorKind}): ${outcome.errorType}: ${outcome.errorMessage}`);
      return undefined;
    case 'call-failed':
      io.err(`tidb-reconciler admin redrive: ${outcome.error}`);
      return undefined;
    default: {
      const never: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}

function fail(io: AdminCommandIo, message: string): number {
  io.err(`tidb-reconciler admin redrive: ${message}`);
  return 1;
}
