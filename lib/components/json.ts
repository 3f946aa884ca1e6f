/**
 * Lossless JSON for the TiDB components' HTTP APIs. PD member ids and cluster ids are uint64 and
 * routinely exceed 2^53, so `JSON.parse` would silently change them; every number is parsed as a
 * `LosslessNumber` and each reader converts it explicitly: ids to decimal strings, counts to numbers.
 * Readers are lenient about missing fields (older versions omit some) but strict about ids.
 */
import { LosslessNumber, isLosslessNumber, stringify } from 'lossless-json';
import { quoteForEcho } from '../model/echo.js';
import { TerminalError, TransientError } from '../platform/errors.js';

/**
 * `JSON.parse`'s reviver, given each number's source text (node 22's JSON.parse source access):
 * every number becomes a `LosslessNumber` of its digits. A runtime that gives no source text is
 * refused rather than trusted: its doubles would round the ids silently.
 */
export function keepDigits(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number') return value;
  if (context?.source === undefined) throw new TerminalError('JSON.parse gives no number source text on this runtime (node 22 or later is needed): PD ids would lose digits', { field: 'runtime' });
  return new LosslessNumber(context.source);
}

/**
 * Parses `text` keeping every number's digits; malformed JSON is a `TransientError` naming `what`.
 * The engine's parser with a reviver that sees each number's source text: lossless-json's own
 * parser, written in JavaScript, took three times as long and allocated a string per character.
 */
export function parseLossless(text: string, what: string): unknown {
  try {
    return JSON.parse(text, keepDigits);
  } catch (err) {
    if (err instanceof TerminalError) throw err;
    throw new TransientError(`${what}: the answer is not JSON: ${text.slice(0, 200)}`, { cause: err });
  }
}

/** Serialises a request body; `LosslessNumber`s (see `idNumber`) are written digit for digit. */
export function stringifyLossless(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** A decimal id string checked for use in a URL or as a JSON number; anything else is refused. */
export function checkId(id: string, what: string): string {
  if (!/^\d{1,20}$/.test(id)) throw new TerminalError(`${what}: ${quoteForEcho(id)} is not a decimal id`, { field: 'id' });
  return id;
}

/** An id as a JSON number literal in a request body, without passing through a double. */
export function idNumber(id: string, what: string): LosslessNumber {
  return new LosslessNumber(checkId(id, what));
}

/** The object at `v`, or an empty one. */
export function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v) ? (v as Record<string, unknown>) : {};
}

/** The array at `v`, or an empty one. */
export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A string field; numbers become their digits, anything else ''. */
export function asString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (isLosslessNumber(v)) return v.toString();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

/** A numeric field (counts, sizes): safe to hold in a double. Missing or malformed is 0. */
export function asNumber(v: unknown): number {
  const n = isLosslessNumber(v) ? Number(v.toString()) : typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

/** A boolean field; PD writes some as the strings "true"/"false". */
export function asBoolean(v: unknown): boolean {
  return v === true || v === 'true';
}

/** A list of strings; PD writes some lists as one comma-separated string. */
export function asStringList(v: unknown): string[] {
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return asArray(v).map(asString).filter((s) => s !== '');
}

/** A uint64 id as its exact decimal string; a missing or non-integer id means the answer is not what we expect. */
export function asId(v: unknown, what: string): string {
  const s = isLosslessNumber(v) ? v.toString() : typeof v === 'string' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : '';
  if (!/^\d+$/.test(s)) throw new TransientError(`${what}: expected a numeric id, got ${quoteForEcho(asString(v))}`);
  return s;
}
