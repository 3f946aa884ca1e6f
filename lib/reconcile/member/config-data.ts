/**
 * ConfigMap building blocks shared by the component rules, as TiDB Operator v1's
 * `pkg/manager/utils/config.go`: a component's `config` (TOML text or a map) rendered to TOML,
 * compared semantically (key order and formatting never count as a change), and the content-hash
 * name suffix of the `RollingUpdate` config update strategy.
 */

import { createHash } from 'node:crypto';

import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';

import { jsonEqual } from '../engine/equal.js';

/** A ConfigMap's `data`. */
export type ConfigData = Readonly<Record<string, string>>;

/** A parsed TOML document as plain JSON values (dates as RFC 3339 text, big integers as text). */
export type TomlValue = string | number | boolean | null | TomlValue[] | { [key: string]: TomlValue };

function plain(value: unknown): TomlValue {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}

/** The TOML text parsed to plain values, or undefined when it is not valid TOML. */
export function parseTomlText(text: string): { [key: string]: TomlValue } | undefined {
  try {
    const parsed = plain(parseToml(text));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A component `config` as TOML text: a string is kept verbatim, a map is rendered, nothing is the
 * empty document. `overlay` (operator-injected keys, by dotted path) is merged in; a string config
 * is re-rendered only when there is something to merge.
 */
export function renderConfig(config: unknown, overlay: Readonly<Record<string, TomlValue>> = {}): string {
  const entries = Object.entries(overlay);
  if (typeof config === 'string' && entries.length === 0) return config;
  const base = typeof config === 'string' ? (parseTomlText(config) ?? {}) : plain(config ?? {});
  const doc: { [key: string]: TomlValue } = typeof base === 'object' && base !== null && !Array.isArray(base) ? { ...base } : {};
  for (const [path, value] of entries) setPath(doc, path.split('.'), value);
  return Object.keys(doc).length === 0 ? '' : stringifyToml(doc);
}

function setPath(doc: { [key: string]: TomlValue }, path: readonly string[], value: TomlValue): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    doc[head] = value;
    return;
  }
  const current = doc[head];
  const child = typeof current === 'object' && current !== null && !Array.isArray(current) ? { ...current } : {};
  setPath(child, rest, value);
  doc[head] = child;
}

/**
 * As TiDB Operator's `toml.Equal`: two TOML texts are equal when they parse to the same values.
 * Texts that do not parse are equal only when identical.
 */
export function isTomlEqual(a: string, b: string): boolean {
  if (a === b) return true;
  const pa = parseTomlText(a);
  const pb = parseTomlText(b);
  return pa !== undefined && pb !== undefined && jsonEqual(pa, pb);
}

/**
 * Whether `current` already says what `desired` says: TOML keys (`tomlKeys`) compared semantically,
 * every other key textually, no key missing or extra.
 */
export function isConfigDataEqual(desired: ConfigData, current: ConfigData | undefined, tomlKeys: readonly string[]): boolean {
  if (!current) return false;
  const keys = new Set([...Object.keys(desired), ...Object.keys(current)]);
  for (const key of keys) {
    const a = desired[key];
    const b = current[key];
    if (a === undefined || b === undefined) return false;
    if (tomlKeys.includes(key) ? !isTomlEqual(a, b) : a !== b) return false;
  }
  return true;
}

/**
 * Go's `json.Marshal` of a string map: keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped — so the
 * content hash matches TiDB Operator's for the same data.
 */
export function goJsonOfStringMap(data: ConfigData): string {
  const sorted = Object.fromEntries(Object.keys(data).sort().map((k) => [k, data[k] ?? '']));
  return JSON.stringify(sorted)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** As TiDB Operator's `AddConfigMapDigestSuffix`: the first 7 hex digits of sha256(json(data)). */
export function configDataDigest(data: ConfigData): string {
  return createHash('sha256').update(goJsonOfStringMap(data)).digest('hex').slice(0, 7);
}
