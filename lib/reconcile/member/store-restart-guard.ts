/**
 * The guard before a store component's pod restarts for an upgrade (TiKV, TiFlash). Two rules beyond
 * TiDB Operator v1, both about what a restart can lose:
 * - **Another store down holds the restart.** Regions keep a majority only while at most one of
 *   their replicas is away; restarting a store while another is not Up takes two away at once. v1
 *   checks this only under `tidb.pingcap.com/tikv-check-all-stores-up-before-upgrade: "true"`; here
 *   it is the default, and the annotation set to `"false"` turns it off. A store already failed over
 *   (in `failureStores`) holds nothing: its replacement carries its replicas.
 * - **A pod that is down already restarts at once.** A pod that is not Ready, whose store is not Up,
 *   serves no leaders: there is nothing to evict or wait for, and the restart may be what brings it
 *   back (an image reverted after a crash loop). v1 evicts and waits up to `evictLeaderTimeout`.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import { clusterWarning, EVENT_REASON } from '../cluster/events.js';
import { retry } from '../engine/outcome.js';
import type { MemberInput, Walk } from './component.js';
import { clusterPath, unlessRecorded } from './members.js';
import { isPodReady } from './statefulset.js';

/** The TidbCluster annotation of TiDB Operator's store check (ours: on unless it is `"false"`). */
export const CHECK_ALL_STORES_UP_ANNOTATION = 'tidb.pingcap.com/tikv-check-all-stores-up-before-upgrade';

/** A store as `status.<component>.stores` has it. */
type StatusStore = { readonly id?: string; readonly podName?: string; readonly state?: string };

/** The parts of `status.tikv` / `status.tiflash` the guard reads. */
export type StoreStatusView = {
  readonly stores?: Readonly<Record<string, StatusStore>>;
  readonly failureStores?: Readonly<Record<string, { readonly storeID?: string }>>;
};

/** Whether the cluster keeps the check on (every value but `"false"`, absent included). */
export function isAllStoresUpChecked(annotations: Readonly<Record<string, string>> | undefined): boolean {
  return annotations?.[CHECK_ALL_STORES_UP_ANNOTATION] !== 'false';
}

/**
 * Why `podName` may not restart while the other stores are as `status` has them — e.g. `store 2
 * (basic-tikv-1) is Disconnected` — or undefined. Only the component's own stores count (a TiFlash
 * store holds no voter of a TiKV region); Tombstones are not in `stores`; failure stores are skipped.
 * A store PD still has Up whose pod (found by `podOf`) is not serving steadily counts as not Up: its
 * process is dead or crash-looping, and PD has not noticed yet (see `isPodSettled`).
 */
export function otherStoresNotUp(status: StoreStatusView, podName: string, podOf: (name: string) => IPod | undefined = () => undefined, nowMs = 0): string | undefined {
  const failed = new Set(Object.values(status.failureStores ?? {}).map((f) => f.storeID));
  const down = Object.entries(status.stores ?? {})
    .map(([id, s]) => ({ id: s.id ?? id, podName: s.podName ?? '', state: storeStateOf(s.state ?? 'unknown', podOf(s.podName ?? ''), nowMs) }))
    .filter((s) => s.podName !== podName && s.state !== 'Up' && s.state !== 'Tombstone' && !failed.has(s.id))
    .sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  return down.length === 0 ? undefined : down.map((s) => `store ${s.id} (${s.podName}) is ${s.state}`).join(', ');
}

function storeStateOf(state: string, pod: IPod | undefined, nowMs: number): string {
  if (state !== 'Up' || pod === undefined || isPodSettled(pod, nowMs)) return state;
  return isPodReady(pod) ? `Up but its pod restarted within ${SETTLE_AFTER_RESTART_MS / 1000} s` : 'Up but its pod is not Ready';
}

/**
 * How long a container that has restarted must run before its pod counts as serving steadily. A
 * crash-looping TiKV or PD is Ready for seconds after each start (TiDB Operator gives them no
 * readiness probe but the process's port) and its store or member looks Up meanwhile; leaving it
 * behind, or restarting another member beside it, takes a second replica away once it crashes again.
 */
export const SETTLE_AFTER_RESTART_MS = 30_000;

/**
 * Whether the pod serves steadily at `nowMs`: Ready, and every container that has ever restarted
 * (`restartCount` > 0) running for at least `SETTLE_AFTER_RESTART_MS`. A pod whose containers never
 * restarted is settled as soon as it is Ready.
 */
export function isPodSettled(pod: IPod, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  return (pod.status?.containerStatuses ?? []).every((c) => {
    if ((c.restartCount ?? 0) === 0) return true;
    const startedAtMs = Date.parse(c.state?.running?.startedAt ?? '');
    return !Number.isNaN(startedAtMs) && nowMs - startedAtMs >= SETTLE_AFTER_RESTART_MS;
  });
}

/** Whether the pod is down already: it exists, is not Ready, and its store (if any) is not Up. */
export function isDownAlready(pod: IPod | undefined, storeState: string | undefined): boolean {
  return pod !== undefined && !isPodReady(pod) && storeState !== 'Up';
}

/**
 * The hold of `podName`'s restart while another store of the component is not Up (see the module
 * comment), or undefined when it may restart. The hold names the stores in its outcome and in a
 * Warning Event (once while it persists), and polls at the component's pace until they are back.
 */
export function storesHold(input: MemberInput, status: StoreStatusView, podName: string): Walk | undefined {
  if (!isAllStoresUpChecked(input.cluster.metadata.annotations)) return undefined;
  const down = otherStoresNotUp(status, podName, (name) => input.scope.pod(name), input.snapshot.nowMs);
  if (down === undefined) return undefined;
  const { title } = input.scope.component;
  const why = `${title} pod ${podName} of ${clusterPath(input)} is not restarted for the upgrade while another store is not Up: ${down}`;
  const warning = clusterWarning(input.cluster, EVENT_REASON.upgradeWaitsForStore, why);
  return { kind: 'hold', actions: unlessRecorded(warning), outcome: retry(input.scope.component.retryMs, why) };
}
