/**
 * A scenario's `expect:` section: bounds the run must stay within besides its `waitFor`s and the
 * world's invariants. `expect.requests` bounds the requests the run made (the report's `requests`),
 * per target, as a total, per virtual hour, or per TidbCluster and virtual hour, counted over the
 * whole run or from the start of one timeline entry (`since`), to the end or to the start of a
 * later one (`until`):
 *
 *   expect:
 *     requests:
 *       since: 1                             # from the start of timeline[1] (default 0: the whole run)
 *       until: 3                             # to the start of timeline[3] (default: the end of the run)
 *       apiServerPerClusterHour: {max: 300}  # <target>, <target>PerHour, <target>PerClusterHour: {min, max}
 *       exporterPerHour: {max: 60}
 *
 * A bound that does not hold is a violation of the invariant `expected-requests`, which fails the run.
 */
import { REQUEST_TARGETS, type RequestCounts, type RequestTarget } from '../request-counts.js';
import { expectMapping, FieldError, type FieldPath, readInteger, readNumber, rejectUnknownFields } from './reader.js';

/** How a count is scaled before it is compared. */
export type RequestScale = 'total' | 'perHour' | 'perClusterHour';

/** One bound: the count of `target`, scaled, within [min, max] (either may be absent, not both). */
export type RequestBound = { readonly target: RequestTarget; readonly scale: RequestScale; readonly min?: number; readonly max?: number };

/** `expect.requests`: bounds on the requests counted from the start of timeline entry `since` (to that of `until`, or the end). */
export type RequestExpectation = { readonly since: number; readonly until?: number; readonly bounds: readonly RequestBound[] };

/** The `expect:` section. */
export type ScenarioExpect = { readonly requests?: RequestExpectation };

/** The name of the invariant an unmet expectation violates. */
export const EXPECTED_REQUESTS = 'expected-requests';

const SUFFIXES: readonly (readonly [string, RequestScale])[] = [
  ['', 'total'],
  ['PerHour', 'perHour'],
  ['PerClusterHour', 'perClusterHour'],
];

/** Every key `expect.requests` takes: `since` and each target with each suffix. */
export const REQUEST_EXPECT_FIELDS: readonly string[] = ['since', 'until', ...SUFFIXES.flatMap(([suffix]) => REQUEST_TARGETS.map((t) => `${t}${suffix}`))];

/** Reads `expect:` (absent: none); `timelineLength` bounds `since`. Throws `FieldError` naming the field. */
export function readExpect(raw: unknown, timelineLength: number): ScenarioExpect | undefined {
  if (raw === undefined || raw === null) return undefined;
  const map = expectMapping(raw, ['expect'], 'a mapping {requests}');
  rejectUnknownFields(map, ['expect'], ['requests']);
  return 'requests' in map ? { requests: readRequests(map['requests'], ['expect', 'requests'], timelineLength) } : {};
}

function readRequests(raw: unknown, path: FieldPath, timelineLength: number): RequestExpectation {
  const map = expectMapping(raw, path, `a mapping of bounds such as {apiServerPerClusterHour: {max: 20}}`);
  rejectUnknownFields(map, path, REQUEST_EXPECT_FIELDS);
  const since = 'since' in map ? readInteger(map['since'], [...path, 'since'], 0, Math.max(0, timelineLength - 1)) : 0;
  // A later entry than `since`: the window is at least one entry long.
  const until = 'until' in map ? readInteger(map['until'], [...path, 'until'], since + 1, Math.max(since + 1, timelineLength - 1)) : undefined;
  const bounds: RequestBound[] = [];
  for (const [key, value] of Object.entries(map)) {
    if (key === 'since' || key === 'until') continue;
    const [target, scale] = parseKey(key);
    bounds.push({ target, scale, ...readBound(value, [...path, key]) });
  }
  if (bounds.length === 0) throw new FieldError(path, `expected at least one bound (one of ${REQUEST_EXPECT_FIELDS.slice(2, 5).join(', ')}, …)`);
  return { since, ...(until === undefined ? {} : { until }), bounds };
}

function parseKey(key: string): [RequestTarget, RequestScale] {
  // Longest suffix first: `apiServerPerClusterHour` is not `apiServerPerCluster` + `Hour`.
  for (const [suffix, scale] of [...SUFFIXES].reverse()) {
    const target = REQUEST_TARGETS.find((t) => `${t}${suffix}` === key);
    if (target !== undefined) return [target, scale];
  }
  throw new Error(`unchecked request bound ${key}`);
}

function readBound(raw: unknown, path: FieldPath): { min?: number; max?: number } {
  const map = expectMapping(raw, path, 'a mapping {min, max}');
  rejectUnknownFields(map, path, ['min', 'max']);
  const min = 'min' in map ? readNumber(map['min'], [...path, 'min'], 0, Number.MAX_SAFE_INTEGER) : undefined;
  const max = 'max' in map ? readNumber(map['max'], [...path, 'max'], 0, Number.MAX_SAFE_INTEGER) : undefined;
  if (min === undefined && max === undefined) throw new FieldError(path, 'expected min, max or both');
  if (min !== undefined && max !== undefined && min > max) throw new FieldError([...path, 'min'], `min ${min} is above max ${max}`);
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}

/** What the counts of a window are measured against: its virtual length and the clusters it ran. */
export type RequestWindow = { readonly counts: RequestCounts; readonly virtualMs: number; readonly clusters: number; readonly since: number; readonly until?: number };

const HOUR_MS = 3_600_000;

/** The value `bound` compares: the count, per hour, or per cluster-hour (an empty window's rate is 0 without requests, else infinite). */
export function scaledCount(bound: Pick<RequestBound, 'target' | 'scale'>, window: RequestWindow): number {
  const count = window.counts[bound.target];
  const units = bound.scale === 'total' ? 1 : (window.virtualMs / HOUR_MS) * (bound.scale === 'perClusterHour' ? window.clusters : 1);
  if (units > 0) return count / units;
  return count === 0 ? 0 : Number.POSITIVE_INFINITY;
}

/** One message per bound of `expectation` the window breaks (none when every bound holds). */
export function unmetRequestBounds(expectation: RequestExpectation, window: RequestWindow): string[] {
  const out: string[] = [];
  for (const bound of expectation.bounds) {
    const value = scaledCount(bound, window);
    const below = bound.min !== undefined && value < bound.min;
    const above = bound.max !== undefined && value > bound.max;
    if (!below && !above) continue;
    const name = `${bound.target}${SUFFIXES.find(([, s]) => s === bound.scale)?.[0] ?? ''}`;
    const hours = (window.virtualMs / HOUR_MS).toFixed(2);
    const over = `${window.counts[bound.target]} requests over ${hours} h × ${window.clusters} cluster(s) since timeline[${window.since}]${window.until === undefined ? '' : ` until timeline[${window.until}]`}`;
    out.push(`${name} ${round(value)} (${over}) is ${above ? `above max ${bound.max}` : `below min ${bound.min}`}`);
  }
  return out;
}

function round(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : 'unbounded';
}
