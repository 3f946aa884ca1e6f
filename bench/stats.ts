/**
 * Summary statistics and Markdown tables for the benchmarks.
 */

/** Count, median, 95th percentile and mean of samples in milliseconds, rounded for reports. */
export type Stats = { n: number; median: string; p95: string; mean: string };

/** Summarises samples (milliseconds). */
export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, median: at(0.5).toFixed(3), p95: at(0.95).toFixed(3), mean: mean.toFixed(3) };
}

/** A Markdown table. */
export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
