/**
 * TiFlash's part of the shared scale-in, as TiDB Operator v1's `tiflashScaler.scaleInOne` (§2.3):
 * no max-replicas pre-check and no leader eviction. A pod whose store PD still lists has the store
 * deleted (once: not again while it is Offline) and the scale-in waits for it, saying how many
 * region replicas (learners) are left to move — with fewer TiFlash stores left than a table's
 * TiFlash replica count none can move, and it waits until a store is added or the count lowered; a pod whose store is
 * Tombstone — matched by pod name and the store id the pod carries — lets its PVCs be marked and the
 * replicas go down; a pod with no store at all goes only once it has not been Ready for 5 resync
 * periods since it was created (it never joined), else the step fails and tries again.
 */

import type { PdDeleteStoreAction } from '../../../model/action.js';
import { fail, retry } from '../../engine/outcome.js';
import type { MemberInput, ScaleInCheck } from '../../member/component.js';
import { isPodReady } from '../../member/statefulset.js';
import { knownStoreId } from '../../member/store-identity.js';
import { removalProgress } from '../../member/store-scale.js';
import { TIFLASH_RETRY_MS } from './names.js';

/** As TiDB Operator: 5 resync periods of 30 s, the time a pod's store has to show up in the status. */
export const NO_STORE_GRACE_MS = 5 * 30_000;

/** What must happen before the TiFlash pod `podName` is scaled in (see the module comment). */
export function beforeTiflashScaleIn(input: MemberInput, podName: string): ScaleInCheck {
  const ns = input.cluster.metadata.namespace ?? '';
  const tiflash = input.status.tiflash ?? {};
  const pod = input.scope.pod(podName);
  if (!pod) return { hold: { actions: [], outcome: fail(`tiflashScaler.ScaleIn: failed to get pods ${podName} for cluster ${ns}/${input.cluster.metadata.name ?? ''}`) } };
  const live = Object.values(tiflash.stores ?? {}).find((s) => s.podName === podName);
  if (live) {
    const remove: PdDeleteStoreAction[] = live.state === 'Offline' ? [] : [{ kind: 'pd.deleteStore', storeId: live.id }];
    const message = `TiFlash ${ns}/${podName} store ${live.id} is still in cluster, state: ${live.state}${removalProgress(input, live.id)}`;
    return { hold: { actions: remove, outcome: retry(TIFLASH_RETRY_MS, message), stop: true } };
  }
  const podStoreId = knownStoreId(input, podName);
  const tombstone = Object.values(tiflash.tombstoneStores ?? {}).find((s) => s.podName === podName && s.id === podStoreId);
  if (tombstone) return { first: [] };
  if (isPodReady(pod)) return { hold: { actions: [], outcome: fail(`tiflash ${ns}/${podName} no store found in cluster`) } };
  const createdMs = Date.parse(pod.metadata?.creationTimestamp ?? '');
  const sinceMs = Number.isNaN(createdMs) ? input.snapshot.nowMs : createdMs;
  if (input.snapshot.nowMs < sinceMs + NO_STORE_GRACE_MS) {
    const message = `TiFlash ${ns}/${podName} is not ready, wait for some resync periods to synced its status`;
    return { hold: { actions: [], outcome: retry(sinceMs + NO_STORE_GRACE_MS - input.snapshot.nowMs, message) } };
  }
  return { first: [] };
}
