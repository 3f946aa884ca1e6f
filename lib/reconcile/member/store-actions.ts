/**
 * The PD store calls a store scale makes, built in one place (reference §3.1): delete a store, set
 * an Offline one Up again, and add or remove the evict-leader scheduler of one store.
 */

import type { PdStoreAction } from '../../model/action.js';

/** `DELETE /pd/api/v1/store/{id}`: PD starts moving the store's regions away (Offline). */
export const pdDeleteStore = (storeId: string): PdStoreAction => ({ kind: 'pd.deleteStore', storeId });

/** `POST /pd/api/v1/store/{id}/state?state=Up`: cancels an Offline store's removal. */
export const pdSetStoreUp = (storeId: string): PdStoreAction => ({ kind: 'pd.setStoreState', storeId, state: 'Up' });

/** `POST /pd/api/v1/schedulers` `{name: "evict-leader-scheduler", store_id}`. */
export const pdBeginEvictLeader = (storeId: string): PdStoreAction => ({ kind: 'pd.beginEvictLeader', storeId });

/** `DELETE /pd/api/v1/schedulers/evict-leader-scheduler-{id}`. */
export const pdEndEvictLeader = (storeId: string): PdStoreAction => ({ kind: 'pd.endEvictLeader', storeId });
