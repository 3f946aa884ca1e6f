/**
 * Why a `waitFor` was not reached, in one line: the timeout, a TidbCluster's Ready condition
 * (status, reason and message, as `kubectl describe` shows them) and the outcome of the last
 * reconcile step the state table recorded for the cluster, with its virtual time. This is the
 * error of the failed entry, so the progress lines, the summary line and the report all carry it.
 */
import { formatClusterKey } from '../model/key.js';
import type { KubeObject } from '../sim/object.js';
import type { ObjectStore } from '../sim/store.js';
import type { StateRecord } from '../state/port.js';
import { readyAsAsked } from './rolled-out.js';
import { formatClock } from './scenario/progress.js';
import { scenarioClusters, watchedClusters, type WaitCondition } from './scenario/types.js';
import type { SimStack } from './sim-stack.js';

type Condition = { type?: string; status?: string; reason?: string; message?: string };

/** Whether the TidbCluster is Ready as asked (`rolled-out.ts`; undefined: it does not exist, so no). */
export const isClusterReady = (store: ObjectStore, tc: KubeObject | undefined): boolean => readyAsAsked(store, tc).ready;

/**
 * The cluster a timed-out `until` is explained by: for `ready` (judged on every cluster) the first
 * one that is not Ready, otherwise (and when all are) the first cluster, which the other conditions judge.
 */
function clusterToExplain(stack: SimStack, until: WaitCondition | undefined): { namespace: string; name: string } {
  const clusters = watchedClusters(stack.scenario).map((c) => c.metadata);
  const first = stack.scenario.cluster.metadata;
  if (until?.kind !== 'ready') return first;
  return clusters.find((m) => !isClusterReady(stack.world.store, stack.world.store.get('TidbCluster', m.namespace, m.name))) ?? first;
}

/**
 * The error of a `waitFor` that timed out after `timeoutMs`; `t0Ms` is the run's start on the virtual
 * clock. With several clusters (`clusters:`) it explains the one `clusterToExplain` picks and names it
 * (`demo/basic-hetero: Ready=False (…)`), so a cluster that is Ready never hides one that is not.
 */
export async function explainTimeout(stack: SimStack, timeoutMs: number, t0Ms: number, until?: WaitCondition): Promise<string> {
  const { namespace, name } = clusterToExplain(stack, until);
  const named = scenarioClusters(stack.scenario).length > 1 ? `${namespace}/${name}: ` : '';
  const tc = stack.world.store.get('TidbCluster', namespace, name);
  const key = formatClusterKey({ k8sCluster: stack.runtime.k8sCluster, namespace, name });
  let state: StateRecord | undefined;
  let stateError: string | undefined;
  try {
    state = await stack.inspector.get(key);
  } catch (err) {
    stateError = err instanceof Error ? err.message : String(err);
  }
  const readyCondition = ((tc?.status?.conditions ?? []) as Condition[]).find((c) => c.type === 'Ready');
  const verdict = readyAsAsked(stack.world.store, tc);
  // Ready=True but not as asked: say which StatefulSet is behind, after the condition.
  const behind = readyCondition?.status === 'True' && !verdict.ready ? ` but ${verdict.why}` : '';
  const ready = tc ? `${describeReady(readyCondition)}${behind}` : 'the TidbCluster does not exist';
  return `not reached within ${timeoutMs / 1000}s; ${named}${ready}; ${describeLastStep(state, stateError, t0Ms)}`;
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
