/**
 * Refusals that time can lift. A component answers some requests with a 4xx that describes the
 * cluster's state, not the request: PD will not delete a store while too few Up stores would
 * remain, TiCDC will not drain a capture while it is the owner or alone, TiDB cannot open a session
 * for `/upgrade/start` while PD or TiKV is unreachable. Each client names, per call, which answers are
 * such refusals (`CallOptions.temporary`); the caller then throws `RefusalError`, which the step
 * engine retries with backoff like any `TransientError`, instead of the `TerminalError` a malformed
 * request gets (a step that schedules nothing would wait for the sweep). docs/adr: answers are
 * classified per call.
 */
import { TransientError } from '../platform/errors.js';

/** A 4xx answer its call defines as a temporary refusal: retried with backoff, never repeated at once. */
export class RefusalError extends TransientError {}

/** Says which answers of one call are temporary refusals (see the module comment). */
export type RefusalRule = (status: number, text: string) => boolean;

/** A rule taking `status` answers whose body contains any of `marks` (all `status` answers when none). */
export function refusedWith(status: number, ...marks: readonly string[]): RefusalRule {
  return (answered, text) => answered === status && (marks.length === 0 || marks.some((m) => text.includes(m)));
}

/** A rule taking the answers any of `rules` takes. */
export function anyRefusal(...rules: readonly RefusalRule[]): RefusalRule {
  return (status, text) => rules.some((rule) => rule(status, text));
}
