/**
 * TiKV's store access for the shared store failover (member/store-failover.ts), as TiDB Operator
 * v1's `tikvStoreAccess`: `tikvFailoverPeriod`, `spec.tikv.maxFailoverCount` / `recoverFailover` /
 * `failover.recoverByUID`, `status.tikv.stores` / `failureStores` / `failoverUID`, and the desired
 * replicas counting every failure store.
 */

import { tikvDesiredReplicas } from '../../cluster/replicas.js';
import type { StoreAccess } from '../../member/store-access.js';
import { TIKV_RETRY_MS } from './names.js';

/** TiKV's stores, as store failover and recovery read and write them. */
export const TIKV_STORES: StoreAccess = { component: 'tikv', title: 'TiKV', retryMs: TIKV_RETRY_MS, desiredReplicas: tikvDesiredReplicas };
