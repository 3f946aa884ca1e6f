/**
 * PD's own names and keys: the types of its spec and status, the annotation keys TiDB Operator v1
 * reads for PD (§2.10), its ports, and its status as the rules before this one left it.
 */

import type { TidbCluster, TidbClusterStatus } from '../../../model/kube.js';
import type { RuleInput } from '../../engine/rule.js';

/** `status.pd`. */
export type PdStatus = NonNullable<TidbClusterStatus['pd']>;
/** One `status.pd.members` entry. */
export type PdStatusMember = NonNullable<PdStatus['members']>[string];
/** One `status.pd.failureMembers` entry. */
export type PdFailureMember = NonNullable<PdStatus['failureMembers']>[string];

/** TiDB Operator's annotation keys the PD rules read or write (§2.10). */
export const PD_KEYS = {
  forceUpgrade: 'tidb.pingcap.com/force-upgrade',
  checkQuorumBeforeUpgrade: 'tidb.pingcap.com/pd-check-quorum-before-upgrade',
} as const;

/** PD's client and peer ports (§2.10). */
export const PD_PORTS = { client: 2379, peer: 2380 } as const;

/** How soon a PD rule that made progress, or is polling PD, wants to look again. */
export const PD_RETRY_MS = 5_000;

/**
 * How soon a rule waiting on a change inside PD — which no Kubernetes event announces (a leader
 * transfer, an updated member turning healthy or ready) — looks again: PD makes such changes in
 * about a second, so a longer wait is time lost.
 */
export const PD_POLL_MS = 1_000;

/** The StatefulSet (and ConfigMap, client Service) name: `<tc>-pd`. */
export const pdSetName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-pd`;

/** The headless peer Service name: `<tc>-pd-peer`. */
export const pdPeerServiceName = (tc: TidbCluster): string => `${tc.metadata.name ?? ''}-pd-peer`;

/** The cluster's `status.pd` as the rules before this one left it (empty when there is none). */
export const pdStatusOf = (input: RuleInput): PdStatus => input.status.pd ?? {};

/** The input's status with `status.pd` replaced. */
export function withPdStatus(input: RuleInput, pd: PdStatus): TidbClusterStatus {
  return { ...input.status, pd };
}
