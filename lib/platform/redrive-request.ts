/**
 * The admin function's `redrive` request: `{"action": "redrive", "mode": "dry-run" | "start" |
 * "status", "maxPerSecond"?: 1–500}`. It names no TidbCluster: the dead-letter queue holds messages
 * of any cluster. Validation is pure and strict (unknown fields are rejected); every rejection names
 * the field.
 */

import type { AdminRequestError } from './admin-request.js';

/** What a redrive request asks: count what waits, start moving it back, or report the move tasks. */
export const REDRIVE_MODES = ['dry-run', 'start', 'status'] as const;

/** One of `REDRIVE_MODES`. */
export type RedriveMode = (typeof REDRIVE_MODES)[number];

/** SQS's bounds of a move task's `MaxNumberOfMessagesPerSecond`. */
export const MAX_REDRIVE_PER_SECOND = 500;

/** A validated redrive request. */
export type RedriveRequest = { readonly action: 'redrive'; readonly mode: RedriveMode; readonly maxPerSecond?: number };

/** The result of validating one redrive request. */
export type ParseRedriveRequestResult = { readonly ok: true; readonly request: RedriveRequest } | { readonly ok: false; readonly error: AdminRequestError };

/** Whether `input` asks for the redrive action (then `parseRedriveRequest` validates it, not `parseAdminRequest`). */
export function isRedrivePayload(input: unknown): boolean {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && (input as Record<string, unknown>)['action'] === 'redrive';
}

/** Only `start` moves messages, so only `start` changes anything (and needs an authorised caller). */
export function isMutatingRedrive(request: RedriveRequest): boolean {
  return request.mode === 'start';
}

/** Validates a redrive payload. Never throws; on failure the error names the first bad field. */
export function parseRedriveRequest(input: unknown): ParseRedriveRequestResult {
  if (!isRedrivePayload(input)) return fail('action', 'action must be redrive');
  const record = input as Record<string, unknown>;
  const unknown = Object.keys(record).find((k) => !['action', 'mode', 'maxPerSecond'].includes(k));
  if (unknown !== undefined) {
    const hint = unknown === 'cluster' ? ': the dead-letter queue holds messages of every cluster, so redrive names none' : '';
    return fail(unknown.slice(0, 64), `"${unknown.slice(0, 64)}" is not a field of the redrive action${hint}`);
  }
  const mode = record['mode'];
  if (mode === undefined) return fail('mode', `mode is missing (one of ${REDRIVE_MODES.join(', ')})`);
  if (typeof mode !== 'string' || !(REDRIVE_MODES as readonly string[]).includes(mode)) return fail('mode', `mode must be one of ${REDRIVE_MODES.join(', ')}, got ${JSON.stringify(mode)?.slice(0, 64)}`);
  const rate = record['maxPerSecond'];
  if (rate === undefined) return { ok: true, request: { action: 'redrive', mode: mode as RedriveMode } };
  if (mode !== 'start') return fail('maxPerSecond', 'maxPerSecond is for mode start only');
  if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 1 || rate > MAX_REDRIVE_PER_SECOND) {
    return fail('maxPerSecond', `maxPerSecond must be a whole number from 1 to ${MAX_REDRIVE_PER_SECOND}, got ${JSON.stringify(rate)?.slice(0, 64)}`);
  }
  return { ok: true, request: { action: 'redrive', mode: 'start', maxPerSecond: rate } };
}

function fail(field: string, message: string): ParseRedriveRequestResult {
  return { ok: false, error: { field, message } };
}
