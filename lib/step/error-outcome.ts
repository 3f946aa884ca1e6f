/**
 * The one place errors become outcomes. Adapters throw typed errors (`lib/platform/errors.ts`); the
 * engine catches them at each stage and turns them into a `fail` outcome: terminal when retrying
 * cannot help (`TerminalError`), retryable otherwise — including errors of unknown type, because a
 * retry with backoff (and in the end the sweep) is safer than dropping a step.
 */

import type { FailOutcome } from '../model/outcome.js';
import { ReconcilerError } from '../platform/errors.js';
import { fail } from '../reconcile/engine/outcome.js';

/** `Name: message` of any thrown value, for logs and outcomes. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return `thrown: ${String(err)}`;
}

/** The outcome of an error thrown while `stage` (e.g. `observe`, `update StatefulSet ns/x`) ran. */
export function outcomeForError(err: unknown, stage: string): FailOutcome {
  const terminal = err instanceof ReconcilerError && !err.retryable;
  return fail(`${stage}: ${errorText(err)}`, terminal);
}
