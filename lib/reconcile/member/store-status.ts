/**
 * The store half of TiKV's and TiFlash's status sync, as TiDB Operator v1's
 * `syncTidbClusterStatus` for both: PD's stores split into this cluster's live stores (`stores`, by
 * id), stores of other clusters sharing the PD that are the component's kind (`peerStores`) and this
 * cluster's Tombstones (`tombstoneStores`); each with its pod name, address host, leader count and
 * state, `lastTransitionTime` kept while the state is unchanged and `leaderCountBeforeUpgrade`
 * carried over. A store is this cluster's when its address is one of the component's pods:
 * `<tc>-<component>-N.<tc>-<component>-peer.<ns>.svc[.<domain>]:<port>`.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { PdStore, PdView } from '../../model/pd.js';
import { toKubeTime } from '../cluster/condition.js';
import type { RuleInput } from '../engine/rule.js';
import { podReadySinceMs } from './statefulset.js';
import type { StatusStore, StoreComponent } from './store-access.js';

/** Store records by id. */
export type StatusStores = Record<string, StatusStore>;

/** The store maps of a store component's status. */
export type StoreMaps = { readonly stores: StatusStores; readonly peerStores: StatusStores; readonly tombstoneStores: StatusStores };

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * As TiDB Operator's `tikvStoreLimitPattern` / `tiflashStoreLimitPattern`: whether a store's address
 * is a pod of this cluster's `component` rather than of another cluster sharing PD.
 */
export function isOwnStoreAddress(input: RuleInput, component: StoreComponent, address: string): boolean {
  const tc = input.cluster;
  const name = tc.metadata.name ?? '';
  const domain = tc.spec.clusterDomain ? `\\.${escape(tc.spec.clusterDomain)}` : '';
  const host = `^${escape(`${name}-${component}`)}-\\d+\\.${escape(`${name}-${component}-peer`)}\\.${escape(tc.metadata.namespace ?? '')}\\.svc${domain}:\\d+`;
  return new RegExp(host).test(address);
}

/** The host of a store address (`<pod>.<peer>.<ns>.svc:20160` → `<pod>.<peer>.<ns>.svc`). */
const hostOf = (address: string): string => address.split(':')[0] ?? address;

function toStatusStore(store: PdStore, previous: StatusStore | undefined, now: string): StatusStore {
  const ip = hostOf(store.address);
  const kept = previous !== undefined && previous.state === store.state ? previous.lastTransitionTime : undefined;
  return {
    id: store.id,
    podName: ip.split('.')[0] ?? ip,
    ip,
    leaderCount: store.leaderCount,
    state: store.state,
    lastTransitionTime: kept ?? now,
    ...(previous?.leaderCountBeforeUpgrade === undefined ? {} : { leaderCountBeforeUpgrade: previous.leaderCountBeforeUpgrade }),
  };
}

/** Whether a store is TiFlash's: PD's store label `engine=tiflash`. */
export const isTiflashStore = (store: PdStore): boolean => store.labels.engine === 'tiflash';

/**
 * The store maps of `component` from what PD reports (see the module comment): a peer store is
 * another cluster's store of the same engine (TiKV: not labelled `engine=tiflash`; TiFlash: labelled so).
 */
export function planStoreMaps(input: RuleInput, component: StoreComponent, view: PdView): StoreMaps {
  const previous = input.status[component] ?? {};
  const before = (id: string): StatusStore | undefined => previous.stores?.[id] ?? previous.peerStores?.[id] ?? previous.tombstoneStores?.[id];
  const now = toKubeTime(input.snapshot.nowMs);
  const isPeer = (store: PdStore): boolean => isTiflashStore(store) === (component === 'tiflash');
  const stores: StatusStores = {};
  const peerStores: StatusStores = {};
  const tombstoneStores: StatusStores = {};
  for (const store of view.stores) {
    const own = isOwnStoreAddress(input, component, store.address);
    const record = toStatusStore(store, before(store.id), now);
    if (store.state === 'Tombstone') {
      if (own) tombstoneStores[store.id] = record;
    } else if (own) stores[store.id] = record;
    else if (isPeer(store)) peerStores[store.id] = record;
  }
  return { stores, peerStores, tombstoneStores };
}

/**
 * The pods (of `pods`) whose readiness and store disagree, and since when the latest of them is in
 * its state; undefined when there is none. Two ways to disagree, both passing within seconds:
 * - a Ready pod whose store is not Up yet (it joins, or its next heartbeat makes it Up);
 * - a pod not Ready whose store PD still has Up: PD marks a store Disconnected 20 s after its last
 *   heartbeat (`StoreDisconnectDuration`, pd/pkg/core/store.go), so a dead process's store changes
 *   state within 20 s — TiDB Operator sees that at its next 30 s resync, a status rule here looks
 *   again as it happens.
 * A status rule asks to look again soon while there is one; a cluster at rest has none.
 */
export function storesConverging(title: string, pods: readonly IPod[], stores: StatusStores | undefined): { reason: string; sinceMs: number } | undefined {
  const upPods = new Set(Object.values(stores ?? {}).filter((s) => s.state === 'Up').map((s) => s.podName));
  const joining: { name: string; sinceMs: number }[] = [];
  const leaving: { name: string; sinceMs: number }[] = [];
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const readySinceMs = podReadySinceMs(pod);
    if (readySinceMs !== undefined && !upPods.has(name)) joining.push({ name, sinceMs: readySinceMs });
    if (readySinceMs === undefined && upPods.has(name)) leaving.push({ name, sinceMs: podNotReadySinceMs(pod) });
  }
  if (joining.length === 0 && leaving.length === 0) return undefined;
  const reasons = [
    ...(joining.length === 0 ? [] : [`${title} stores of Ready pods not Up yet: ${joining.map((p) => p.name).join(', ')}`]),
    ...(leaving.length === 0 ? [] : [`${title} stores still Up whose pods are not Ready: ${leaving.map((p) => p.name).join(', ')}`]),
  ];
  return { reason: reasons.join('; '), sinceMs: Math.max(...[...joining, ...leaving].map((p) => p.sinceMs)) };
}

/** When a pod that is not Ready stopped being Ready (its Ready condition's last change, else its creation; 0 unknown). */
function podNotReadySinceMs(pod: IPod): number {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const at = Date.parse(ready?.lastTransitionTime ?? pod.metadata?.creationTimestamp ?? '');
  return Number.isNaN(at) ? 0 : at;
}
