/**
 * TiKV's own names: the types of its spec and status, its ports (§2.10), and its object names.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';

/** `status.tikv`. */
export type TikvStatus = NonNullable<TidbClusterStatus['tikv']>;
/** One `status.tikv.stores` (or `peerStores`, `tombstoneStores`) entry. */
export type TikvStatusStore = NonNullable<TikvStatus['stores']>[string];
/** `spec.tikv`. */
export type TikvSpec = NonNullable<TidbCluster['spec']['tikv']>;

/** TiKV's server (gRPC, the store address) and status (HTTP: /metrics, /status) ports (§2.10). */
export const TIKV_PORTS = { server: 20160, status: 20180 } as const;

/** How soon a TiKV rule that made progress, or is polling PD, wants to look again. */
export const TIKV_RETRY_MS = 5_000;

/** The StatefulSet (and InPlace ConfigMap) name: `<tc>-tikv`. */
export const tikvSetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tikv`;

/** The headless peer Service name: `<tc>-tikv-peer`. */
export const tikvPeerServiceName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tikv-peer`;
