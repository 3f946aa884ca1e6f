/**
 * Which store a pod of a store component (its members are PD stores) runs, kept where it survives:
 * as TiDB Operator v1's `UpdateMetaInfo` (§2.9), the pod gets the labels `tidb.pingcap.com/store-id` and
 * `tidb.pingcap.com/cluster-id` once PD lists a live store at its address; beyond v1 (pain point
 * P13, TiDB Operator #4644) the pairing is also recorded in the state table as soon as it is seen,
 * so a store that turns Tombstone is matched to its pod even when the label never landed (the pod
 * was gone, or the patch lost a race). `knownStoreId` is what scale-in and failover match by.
 */

import type { Action } from '../../model/action.js';
import type { PdStore } from '../../model/pd.js';
import { persistedStoreId, observedPd } from '../cluster/observed.js';
import { META_KEYS } from '../cluster/meta-info.js';
import { complete } from '../engine/outcome.js';
import type { RuleInput } from '../engine/rule.js';
import type { MemberDecision, MemberInput } from './component.js';
import { isTerminating } from './members.js';

/** The pod a store address names: its host up to the first dot (`<pod>.<peer service>.<ns>.svc:<port>` → `<pod>`). */
export const podOfStoreAddress = (address: string): string => address.split(':')[0]?.split('.')[0] ?? '';

/**
 * The live (not Tombstone) stores of this component's pods, by pod name, as PD lists them now;
 * `isOwn` tells this component's store addresses from others'. Empty when PD was not read.
 */
export function liveStoresByPod(input: RuleInput, isOwn: (input: RuleInput, address: string) => boolean): Map<string, PdStore> {
  const stores = new Map<string, PdStore>();
  for (const store of observedPd(input.snapshot)?.stores ?? []) {
    if (store.state === 'Tombstone' || !isOwn(input, store.address)) continue;
    stores.set(podOfStoreAddress(store.address), store);
  }
  return stores;
}

/**
 * The store `podName` is known to run: the id the state table recorded for it — written before the
 * pod's label in the same step, so never older than the label — else its `tidb.pingcap.com/store-id`
 * label (written by TiDB Operator, or before the record existed). Undefined when neither says.
 */
export function knownStoreId(input: MemberInput, podName: string): string | undefined {
  const label = input.scope.pod(podName)?.metadata?.labels?.[META_KEYS.storeId];
  return persistedStoreId(input.snapshot, input.scope.component.name, podName) ?? label;
}

function podLabelPatch(input: MemberInput, podName: string, store: PdStore, clusterId: string | undefined): Action[] {
  const pod = input.scope.pod(podName);
  if (!pod || isTerminating(pod)) return [];
  const labels = pod.metadata?.labels ?? {};
  const want: Record<string, string> = {
    ...(labels[META_KEYS.storeId] === store.id ? {} : { [META_KEYS.storeId]: store.id }),
    ...(clusterId === undefined || labels[META_KEYS.clusterId] === clusterId ? {} : { [META_KEYS.clusterId]: clusterId }),
  };
  if (Object.keys(want).length === 0) return [];
  const ref = { kind: 'Pod' as const, namespace: pod.metadata?.namespace ?? '', name: podName };
  return [{ kind: 'patch', ref, patchType: 'merge', patch: { metadata: { labels: want } }, resourceVersion: pod.metadata?.resourceVersion ?? '' }];
}

/**
 * The `…StoreIds` rule. Guarantees: for each live store of this component PD lists, the state table
 * records its pod's store id when it holds another (or none), and the pod — observed and not being
 * deleted — gets its store-id and cluster-id labels when they differ (a merge patch under its
 * resourceVersion); nothing is written when everything already says so; always completes.
 */
export function planStoreIdentity(input: MemberInput, isOwn: (input: RuleInput, address: string) => boolean): MemberDecision {
  const component = input.scope.component.name;
  const clusterId = observedPd(input.snapshot)?.clusterId;
  const actions: Action[] = [];
  for (const [podName, store] of liveStoresByPod(input, isOwn)) {
    if (persistedStoreId(input.snapshot, component, podName) !== store.id) actions.push({ kind: 'state.putStoreId', record: { component, podName, storeId: store.id } });
    actions.push(...podLabelPatch(input, podName, store, clusterId));
  }
  return { actions, outcome: complete(actions.length === 0 ? undefined : `recording the store ids of ${input.scope.component.title} pods`) };
}
