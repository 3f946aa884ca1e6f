/**
 * Go's `time.ParseDuration` and `time.Duration.String`, exactly (Go's src/time/format.go): a
 * possibly signed sequence of decimal numbers, each with an optional fraction and a unit suffix
 * (`ns`, `us`/`µs`/`μs`, `ms`, `s`, `m`, `h`), "0" alone allowed; anything else — no unit, an
 * unknown unit, an empty string, more than int64 nanoseconds — is `time: invalid duration "<s>"`,
 * `time: missing unit in duration "<s>"` or `time: unknown unit "<u>" in duration "<s>"`, the
 * messages the backup-manager copies into a Backup's condition. Values are nanoseconds as bigint
 * (int64 in Go: 72h is 2.6e14 ns, past what a double holds exactly at the top of the range).
 */

/** A duration string Go refuses: the message is Go's error text. */
export class GoDurationError extends Error {
  override readonly name = 'GoDurationError';
}

const UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_INT64 = (1n << 63n) - 1n;
const SECOND = 1_000_000_000n;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;

/** Nanoseconds in a millisecond. */
export const NS_PER_MS = 1_000_000n;

/** `time.ParseDuration(s)` in nanoseconds; throws `GoDurationError` with Go's message. */
export function parseGoDuration(s: string): bigint {
  const quoted = goQuote(s);
  const invalid = (): GoDurationError => new GoDurationError(`time: invalid duration ${quoted}`);
  let rest = s;
  let neg = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    neg = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw invalid();
  let total = 0n;
  while (rest !== '') {
    const m = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = m?.[1] ?? '';
    const frac = m?.[2];
    // A number needs digits before or after the dot (".s" and "s" are invalid).
    if (whole === '' && (frac === undefined || frac === '')) throw invalid();
    rest = rest.slice(m?.[0].length ?? 0);
    const unitMatch = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unitMatch === '') throw new GoDurationError(`time: missing unit in duration ${quoted}`);
    const unit = UNITS[unitMatch];
    if (unit === undefined) throw new GoDurationError(`time: unknown unit ${goQuote(unitMatch)} in duration ${quoted}`);
    rest = rest.slice(unitMatch.length);
    let v = BigInt(whole === '' ? '0' : whole) * unit;
    if (frac !== undefined && frac !== '') {
      // As Go: uint64(float64(f) * (float64(unit) / scale)) — float arithmetic, truncated.
      v += BigInt(Math.trunc(Number(frac) * (Number(unit) / 10 ** frac.length)));
    }
    total += v;
    if (total > MAX_INT64 + (neg ? 1n : 0n)) throw invalid();
  }
  return neg ? -total : total;
}

/** `time.Duration(ns).String()`: `0s`, `1.5s`, `10m0s`, `72h0m0s`, `500ms`, `-1m30s`. */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  const u = neg ? -ns : ns;
  let out: string;
  if (u < SECOND) {
    // Under a second: the largest of ns, µs, ms that keeps a whole part, with a trimmed fraction.
    const [unit, scale] = u < 1_000n ? ['ns', 1n] : u < 1_000_000n ? ['µs', 1_000n] : ['ms', 1_000_000n];
    out = `${fixed(u, scale)}${unit}`;
  } else {
    const h = u / HOUR;
    const m = (u % HOUR) / MINUTE;
    const s = u % MINUTE;
    out = `${h > 0n ? `${h}h` : ''}${h > 0n || m > 0n ? `${m}m` : ''}${fixed(s, SECOND)}s`;
  }
  return neg ? `-${out}` : out;
}

/** `v / scale` with the fraction's trailing zeros (and a bare dot) dropped, as Go's fmtFrac. */
function fixed(v: bigint, scale: bigint): string {
  const whole = v / scale;
  const digits = scale.toString().length - 1;
  const frac = digits === 0 ? '' : (v % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac === '' ? `${whole}` : `${whole}.${frac}`;
}

/** Go's `strconv.Quote` for the plain strings durations are: double quotes, `"` and `\` escaped. */
function goQuote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
