/**
 * Reading the leader count of the TiKV pods being evicted before a restart. As TiDB Operator, the
 * upgrade waits on `tikv_raftstore_region_count{type="leader"}` from the pod's own `/metrics`; a step
 * asks only the pods that carry `evictLeaderBeginTime` (normally one), never every TiKV, so a steady
 * cluster costs no TiKV call at all.
 */

import type { TikvStatusPort } from '../components/port.js';
import type { OwnedObjects } from '../model/kube.js';
import { EVICT_LEADER_BEGIN_TIME_ANNOTATION, LABEL } from '../model/labels.js';
import type { TikvLeaderRead } from '../model/snapshot.js';
import { errorText } from '../step/error-outcome.js';
import { abortError } from './abortable.js';

/** The TiKV pods a step reads the leader count of: those annotated `evictLeaderBeginTime` and not being deleted, in name order. */
export function podsBeingEvicted(owned: OwnedObjects): string[] {
  return owned.Pod.filter(
    (pod) =>
      pod.metadata?.labels?.[LABEL.component] === 'tikv' &&
      pod.metadata.annotations?.[EVICT_LEADER_BEGIN_TIME_ANNOTATION] !== undefined &&
      pod.metadata.deletionTimestamp === undefined,
  )
    .map((pod) => pod.metadata?.name ?? '')
    .sort();
}

/**
 * The leader counts of `podsBeingEvicted(owned)`, by pod name; `undefined` (nothing read) when no pod
 * is being evicted. Guarantees: a pod whose read fails gets its `error` (a fact the rule waits on),
 * never a throw — unless the step's budget ran out, which is thrown as the step's own problem.
 */
export async function readTikvLeaders(tikv: TikvStatusPort, owned: OwnedObjects, signal: AbortSignal): Promise<Record<string, TikvLeaderRead> | undefined> {
  const pods = podsBeingEvicted(owned);
  if (pods.length === 0) return undefined;
  const reads = await Promise.all(
    pods.map(async (pod): Promise<[string, TikvLeaderRead]> => {
      try {
        return [pod, { leaderCount: await tikv.getLeaderCount(pod) }];
      } catch (err) {
        if (signal.aborted) throw abortError(signal, `read the leader count of ${pod}`);
        return [pod, { error: errorText(err) }];
      }
    }),
  );
  return Object.fromEntries(reads);
}
