/**
 * What TiKV's rolling upgrade needs beyond the shared walk (member/upgrade.ts), as TiDB Operator v1's
 * `tikv_upgrader.go` (§2.2 Upgrade, Fixture H): before a store's pod restarts, its leaders are
 * evicted — `leaderCountBeforeUpgrade` recorded, `evict-leader-scheduler-<id>` added, the pod
 * annotated `evictLeaderBeginTime` — until its `/metrics` shows no leader or `evictLeaderTimeout`
 * passes; an updated pod's store must be Up, and its leaders back, before the next one restarts.
 * Beyond v1: the scheduler is re-verified in PD on every step and added again when PD lost it (P1),
 * a single store restarts without eviction (P4), and the scheduler is removed only by the cleanup
 * rule once the restarted store is Up (evict-leader.ts, P2/P3). Polls are short retries; the step
 * after a write runs at once.
 */

import type { Outcome } from '../../../model/outcome.js';
import { observedPd } from '../../cluster/observed.js';
import { retry } from '../../engine/outcome.js';
import type { MemberInput, Walk } from '../../member/component.js';
import { clusterPath } from '../../member/members.js';
import { replicasOf } from '../../member/statefulset.js';
import { upgraderWho } from '../../member/upgrade.js';
import {
  EVICT_KEYS,
  annotationTimeMs,
  areLeadersBack,
  beginAnnotations,
  goDurationMs,
  hasEvictScheduler,
  patchPodAnnotations,
  storeOfPod,
  tikvStatusOf,
  withStore,
} from './evict-leader.js';
import type { TikvStatusStore } from './names.js';
import { isDownAlready, storesHold } from '../../member/store-restart-guard.js';

/** As TiDB Operator's default `spec.tikv.evictLeaderTimeout`: 1500 minutes. */
export const DEFAULT_EVICT_LEADER_TIMEOUT_MS = 1500 * 60_000;


/** As TiDB Operator: fewer than two TiKV pods and no peer store — leaders have nowhere to go (P4). */
export function isSingleStore(input: MemberInput): boolean {
  const replicas = input.scope.set ? replicasOf(input.scope.set) : 0;
  return replicas < 2 && Object.keys(tikvStatusOf(input).peerStores ?? {}).length === 0;
}

const evictingMessage = (input: MemberInput, podName: string): string => `upgradeTiKVPod: evicting leader of pod ${podName} for tc ${clusterPath(input)}`;

/**
 * Begins evicting the leaders of `store` (as TiDB Operator, in this order): the leader count is
 * recorded, the scheduler added, then the pod annotated — so a refused scheduler leaves no annotation.
 */
function beginEviction(input: MemberInput, podName: string, store: TikvStatusStore): Walk {
  const pod = input.scope.pod(podName);
  if (!pod) return { kind: 'hold', outcome: retry(input.scope.component.retryMs, `waiting for pod ${podName}`) };
  return {
    kind: 'hold',
    status: withStore(input.status, store.id, (s) => ({ ...s, leaderCountBeforeUpgrade: s.leaderCount })),
    actions: [{ kind: 'pd.beginEvictLeader', storeId: store.id }, patchPodAnnotations(input, pod, beginAnnotations(input))],
    outcome: retry(0, evictingMessage(input, podName)),
    stop: true,
  };
}

/**
 * TiKV's `beforeRestart`: a single store rolls at once (P4); a pod whose store is not in the status
 * rolls (as TiDB Operator); so does a pod down already (store-restart-guard.ts); another store not Up
 * holds it (on unless the cluster opts out); then leader eviction — begun once,
 * re-verified against PD every step (a lost scheduler is added again, P1), done when the pod's
 * `/metrics` shows 0 leaders or `evictLeaderTimeout` (default 1500m) has passed since it began.
 */
export function beforeTikvRestart(input: MemberInput, ordinal: number): Walk {
  const podName = input.scope.podName(ordinal);
  const pollMs = input.scope.component.retryMs;
  if (isSingleStore(input)) return { kind: 'roll', ordinal };
  const store = storeOfPod(input, podName);
  if (!store) return { kind: 'roll', ordinal };
  if (isDownAlready(input.scope.pod(podName), store.state)) return { kind: 'roll', ordinal };
  const held = storesHold(input, tikvStatusOf(input), podName);
  if (held) return held;
  const beganAtMs = annotationTimeMs(input.scope.pod(podName), EVICT_KEYS.beginTime);
  if (beganAtMs === undefined) return beginEviction(input, podName, store);
  const timeoutMs = goDurationMs(input.cluster.spec.tikv?.evictLeaderTimeout) ?? DEFAULT_EVICT_LEADER_TIMEOUT_MS;
  if (input.snapshot.nowMs >= beganAtMs + timeoutMs) return { kind: 'roll', ordinal };
  const view = observedPd(input.snapshot);
  if (!view) return { kind: 'hold', outcome: retry(pollMs, `${evictingMessage(input, podName)}: PD could not be read to verify its evict-leader scheduler`) };
  if (!hasEvictScheduler(view, store.id)) {
    const message = `${evictingMessage(input, podName)}: PD lost evict-leader-scheduler-${store.id}, adding it again`;
    return { kind: 'hold', actions: [{ kind: 'pd.beginEvictLeader', storeId: store.id }], outcome: retry(0, message), stop: true };
  }
  const read = input.snapshot.tikvLeaders?.[podName];
  if (read === undefined || 'error' in read) return { kind: 'hold', outcome: retry(pollMs, `${evictingMessage(input, podName)}: leader count unknown${read ? ` (${read.error})` : ''}`) };
  if (read.leaderCount > 0) return { kind: 'hold', outcome: retry(pollMs, `${evictingMessage(input, podName)}: ${read.leaderCount} leaders left`) };
  return { kind: 'roll', ordinal };
}

/**
 * TiKV's `updatedPodHold`: the updated pod's store must be Up, and — for a store that had at least
 * 200 leaders — 2/3 of them back, or `waitLeaderTransferBackTimeout` (default 400 s) passed since
 * its scheduler was removed. The scheduler itself is removed by the cleanup rule in this same step
 * (evict-leader.ts), which runs before the upgrade, so it never outlives the store coming Up.
 */
export function tikvUpdatedPodHold(input: MemberInput, podName: string): Outcome | undefined {
  const store = storeOfPod(input, podName);
  if (!store) return undefined;
  const pollMs = input.scope.component.retryMs;
  if (store.state !== 'Up') return retry(pollMs, `${upgraderWho(input)}'s upgraded tikv pod: [${podName}] is not all ready`);
  if (!areLeadersBack(input, store, annotationTimeMs(input.scope.pod(podName), EVICT_KEYS.endAt))) {
    return retry(pollMs, `waiting to end evict leader of pod ${podName} for tc ${clusterPath(input)}: ${store.leaderCount} of ${store.leaderCountBeforeUpgrade ?? 0} leaders back`);
  }
  return undefined;
}
