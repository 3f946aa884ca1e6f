/**
 * How soon a status rule looks again at a component that is on its way somewhere (pods Ready but
 * the component's own API not showing them yet): promptly right after a change, less often the
 * longer it lags (an outage), so status follows without depending on failover or the sweep.
 */

const CONVERGING_MIN_MS = 1_000;
const CONVERGING_MAX_MS = 30_000;

/**
 * When to look again at a converging component: a quarter of the time since its pods got Ready
 * (`sinceMs`), from 1 s to 30 s.
 */
export function convergingRetryMs(sinceMs: number, nowMs: number): number {
  return Math.min(CONVERGING_MAX_MS, Math.max(CONVERGING_MIN_MS, Math.floor((nowMs - sinceMs) / 4)));
}
