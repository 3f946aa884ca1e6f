/**
 * Answers of the simulated TiDB processes, shaped like the real servers' wire format: PD renders
 * JSON indented with a trailing newline (unrolled/render), uint64 IDs go out as raw digits (so a
 * client needs a lossless parser, as with real PD), and `http.Error` bodies are plain text.
 */
import { isLosslessNumber, parse, stringify } from 'lossless-json';
import type { ProxyRequest, ProxyResponse } from '../proxy.js';

/** A JSON answer. `bigint` values are written as raw digits (uint64 IDs above 2^53). */
export function json(status: number, body: unknown): ProxyResponse {
  return { status, body: `${stringify(body, null, 2) ?? 'null'}\n`, contentType: 'application/json; charset=UTF-8' };
}

/** A plain-text answer as Go's `http.Error` writes it (message plus newline). */
export function text(status: number, body: string, newline = true): ProxyResponse {
  return { status, body: newline ? `${body}\n` : body, contentType: 'text/plain; charset=utf-8' };
}

/** What Go's mux answers for an unknown path. */
export function notFoundPage(): ProxyResponse {
  return text(404, '404 page not found');
}

/**
 * Parses a request body losslessly: numbers become LosslessNumber, so a uint64 store or member ID
 * sent by a client keeps every digit. Undefined when the body is not JSON.
 */
export function parseBody(req: ProxyRequest): unknown {
  if (req.body.trim() === '') return undefined;
  try {
    return parse(req.body);
  } catch {
    return undefined;
  }
}

/** A JSON object body as a record, or undefined. */
export function objectBody(req: ProxyRequest): Record<string, unknown> | undefined {
  const body = parseBody(req);
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** The decimal digits of a JSON integer (lossless), or undefined when the value is not an unsigned integer. */
export function uintDigits(value: unknown): string | undefined {
  const raw = isLosslessNumber(value) ? value.value : typeof value === 'number' ? String(value) : undefined;
  return raw !== undefined && /^\d+$/.test(raw) ? normalizeUint(raw) : undefined;
}

/** `007` → `7`; keeps `0`. */
export function normalizeUint(digits: string): string {
  const trimmed = digits.replace(/^0+/, '');
  return trimmed === '' ? '0' : trimmed;
}

/** Parses a path segment as a uint64 the way Go's strconv.ParseUint does, or returns the Go error text. */
export function parseUint64(segment: string): { value: string } | { error: string } {
  if (!/^\d+$/.test(segment)) return { error: `strconv.ParseUint: parsing "${segment}": invalid syntax` };
  const value = normalizeUint(segment);
  if (BigInt(value) > 0xffffffffffffffffn) return { error: `strconv.ParseUint: parsing "${segment}": value out of range` };
  return { value };
}

/** A JSON-serialisable uint64 from decimal digits (written as raw digits). */
export function uint64(digits: string): bigint {
  return BigInt(digits);
}

/** RFC 3339 with nanoseconds, as Go's time.Time marshals. */
export function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/** A Go duration string (`1h2m3s`, `30m0s`, `0s`) for whole milliseconds. */
export function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  const totalSeconds = ms / 1000;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = Math.round((totalSeconds % 60) * 1000) / 1000;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** Parses a Go duration (`30m`, `1h30m`, `90s`, `500ms`) into milliseconds, or undefined. */
export function parseGoDuration(value: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const match of value.matchAll(re)) {
    const unit = match[2];
    const n = Number(match[1]);
    total += unit === 'h' ? n * 3_600_000 : unit === 'm' ? n * 60_000 : unit === 's' ? n * 1000 : n;
    consumed += match[0].length;
  }
  return consumed > 0 && consumed === value.length ? total : undefined;
}
