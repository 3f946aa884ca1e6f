/**
 * TiFlash's own names and keys: the types of its spec and status, its ports (§2.3, §2.10), the
 * StatefulSet and Service names, and the data claims `data0..N` TiDB Operator v1 derives from
 * `spec.tiflash.storageClaims`.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';

/** `spec.tiflash`. */
export type TiflashSpec = NonNullable<TidbCluster['spec']['tiflash']>;
/** `status.tiflash`. */
export type TiflashStatus = NonNullable<TidbClusterStatus['tiflash']>;

/**
 * TiFlash's ports, as TiDB Operator v1: the headless Service publishes `tiflash` 3930, `proxy` 20170,
 * `metrics` 8234 and `proxy-metrics` 20292; the container also opens `tcp` 9000, `http` 8123 and
 * `internal` 9009.
 */
export const TIFLASH_PORTS = {
  tiflash: 3930,
  proxy: 20170,
  metrics: 8234,
  proxyMetrics: 20292,
  tcp: 9000,
  http: 8123,
  internal: 9009,
} as const;

/** How soon a TiFlash rule that made progress, or is polling, wants to look again. */
export const TIFLASH_RETRY_MS = 5_000;

/** The StatefulSet (and InPlace ConfigMap) name: `<tc>-tiflash`. */
export const tiflashSetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tiflash`;

/** The headless peer Service name: `<tc>-tiflash-peer`. */
export const tiflashPeerServiceName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tiflash-peer`;

/** The volume (and claim template) of the `index`-th storage claim: `data<index>`. */
export const tiflashDataVolume = (index: number): string => `data${index}`;

/** The data claim every TiFlash pod has: `data0`, whose PVCs are `data0-<tc>-tiflash-<ordinal>`. */
export const TIFLASH_DATA_CLAIM = tiflashDataVolume(0);
