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
