/**
 * TiFlash's part of the shared rolling upgrade, as TiDB Operator v1's `tiflashUpgrader` (§2.3,
 * Fixture L): no leader eviction before a pod restarts; an updated pod with a store may be left
 * behind only when its store is `Up` and — for TiFlash ≥ v5.1.2, the first whose proxy serves it —
 * `/tiflash/store-status` answers `Running`. Every wait is a short poll.
 */

import type { Outcome } from '../../../model/outcome.js';
import { observedTiflash } from '../../cluster/observed.js';
import { retry } from '../../engine/outcome.js';
import type { MemberInput, Walk } from '../../member/component.js';
import { isVersionAtLeast } from '../../member/cmpver.js';
import { isDownAlready, storesHold } from '../../member/store-restart-guard.js';
import { upgraderWho } from '../../member/upgrade.js';
import { TIFLASH_RETRY_MS } from './names.js';
import { tiflashVersion } from './pod-template.js';

/** The first TiFlash whose proxy serves `/tiflash/store-status` (TiDB Operator issue 4159). */
export const STORE_STATUS_SINCE = 'v5.1.2';

/**
 * Whether the upgrade asks TiFlash `version` for its store status: from v5.1.2 on (latest, nightly
 * and master included); a tag that is no version skips the check, as TiDB Operator does.
 */
export const isStoreStatusChecked = (version: string): boolean => isVersionAtLeast(version, STORE_STATUS_SINCE) === true;

/**
 * As TiDB Operator, TiFlash pods restart without any preparation (no leaders to evict); beyond it,
 * not while another TiFlash store is not Up, unless the pod is down already (store-restart-guard.ts).
 */
export function beforeTiflashRestart(input: MemberInput, ordinal: number): Walk {
  const podName = input.scope.podName(ordinal);
  const status = input.status.tiflash ?? {};
  const store = Object.values(status.stores ?? {}).find((s) => s.podName === podName);
  if (isDownAlready(input.scope.pod(podName), store?.state)) return { kind: 'roll', ordinal };
  return storesHold(input, status, podName) ?? { kind: 'roll', ordinal };
}

/**
 * Why the updated, available TiFlash pod `podName` may not be left behind yet, or undefined. A pod
 * without a store in `status.tiflash.stores` is not checked (as TiDB Operator moves past it).
 */
export function tiflashUpdatedPodHold(input: MemberInput, podName: string): Outcome | undefined {
  const store = Object.values(input.status.tiflash?.stores ?? {}).find((s) => s.podName === podName);
  if (!store) return undefined;
  const said = `${upgraderWho(input)}'s upgraded TiFlash pod: [${podName}]`;
  if (store.state !== 'Up') return retry(TIFLASH_RETRY_MS, `${said}, store state is not UP`);
  if (!isStoreStatusChecked(tiflashVersion(input.cluster))) return undefined;
  const read = observedTiflash(input.snapshot)?.storeStatus[podName];
  if (read === undefined) return retry(TIFLASH_RETRY_MS, `${said}, get store status failed: not asked yet`);
  if ('error' in read) return retry(TIFLASH_RETRY_MS, `${said}, get store status failed: ${read.error}`);
  if (read.status !== 'Running') return retry(TIFLASH_RETRY_MS, `${said}, store status is ${read.status} instead of Running`);
  return undefined;
}
