/**
 * Which PD store a pod of a store component (TiKV, TiFlash) runs, read from PD's own answer rather
 * than from status or pod labels other rules may not have written yet (P13): a store belongs to the
 * pod whose peer address it advertises (`<pod>.<tc>-<component>-peer.<ns>.svc[.<domain>]:<port>`).
 * PD hands out store IDs in increasing order, so among the stores one address ever had, the highest
 * ID is the data directory the pod ran last; PD never lets two live stores share an address.
 */

import type { PdStore } from '../../model/pd.js';
import { observedPd } from '../cluster/observed.js';
import type { MemberInput } from './component.js';

/** TiDB Operator's pod label with the store ID of the pod's store. */
export const STORE_ID_LABEL = 'tidb.pingcap.com/store-id';

/** Whether a store is gone for good (PD's Tombstone, or Removed in newer PD's node-state names). */
export const isRemovedStore = (store: PdStore): boolean => store.state === 'Tombstone' || store.state === 'Removed';

/** Whether PD counts a store as Up (the state TiDB Operator's max-replicas check counts). */
export const isUpStore = (store: PdStore): boolean => store.state === 'Up' || store.state === 'Serving';

/** Whether a store is being taken out (Offline, or Removing in newer PD). */
export const isLeavingStore = (store: PdStore): boolean => store.state === 'Offline' || store.state === 'Removing';

/** Whether a store ID is what PD hands out (a uint64 in decimal); anything else is not PD's answer. */
export const isStoreId = (id: string): boolean => /^\d{1,20}$/.test(id);

const byIdDescending = (a: PdStore, b: PdStore): number => {
  if (!isStoreId(a.id) || !isStoreId(b.id)) return a.id < b.id ? 1 : -1;
  const [x, y] = [BigInt(a.id), BigInt(b.id)];
  return x === y ? 0 : x < y ? 1 : -1;
};

/** The host part of a store address (`<pod>.<peer>.<ns>.svc[.<domain>]`). */
function hostOf(input: MemberInput, podName: string): string {
  const domain = input.cluster.spec.clusterDomain ? `.${input.cluster.spec.clusterDomain}` : '';
  return `${podName}.${input.scope.peerServiceName}.${input.cluster.metadata.namespace ?? ''}.svc${domain}`;
}

/** Every store PD lists (Tombstones included) whose address is `podName`'s, newest first. */
export function storesOfPod(input: MemberInput, podName: string): PdStore[] {
  const host = hostOf(input, podName);
  const stores = observedPd(input.snapshot)?.stores ?? [];
  return stores.filter((s) => s.address.slice(0, s.address.lastIndexOf(':')) === host).sort(byIdDescending);
}

/**
 * The pod's store as PD knows it now: its live store when it has one (not Tombstone), else its
 * newest removed one, else undefined (the pod never registered a store, or PD forgot it).
 */
export function currentStoreOfPod(input: MemberInput, podName: string): PdStore | undefined {
  const stores = storesOfPod(input, podName);
  return stores.find((s) => !isRemovedStore(s)) ?? stores[0];
}
