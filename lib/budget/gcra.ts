/**
 * The API request budget's arithmetic: the generic cell rate algorithm (GCRA, ITU-T I.371; the
 * "virtual scheduling" form of a token bucket), pure. The budget keeps one number per EKS cluster,
 * `tatMs`: the time at which every request reserved so far would have been paid for at
 * `requestsPerSecond`. A reservation of n requests moves it to `max(tatMs, now) + n / rate`, and may
 * start once at most `burstRequests` are still owed: at `tatMs − burst / rate`. So requests start at
 * most `burstRequests + requestsPerSecond · L` in any window of L seconds, and on average at
 * `requestsPerSecond` — a token bucket of `burstRequests` refilled at `requestsPerSecond`, without
 * the bucket. Every reservation is taken when it is asked for, so a caller that waits its start time
 * never asks again: deferring costs no retries.
 */

/** How fast the budget refills and how much may be owed at once (ApiBudgetConfig's part). */
export type BudgetRate = { readonly requestsPerSecond: number; readonly burstRequests: number };

/** The milliseconds of the budget's schedule that `requests` take at `rate`. */
export function scheduleMs(requests: number, rate: Pick<BudgetRate, 'requestsPerSecond'>): number {
  return (requests * 1000) / rate.requestsPerSecond;
}

/**
 * The schedule after reserving `requests` at `nowMs`: an idle budget (no schedule, or one behind
 * now) starts from now; a busy one is extended.
 */
export function reservedTatMs(tatMs: number | undefined, nowMs: number, requests: number, rate: Pick<BudgetRate, 'requestsPerSecond'>): number {
  return Math.max(tatMs ?? nowMs, nowMs) + scheduleMs(requests, rate);
}

/**
 * When the reservation that moved the schedule to `tatMs` may start: now if at most the burst is
 * owed, else once the schedule has drained to the burst. Never before `nowMs`.
 */
export function startAtMs(tatMs: number, nowMs: number, rate: BudgetRate): number {
  return Math.max(nowMs, tatMs - scheduleMs(rate.burstRequests, rate));
}

/** Where a reservation leaves the budget: the new schedule and when the reserved requests may start. */
export type Reservation = { readonly tatMs: number; readonly startAtMs: number };

/** One reservation of `requests` at `nowMs` against the schedule `tatMs` (see the module comment). */
export function reserve(tatMs: number | undefined, nowMs: number, requests: number, rate: BudgetRate): Reservation {
  const tat = reservedTatMs(tatMs, nowMs, requests, rate);
  return { tatMs: tat, startAtMs: startAtMs(tat, nowMs, rate) };
}
