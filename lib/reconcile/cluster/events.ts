/**
 * Kubernetes Events as rules ask for them: an `event` action with TiDB Operator v1's reasons, so
 * `kubectl describe tc` reads the same as under the operator. Rules decide when an Event is due (e.g.
 * once per spec generation); this module only builds the action.
 */

import type { EventAction } from '../../model/action.js';
import type { ObjectRef, TidbCluster } from '../../model/kube.js';

/** Normal or Warning, as core/v1 Events. */
export type EventType = EventAction['type'];

/** TiDB Operator v1's event reasons (exact strings, and one of ours, marked), by what they report. */
export const EVENT_REASON = {
  /** The TidbCluster spec failed validation; nothing is reconciled until it is fixed. */
  failedValidation: 'FailedValidation',
  /** A scale-in was refused (PD to 0 under live members, TiKV below max-replicas). */
  failedScaleIn: 'FailedScaleIn',
  /** A PD member of this cluster is unhealthy (failover quorum check). */
  pdMemberUnhealthy: 'PDMemberUnhealthy',
  /** A PD peer member (another TidbCluster sharing this PD) is unhealthy. */
  pdPeerMemberUnhealthy: 'PDPeerMemberUnhealthy',
  /** A failed PD member was deleted from PD by failover. */
  pdMemberDeleted: 'PDMemberDeleted',
  /** PD refused the labels of a store (the step goes on). */
  failedSetStoreLabels: 'FailedSetStoreLabels',
  /** Ours (v1 only logs it): a TiDB server refused its server labels (the step goes on). */
  failedSetServerLabels: 'FailedSetServerLabels',
  /** Ours (v1 only logs it): a TiProxy refused its labels (the step goes on). */
  failedSetTiproxyLabels: 'FailedSetTiProxyLabels',
  /** A TiKV store or TiDB member was marked as a failure. */
  unhealthy: 'Unhealthy',
  /** Host-down recovery deleted a failure store in PD (`--detect-node-failure`). */
  storeDeleted: 'StoreDeleted',
  /** Ours: restarting or removing a PD member waits, because it would leave PD without a majority serving. */
  pdQuorumAtRisk: 'PDQuorumAtRisk',
  /** Ours: a TiKV or TiFlash pod's restart for an upgrade waits, because another store is not Up. */
  upgradeWaitsForStore: 'UpgradeWaitsForStore',
} as const;

/**
 * An Event reason: one of `EVENT_REASON`, a per-component one such as `FailedUpdateTiKVSTS`, or
 * another TiDB Operator reason a rule needs (PascalCase, as Kubernetes recommends).
 */
export type EventReason = string;

/** The reference to `tc` itself, the involved object of cluster-level Events. */
export function clusterRef(tc: TidbCluster): ObjectRef {
  return { kind: 'TidbCluster', namespace: tc.metadata.namespace ?? '', name: tc.metadata.name ?? '' };
}

/** An Event about `object` (a TidbCluster, pod, PVC, …). */
export function objectEvent(object: ObjectRef, type: EventType, reason: EventReason, message: string): EventAction {
  return { kind: 'event', type, reason, message, object };
}

/** An Event about the TidbCluster itself (as TiDB Operator records most of its Events). */
export function clusterEvent(tc: TidbCluster, type: EventType, reason: EventReason, message: string): EventAction {
  return objectEvent(clusterRef(tc), type, reason, message);
}

/** A Warning Event about the TidbCluster. */
export function clusterWarning(tc: TidbCluster, reason: EventReason, message: string): EventAction {
  return clusterEvent(tc, 'Warning', reason, message);
}

/** A Normal Event about the TidbCluster. */
export function clusterNormal(tc: TidbCluster, reason: EventReason, message: string): EventAction {
  return clusterEvent(tc, 'Normal', reason, message);
}
