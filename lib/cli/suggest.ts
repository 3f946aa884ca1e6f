/**
 * "Did you mean …?" for the command line: the nearest known word to a mistyped command, action or
 * flag, and `parseArgs` whose unknown-option errors name the nearest known flag. A word is near when
 * it differs by at most a third of its length in single-character edits (insert, delete, replace,
 * swap two neighbours), at least one, or when it is the start of exactly one known word.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The known word nearest to `word`, or undefined when none is near enough to be what was meant. */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { word: candidate, distance };
  }
  if (best) return best.word;
  const prefixed = word.length >= 2 ? known.filter((k) => k.startsWith(word)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** ` (did you mean "x"?)`, or nothing when no known word is near. */
export function didYouMean(word: string, known: readonly string[]): string {
  const hint = nearest(word, known);
  return hint === undefined ? '' : ` (did you mean "${hint}"?)`;
}

/**
 * `parseArgs`, whose "Unknown option '--regoin'" error is rethrown as the same message plus the
 * nearest flag the command knows (`--region`); every other error is rethrown unchanged.
 */
export function parseArgsWithHints<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    const unknown = /^Unknown option '([^']+)'/.exec((err as Error).message)?.[1];
    if (unknown === undefined) throw err;
    const flags = Object.entries(config.options ?? {}).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
    const hint = nearest(unknown, flags);
    throw new Error(`Unknown option '${unknown}'${hint === undefined ? '' : ` (did you mean ${hint}?)`}`);
  }
}

/** Optimal string alignment distance: insertions, deletions, replacements and neighbour swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, at(i - 2, j - 2) + 1);
      const row = d[i];
      if (row) row[j] = value;
    }
  }
  return at(a.length, b.length);
}
