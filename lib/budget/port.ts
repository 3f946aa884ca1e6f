/**
 * The per-EKS-cluster API request budget (docs/adr/0028): where the functions reserve the API-server
 * requests a step is about to make, so many concurrent Lambda containers together stay within one
 * rate per EKS cluster.
 */
import type { CallOptions } from '../state/port.js';
import type { BudgetRate } from './gcra.js';

/**
 * Reserves API requests of one EKS cluster's budget. `reserve` always takes the reservation (it is
 * never refused) and resolves to when the requests may start (≥ `nowMs`: `nowMs` itself when the
 * budget has room); a caller that cannot start then defers its work to that time and does not
 * reserve again. Throws the typed errors of lib/platform/errors.ts when the budget's store fails.
 */
export interface ApiBudget {
  reserve(k8sCluster: string, requests: number, nowMs: number, rate: BudgetRate, opts?: CallOptions): Promise<number>;
}
