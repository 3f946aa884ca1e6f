/**
 * `tidb-reconciler admin <action> <namespace>/<name>`: one admin request to a deployed stack's admin
 * Lambda or to the local stack, its answer printed as text (`--json`: as the function answered).
 * Exit 0 when the answer is ok, 1 when it is `ok: false` or no answer came (function error, call
 * failed), 2 for a usage error naming the argument or field.
 */
import { ADMIN_HELP, parseAdminArgs } from './admin-args.js';
import { DEFAULT_LAYOUT, formatAdminAnswer, utcTimeFormat } from '../local/admin-format.js';
import { invokeAdmin } from './admin-invoke.js';
import { runRedriveCommand } from './admin-redrive.js';

export { ADMIN_HELP };

/** Where the command prints (stdout and stderr by default) and the environment it reads (AWS_REGION). */
export type AdminCommandIo = {
  readonly env: NodeJS.ProcessEnv;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** The terminal's width, when stdout is one; tables are cut to it (else to 120 columns). */
  readonly columns?: number;
};

const PROCESS_IO: AdminCommandIo = { env: process.env, out: (t) => console.log(t), err: (t) => console.error(t), ...(process.stdout.columns ? { columns: process.stdout.columns } : {}) };

/** Runs `admin` with the arguments after the command name; resolves to the exit code. */
export async function runAdminCommand(args: string[], io: AdminCommandIo = PROCESS_IO): Promise<number> {
  const parsed = parseAdminArgs(args, io.env);
  if (!parsed.ok) {
    io.err(`tidb-reconciler admin: ${parsed.error} [${parsed.field}]\n(usage: tidb-reconciler admin <action> <namespace>/<name> [options]; see --help)`);
    return 2;
  }
  const command = parsed.command;
  if (command.request.action === 'redrive') return runRedriveCommand({ ...command, request: command.request }, io);
  const { target, json, wide, timeoutMs } = command;
  const request = command.request;
  const outcome = await invokeAdmin(target, request, timeoutMs);
  switch (outcome.kind) {
    case 'answer': {
      const ok = (outcome.answer as { ok?: unknown } | null)?.ok === true;
      const text = json ? JSON.stringify(outcome.answer, null, 2) : formatAdminAnswer(outcome.answer, utcTimeFormat(Date.now()), { wide, width: io.columns ?? DEFAULT_LAYOUT.width });
      if (ok || json) io.out(text);
      else io.err(text);
      return ok ? 0 : 1;
    }
    case 'function-error':
      io.err(`tidb-reconciler admin: the admin function failed (${outcome.errorKind}): ${outcome.errorType}: ${outcome.errorMessage}`);
      return 1;
    case 'call-failed':
      io.err(`tidb-reconciler admin: ${outcome.error}`);
      return 1;
    default: {
      const never: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}
