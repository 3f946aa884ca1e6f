/**
 * The sweep function's work for a deployment of several EKS clusters (docs/adr/0027): each
 * registered cluster is swept by its own runtime (`sweepFleet`), all at the same time, so one
 * cluster's API server failing or hanging neither stops nor delays the others' sweep: each cluster's
 * listing and sends are bounded by the invocation's deadline, and a cluster whose sweep fails is
 * logged and counted while the others' messages are already on the queue. A fleet of one is
 * `sweepFleet` itself (a failed sweep throws, so the scheduler retries).
 */

import { errorText } from '../step/error-outcome.js';
import { type Fleet, onlyRuntime } from './fleet.js';
import type { Invocation } from './ports.js';
import { sweepFleet, type SweepSummary } from './sweep.js';

/** The sum over the clusters that were swept, and each cluster's own summary or error. */
export type FleetSweepSummary = SweepSummary & {
  readonly clusters?: Readonly<Record<string, SweepSummary | { readonly error: string }>>;
};

/**
 * Sweeps every registered EKS cluster once. Guarantees: as `sweepFleet` for a fleet of one;
 * otherwise every cluster's sweep runs to its end whatever the others do, a failed one is logged at
 * error level naming the cluster, and the invocation throws only when every cluster's sweep failed
 * (a retry of the whole invocation would sweep the healthy ones twice; the next interval sweeps the
 * failed one again).
 */
export async function sweepEveryCluster(fleet: Fleet, invocation: Invocation): Promise<FleetSweepSummary> {
  const only = onlyRuntime(fleet);
  if (only !== undefined) return sweepFleet(only, invocation);
  const settled = await Promise.allSettled(fleet.runtimes.map((runtime) => sweepFleet(runtime, invocation)));
  const clusters: Record<string, SweepSummary | { readonly error: string }> = {};
  const done: SweepSummary[] = [];
  settled.forEach((result, i) => {
    const runtime = fleet.runtimes[i];
    if (runtime === undefined) return;
    if (result.status === 'fulfilled') {
      clusters[runtime.k8sCluster] = result.value;
      done.push(result.value);
      return;
    }
    const error = errorText(result.reason);
    clusters[runtime.k8sCluster] = { error };
    runtime.logger.error('the sweep of one EKS cluster failed; the others were swept', { k8sCluster: runtime.k8sCluster, error });
  });
  if (done.length === 0) throw new Error(`the sweep failed on every EKS cluster: ${Object.entries(clusters).map(([name, c]) => `${name}: ${'error' in c ? c.error : 'ok'}`).join('; ')}`);
  return { ...sum(done), clusters };
}

function sum(summaries: readonly SweepSummary[]): SweepSummary {
  const add = (pick: (s: SweepSummary) => number): number => summaries.reduce((n, s) => n + pick(s), 0);
  return {
    listed: add((s) => s.listed),
    enqueued: add((s) => s.enqueued),
    dueSoon: add((s) => s.dueSoon),
    checked: add((s) => s.checked),
    atRest: add((s) => s.atRest),
    fleet: { listed: add((s) => s.fleet.listed), ready: add((s) => s.fleet.ready), notReady: add((s) => s.fleet.notReady), paused: add((s) => s.fleet.paused), failing: add((s) => s.fleet.failing) },
  };
}
