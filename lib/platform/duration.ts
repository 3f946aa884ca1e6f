/**
 * Durations as users write them in scenario files and flags: `90s`, `5m`, `1h30m`, `250ms`.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration into milliseconds; throws a message naming the bad text. */
export function parseDuration(text: string): number {
  const s = text.trim();
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
    consumed = m.index + m[0].length;
  }
  if (s.length === 0 || consumed !== s.length) {
    throw new Error(`invalid duration "${text}": use a number with a unit, e.g. 250ms, 90s, 5m, 1h30m`);
  }
  return Math.round(total);
}

/** Formats milliseconds compactly for progress lines: `1h02m`, `4m05s`, `12.3s`, `850ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalS = Math.round(ms / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const sec = totalS % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(sec).padStart(2, '0')}s`;
}

/**
 * A `--<flag> DURATION` option in milliseconds: `fallbackMs` when it was not given; throws a message
 * naming the flag when the text is not a duration.
 */
export function durationOption(flag: string, text: string | undefined, fallbackMs: number): number {
  if (text === undefined) return fallbackMs;
  try {
    return parseDuration(text);
  } catch (err) {
    throw new Error(`${flag}: ${(err as Error).message}`);
  }
}

/**
 * A duration as kubectl prints an age (apimachinery `duration.HumanDuration`): 45s, 3m20s, 15m,
 * 2h15m, 10h, 3d4h, 20d, 2y45d, 9y. Up to a second in the future reads 0s (clock skew); further
 * ahead is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const s = Math.trunc(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 365 * 2) return `${d}d`;
  if (h < 24 * 365 * 8) return d % 365 === 0 ? `${Math.floor(d / 365)}y` : `${Math.floor(d / 365)}y${d % 365}d`;
  return `${Math.floor(d / 365)}y`;
}

/**
 * A short duration as the CLI prints one (a retry interval, "in 4m30s"): kubectl's `humanDuration`
 * from a second up, milliseconds below it, so a 500 ms retry does not read `0s`.
 */
export function briefDuration(ms: number): string {
  return ms >= 0 && ms < 1000 ? `${Math.round(ms)}ms` : humanDuration(ms);
}
