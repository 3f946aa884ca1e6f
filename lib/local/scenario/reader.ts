/**
 * Reading typed fields out of a parsed YAML value, one field path at a time. A reader either
 * returns a value of the promised type or throws `FieldError` naming the path and what is wrong,
 * in words a YAML author knows (mapping, list, duration).
 */
import { parseDuration } from '../../platform/duration.js';
import type { JsonObject, JsonValue } from './types.js';

/** A path into the file: mapping keys and list indexes, e.g. `['timeline', 3, 'fault', 'kind']`. */
export type FieldPath = readonly (string | number)[];

/** A mapping as YAML gives it. */
export type Mapping = Readonly<Record<string, unknown>>;

/**
 * One problem with the file. `path` is what the message names; `at` (default `path`) is where the
 * line number is looked up, when that is more precise (the key of an unknown verb, say).
 */
export class FieldError extends Error {
  constructor(
    readonly path: FieldPath,
    message: string,
    readonly at: FieldPath = path,
  ) {
    super(message);
    this.name = 'FieldError';
  }
}

/** Formats a path as users write it: `timeline[3].fault.kind`, `annotate["tidb.pingcap.com/x"]`. */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Names a value's YAML type for a message: `a string`, `a number`, `a list`, `a mapping`, `null`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return `a ${typeof value}`;
}

/** Whether `value` is a mapping (not a list, not null). */
export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as a mapping; `what` says what was expected, e.g. `a mapping {kind, pod}`. */
export function expectMapping(value: unknown, path: FieldPath, what = 'a mapping'): Mapping {
  if (!isMapping(value)) throw new FieldError(path, `expected ${what}, got ${describeValue(value)}`);
  return value;
}

/** Throws on the first key of `map` not in `allowed`, listing what is allowed. */
export function rejectUnknownFields(map: Mapping, path: FieldPath, allowed: readonly string[], what = ''): void {
  const unknown = Object.keys(map).find((key) => !allowed.includes(key));
  if (unknown === undefined) return;
  const suffix = what === '' ? '' : ` ${what}`;
  throw new FieldError([...path, unknown], `unknown field${suffix} (expected one of: ${allowed.join(', ')})`);
}

/** `map[key]`, which must be present. */
export function required(map: Mapping, key: string, path: FieldPath): unknown {
  if (!(key in map)) throw new FieldError([...path, key], 'required field is missing');
  return map[key];
}

/** `value` as a non-empty string without surrounding spaces. */
export function readString(value: unknown, path: FieldPath): string {
  if (typeof value !== 'string') throw new FieldError(path, `expected a string, got ${describeValue(value)}`);
  if (value.trim() === '') throw new FieldError(path, 'must not be empty');
  if (value.trim() !== value) throw new FieldError(path, `${JSON.stringify(value)} has leading or trailing spaces`);
  return value;
}

/** `value` as a boolean (YAML `true`/`false`, not a string). */
export function readBoolean(value: unknown, path: FieldPath): boolean {
  if (typeof value !== 'boolean') throw new FieldError(path, `expected true or false, got ${describeValue(value)}`);
  return value;
}

/** `value` as a whole number in `[min, max]`. */
export function readInteger(value: unknown, path: FieldPath, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new FieldError(path, `expected a whole number, got ${describeValue(value)}`);
  }
  if (value < min || value > max) throw new FieldError(path, `${value} is out of range (${rangeText(min, max)})`);
  return value;
}

/** `value` as a number in `[min, max]`. */
export function readNumber(value: unknown, path: FieldPath, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new FieldError(path, `expected a number, got ${describeValue(value)}`);
  }
  if (value < min || value > max) throw new FieldError(path, `${value} is out of range (${min} to ${max})`);
  return value;
}

/** `value` (a string such as `90s` or `1h30m`) in milliseconds; more than 0 when `positive`. */
export function readDuration(value: unknown, path: FieldPath, positive = false): number {
  if (typeof value !== 'string') {
    const shown = typeof value === 'number' ? String(value) : describeValue(value);
    throw new FieldError(path, `invalid duration ${shown}: use a number with a unit, e.g. 250ms, 90s, 5m, 1h30m`);
  }
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new FieldError(path, err instanceof Error ? err.message : String(err));
  }
  if (positive && ms <= 0) throw new FieldError(path, `duration "${value}" must be more than 0`);
  return ms;
}

/** `value` as one of `options`; `what` names the thing in the message, e.g. `fault kind`. */
export function readOneOf<T extends string>(value: unknown, path: FieldPath, options: readonly T[], what: string): T {
  if (typeof value === 'string' && (options as readonly string[]).includes(value)) return value as T;
  const shown = typeof value === 'string' ? JSON.stringify(value) : describeValue(value);
  throw new FieldError(path, `unknown ${what} ${shown} (expected one of: ${options.join(', ')})`);
}

/** `value` as a JSON value: plain mappings, lists, strings, finite numbers, booleans, null. */
export function readJson(value: unknown, path: FieldPath): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new FieldError(path, `${String(value)} is not a JSON number`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item, i) => readJson(item, [...path, i]));
  if (isMapping(value) && Object.getPrototypeOf(value) === Object.prototype) return readJsonObject(value, path);
  throw new FieldError(path, `expected a JSON value, got ${describeValue(value)}`);
}

/** `value` as a JSON object (a mapping whose values are all JSON values). */
export function readJsonObject(value: unknown, path: FieldPath, what = 'a mapping'): JsonObject {
  const map = expectMapping(value, path, what);
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(map)) out[key] = readJson(item, [...path, key]);
  return out;
}

function rangeText(min: number, max: number): string {
  return max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `${min} to ${max}`;
}
