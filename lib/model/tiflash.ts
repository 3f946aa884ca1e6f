/**
 * What a step knows about TiFlash beyond PD's stores: the proxy's `/tiflash/store-status` of the
 * pods whose answer an upgrade waits on (reference §3.3). A pod missing from `storeStatus` was not
 * asked this step.
 */

/** One pod's `/tiflash/store-status`: the text it answered (`Idle|Ready|Running|Stopping|Terminated`), or why it did not. */
export type TiflashStoreStatusRead = { readonly status: string } | { readonly error: string };

/** TiFlash as observed in one step, by pod name. */
export type TiflashView = { readonly storeStatus: Readonly<Record<string, TiflashStoreStatusRead>> };
