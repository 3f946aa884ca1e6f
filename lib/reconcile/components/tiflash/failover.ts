/**
 * TiFlash's store access for the shared store failover (member/store-failover.ts), as TiDB Operator
 * v1's `tiflashStoreAccess`: `tiflashFailoverPeriod`, `spec.tiflash.maxFailoverCount` /
 * `recoverFailover` / `failover.recoverByUID`, `status.tiflash.stores` / `failureStores` /
 * `failoverUID`, and the desired replicas counting every failure store.
 */

import { tiflashDesiredReplicas } from '../../cluster/replicas.js';
import type { StoreAccess } from '../../member/store-access.js';
import { TIFLASH_RETRY_MS } from './names.js';

/** TiFlash's stores, as store failover and recovery read and write them. */
export const TIFLASH_STORES: StoreAccess = { component: 'tiflash', title: 'TiFlash', retryMs: TIFLASH_RETRY_MS, desiredReplicas: tiflashDesiredReplicas };
