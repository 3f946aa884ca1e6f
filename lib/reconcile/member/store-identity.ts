/**
 * Which store a TiKV or TiFlash pod runs, as the reconciler records it: the
 * `tidb.pingcap.com/store-id` label, written on the pod as soon as PD lists a live store at the pod's
 * address (TiDB Operator's `UpdateMetaInfo` for pods). A Tombstone is matched to a pod only by this
 * id, never by pod name alone — a new store of the same pod name must not be mistaken for an old one.
 */

import type { PatchAction } from '../../model/action.js';
import { META_KEYS } from '../cluster/meta-info.js';
import { complete } from '../engine/outcome.js';
import type { MemberDecision, MemberInput } from './component.js';
import { isTerminating } from './members.js';
import type { StoreComponent } from './store-access.js';

/** The store id recorded for `podName`, or undefined when none is. */
export function storeIdOfPod(input: MemberInput, podName: string): string | undefined {
  return input.scope.pod(podName)?.metadata?.labels?.[META_KEYS.storeId];
}

/**
 * The `…StoreIdLabels` rule of `component`: every pod of the component whose live store (in this
 * step's `status.<component>.stores`) is not the id its label says gets the label, by a merge patch
 * under the observed resourceVersion. Never stops the block; completes.
 */
export function planStoreIdLabels(component: StoreComponent): (input: MemberInput) => MemberDecision {
  return (input) => {
    const stores = Object.values(input.status[component]?.stores ?? {});
    const actions: PatchAction[] = input.scope.pods.flatMap((pod) => {
      const name = pod.metadata?.name ?? '';
      const store = stores.find((s) => s.podName === name);
      if (!store || isTerminating(pod) || storeIdOfPod(input, name) === store.id) return [];
      const ref = { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name } as const;
      return [{ kind: 'patch', ref, patchType: 'merge', patch: { metadata: { labels: { [META_KEYS.storeId]: store.id } } }, resourceVersion: pod.metadata?.resourceVersion ?? '' }];
    });
    return { actions, outcome: complete(actions.length === 0 ? undefined : `store ids recorded on ${actions.length} pod(s)`) };
  };
}
