/**
 * TiDB's own names and keys: the types of its status, the annotation keys TiDB Operator v1 reads
 * or writes for TiDB (§2.4, §2.10), its ports, and its status as the rules before this one left it.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';
import type { RuleInput } from '../../engine/rule.js';

/** `status.tidb`. */
export type TidbStatus = NonNullable<TidbClusterStatus['tidb']>;
/** One `status.tidb.members` entry. */
export type TidbStatusMember = NonNullable<TidbStatus['members']>[string];
/** One `status.tidb.failureMembers` entry. */
export type TidbFailureMember = NonNullable<TidbStatus['failureMembers']>[string];

/** TiDB's MySQL and status ports (§2.10). */
export const TIDB_PORTS = { server: 4000, status: 10080 } as const;

/** How soon a TiDB rule that made progress, or is polling, wants to look again. */
export const TIDB_RETRY_MS = 5_000;

/** The StatefulSet (and ConfigMap, client Service) name: `<tc>-tidb`. */
export const tidbSetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tidb`;

/** The headless peer Service name: `<tc>-tidb-peer`. */
export const tidbPeerServiceName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-tidb-peer`;

/** The cluster's `status.tidb` as the rules before this one left it (empty when there is none). */
export const tidbStatusOf = (input: RuleInput): TidbStatus => input.status.tidb ?? {};

/** The input's status with `status.tidb` replaced. */
export function withTidbStatus(input: RuleInput, tidb: TidbStatus): TidbClusterStatus {
  return { ...input.status, tidb };
}
