/**
 * Why a `waitFor` was not reached, in one line: the timeout, the TidbCluster's Ready condition
 * (status, reason and message, as `kubectl describe` shows them) and the outcome of the last
 * reconcile step the state table recorded for the cluster, with its virtual time. This is the
 * error of the failed entry, so the progress lines, the summary line and the report all carry it.
 */
import { formatClusterKey } from '../model/key.js';
import type { StateRecord } from '../state/port.js';
import { formatClock } from './scenario/progress.js';
import type { SimStack } from './sim-stack.js';

type Condition = { type?: string; status?: string; reason?: string; message?: string };

/** The error of a `waitFor` that timed out after `timeoutMs`; `t0Ms` is the run's start on the virtual clock. */
export async function explainTimeout(stack: SimStack, timeoutMs: number, t0Ms: number): Promise<string> {
  const { namespace, name } = stack.scenario.cluster.metadata;
  const tc = stack.world.store.get('TidbCluster', namespace, name);
  const key = formatClusterKey({ k8sCluster: stack.runtime.k8sCluster, namespace, name });
  let state: StateRecord | undefined;
  let stateError: string | undefined;
  try {
    state = await stack.runtime.state.get(key);
  } catch (err) {
    stateError = err instanceof Error ? err.message : String(err);
  }
  const ready = tc ? describeReady(((tc.status?.conditions ?? []) as Condition[]).find((c) => c.type === 'Ready')) : 'the TidbCluster does not exist';
  return `not reached within ${timeoutMs / 1000}s; ${ready}; ${describeLastStep(state, stateError, t0Ms)}`;
}

/** `Ready=False (PDUnhealthy: "…")`, or `no Ready condition`. */
export function describeReady(c: Condition | undefined): string {
  if (!c) return 'no Ready condition';
  const why = [c.reason, c.message === undefined ? undefined : JSON.stringify(c.message)].filter((x) => x !== undefined && x !== '').join(': ');
  return `Ready=${c.status ?? 'Unknown'}${why === '' ? '' : ` (${why})`}`;
}

/** `last step at 5m30s: wait: …`, or why there is none. */
export function describeLastStep(state: StateRecord | undefined, stateError: string | undefined, t0Ms: number): string {
  if (stateError !== undefined) return `last step unknown (state read failed: ${stateError})`;
  const last = state?.lastStep;
  if (!last) return 'no reconcile step has completed';
  return `last step at ${formatClock(Math.max(0, last.atMs - t0Ms)).trim()}: ${last.message ?? last.outcome}`;
}
