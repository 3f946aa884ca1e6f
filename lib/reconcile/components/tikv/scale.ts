/**
 * TiKV's parts of the shared scale (§2.2 Scaling, TiDB Operator v1's `tikv_scaler.go`): a store
 * leaves PD before its pod goes — Up-stores check against `max-replicas`, leader eviction (5 min
 * cap), DELETE, Tombstone — and a scale-out never mounts a claim it cannot account for. The
 * machinery is the store scale every store component shares (member/store-scale.ts); this file
 * says what is TiKV's: leaders are evicted, and TiFlash stores do not count towards max-replicas.
 */

import type { PdStore } from '../../../model/pd.js';
import type { MemberDecision, MemberInput, ScaleInCheck, ScaleSettle } from '../../member/component.js';
import {
  planStoreScaleIn,
  planStoreScaleInSettle,
  planStoreScaleOutClaims,
  type StoreScaleOptions,
} from '../../member/store-scale.js';

/** As TiDB Operator's `MatchLabelFromStoreLabels(…, "tikv")`: a store not labelled `engine=tiflash` is TiKV's. */
export const isTikvStore = (store: PdStore): boolean => store.labels.engine !== 'tiflash';

/** TiKV's store scale: evict leaders first; TiKV stores count against max-replicas. */
export const TIKV_STORE_SCALE: StoreScaleOptions = {
  evictLeaders: true,
  countsForReplicas: isTikvStore,
  isBootstrapped: (input) => input.status.tikv?.bootStrapped === true,
};

/** TiKV's `beforeScaleIn`: its store leaves PD (see member/store-scale.ts) before its PVCs are released. */
export const beforeTikvScaleIn = (input: MemberInput, podName: string): ScaleInCheck => planStoreScaleIn(input, podName, TIKV_STORE_SCALE);

/** TiKV's `settleScaleIn`: a scale-in overtaken by a scale-out is cancelled or finished (P14). */
export const settleTikvScaleIn = (input: MemberInput, podName: string): ScaleSettle => planStoreScaleInSettle(input, podName);

/** TiKV's `beforeScaleOut`: the next ordinal's leftover claims hold the scale-out, unless they hold a removed store (P21). */
export const beforeTikvScaleOut = (input: MemberInput, podName: string): MemberDecision | undefined => planStoreScaleOutClaims(input, podName);
