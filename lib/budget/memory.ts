/**
 * The API request budget held in process memory: exact for one process (a test, a local stack with
 * one reconcile runtime). Many Lambda containers each holding one would each allow the whole rate,
 * so deployed functions use the DynamoDB-held budget (dynamo.ts, docs/adr/0028).
 */
import type { ApiBudget } from './port.js';
import { reserve, type BudgetRate } from './gcra.js';

/** One schedule per EKS cluster in a map (see the module comment). */
export class MemoryApiBudget implements ApiBudget {
  private readonly schedules = new Map<string, number>();

  /** As `ApiBudget.reserve`; never throws. */
  async reserve(k8sCluster: string, requests: number, nowMs: number, rate: BudgetRate): Promise<number> {
    const reservation = reserve(this.schedules.get(k8sCluster), nowMs, requests, rate);
    this.schedules.set(k8sCluster, reservation.tatMs);
    return reservation.startAtMs;
  }
}
