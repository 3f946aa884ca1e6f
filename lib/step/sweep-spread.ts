/**
 * How the sweep spreads its triggers over its interval instead of enqueueing the whole fleet at
 * once: each full-step message carries an SQS `DelaySeconds` taken from a low-discrepancy sequence,
 * one per EKS cluster: the n-th message a sweep sends for an EKS cluster waits
 * `frac(offset + n·φ⁻¹) · spread` seconds (φ⁻¹ = (√5 − 1)/2, the golden-ratio sequence; `offset` a
 * hash of the EKS cluster's name, so two EKS clusters' sweeps do not start their sequences at the same
 * second). By the three-distance theorem any first n points of that sequence cut the interval into gaps
 * of at most three lengths, the longest under 3/n of it
 * (https://en.wikipedia.org/wiki/Three-gap_theorem), so whatever number of keys a sweep sends — all of
 * them, or the few due a full read — every second of the interval gets its share, give or take a
 * message or two. Delays drawn independently from each key's hash (the spreading before) bunch as
 * Poisson arrivals do: 266 keys over 300 s put 6 into one second.
 *
 * With an API budget (docs/adr/0028) a sweep sends at most `fullStepsPerSweep` full steps per EKS
 * cluster — `SWEEP_BUDGET_SHARE` of what the budget allows over the spread — and leaves the rest,
 * still due, to the next sweep: the steps it sends start within the interval instead of queueing
 * behind the budget past the next sweep (which would send them again), and events keep the rest of
 * the budget.
 *
 * A key's delay depends on its place among the keys the sweep sends (list order, which `sweep.ts`
 * keeps): with the fleet unchanged and every key sent each sweep, each keeps its phase, interval
 * apart. SQS takes at most 900 s (`MAX_DELAY_SECONDS`), so the spread is capped there
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatchRequestEntry.html).
 */
import { parseObjectKey } from '../model/object-key.js';
import type { ApiBudgetConfig } from '../platform/config.js';
import { MAX_DELAY_SECONDS } from '../queue/port.js';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** φ⁻¹: the golden-ratio sequence's step, the most evenly spreading of all steps. */
const GOLDEN_STEP = (Math.sqrt(5) - 1) / 2;

/** FNV-1a of `text`'s UTF-16 code units, as an unsigned 32-bit number. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** MurmurHash3's 32-bit finaliser (`fmix32`): every input bit flips about half of the output bits. */
function fmix32(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The text's spread hash: `fnv1a32` mixed by `fmix32`, uniform over 0 … 2^32 − 1. */
export function spreadHash(text: string): number {
  return fmix32(fnv1a32(text));
}

/** The spread in whole seconds SQS can delay: 0 … `MAX_DELAY_SECONDS`. */
function cappedSpread(spreadSeconds: number): number {
  return Math.floor(Math.min(Math.max(spreadSeconds, 0), MAX_DELAY_SECONDS));
}

/**
 * The whole seconds the `slot`-th message (0, 1, 2, …) a sweep sends for `k8sCluster` waits:
 * 0 ≤ delay < the spread (capped at `MAX_DELAY_SECONDS`), 0 when the spread is 0 (sent at once).
 * Pure: the same arguments give the same delay.
 */
export function slotDelaySeconds(k8sCluster: string, slot: number, spreadSeconds: number): number {
  const spread = cappedSpread(spreadSeconds);
  if (spread === 0) return 0;
  const offset = spreadHash(k8sCluster) / 2 ** 32;
  const at = (offset + slot * GOLDEN_STEP) % 1;
  return Math.min(spread - 1, Math.floor(at * spread));
}

/** The share of an EKS cluster's API budget the sweep's full steps may take; events keep the rest. */
export const SWEEP_BUDGET_SHARE = 0.8;

/**
 * The most full steps one sweep sends per EKS cluster: `SWEEP_BUDGET_SHARE` of the requests the
 * budget allows over the spread, in steps of `stepRequests`; unbounded without a budget (or a rate of
 * 0) or without a spread (every message at once: the steps' own budget paces them).
 */
export function fullStepsPerSweep(spreadSeconds: number, budget: ApiBudgetConfig | undefined): number {
  const spread = cappedSpread(spreadSeconds);
  if (budget === undefined || budget.requestsPerSecond <= 0 || spread === 0) return Number.POSITIVE_INFINITY;
  return Math.max(1, Math.floor((SWEEP_BUDGET_SHARE * budget.requestsPerSecond * spread) / budget.stepRequests));
}

/**
 * One sweep's slots: hands out each EKS cluster's delays in the order keys are sent
 * (`slotDelaySeconds` for slot 0, 1, 2, … per EKS cluster), at most `maxPerCluster` each. One
 * instance per sweep.
 */
export class SweepSlots {
  private readonly taken = new Map<string, number>();

  constructor(
    private readonly spreadSeconds: number,
    private readonly maxPerCluster = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * The next delay of `key`'s EKS cluster (a key that does not parse counts as its own first
   * segment's), or undefined when that EKS cluster's slots for this sweep are all taken.
   */
  delaySecondsFor(key: string): number | undefined {
    const parsed = parseObjectKey(key);
    const k8sCluster = parsed.ok ? parsed.ref.k8sCluster : (key.split('/')[0] ?? '');
    const slot = this.taken.get(k8sCluster) ?? 0;
    if (slot >= this.maxPerCluster) return undefined;
    this.taken.set(k8sCluster, slot + 1);
    return slotDelaySeconds(k8sCluster, slot, this.spreadSeconds);
  }
}
