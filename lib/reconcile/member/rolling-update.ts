/**
 * Rolling-update arithmetic shared by the component upgraders, as TiDB Operator v1: the partition
 * walks the ordinals downwards, and an updated pod must be available — Ready for at least
 * `minReadySeconds` (a `tidb.pingcap.com/<component>-min-ready-seconds` TidbCluster annotation) —
 * before the next one may restart.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import { podReadySinceMs } from './statefulset.js';

/** A pod's availability: not Ready, Ready but for less than the minimum (with the ms left), or available. */
export type PodAvailability =
  | { readonly kind: 'not-ready' }
  | { readonly kind: 'warming'; readonly remainingMs: number }
  | { readonly kind: 'available' };

/**
 * As Kubernetes' `IsPodAvailable`: Ready, and Ready since at least `minReadySeconds` before `nowMs`.
 * Guarantees: `warming` carries the exact time left, so a caller can come back at that moment.
 */
export function podAvailability(pod: IPod, minReadySeconds: number, nowMs: number): PodAvailability {
  const since = podReadySinceMs(pod);
  if (since === undefined) return { kind: 'not-ready' };
  const remainingMs = since + minReadySeconds * 1000 - nowMs;
  return minReadySeconds > 0 && remainingMs > 0 ? { kind: 'warming', remainingMs } : { kind: 'available' };
}

/**
 * A non-negative whole number of seconds from a TidbCluster annotation (`…-min-ready-seconds`); 0
 * when absent or unreadable (as TiDB Operator ignores a value it cannot parse).
 */
export function secondsFromAnnotation(annotations: Readonly<Record<string, string>> | undefined, key: string): number {
  const text = annotations?.[key];
  if (text === undefined || !/^\d+$/.test(text.trim())) return 0;
  return Number(text.trim());
}

/** The ordinals from `replicas − 1` down to 0: the order pods are upgraded in. */
export function descendingOrdinals(replicas: number): number[] {
  return Array.from({ length: Math.max(0, replicas) }, (_, i) => replicas - 1 - i);
}
