/**
 * The cluster-level status: the `Ready` condition, computed as TiDB Operator's condition updater
 * (`tidb_cluster_condition_updater.go`) from the status the component rules built before it — and,
 * beyond it, from whether PD could be read this step: a PD that cannot be read is never "fully up".
 */

import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import type { PdReadFailure, Snapshot } from '../../model/snapshot.js';
import { setCondition, type ConditionValue } from './condition.js';
import { complete } from '../engine/outcome.js';
import {
  areStatefulSetsUpToDate,
  isPdAllMembersReady,
  isTicdcAllCapturesReady,
  isTidbAllMembersReady,
  isTiflashAllStoresReady,
  isTikvAllStoresReady,
  isTiproxyAllMembersReady,
} from './replicas.js';
import type { RuleInput, StatusDecision } from '../engine/rule.js';
import { INVALID_SPEC_CONDITION } from './admission.js';
import { observedPd, pdReadError, pdReadErrorKind } from './observed.js';

/**
 * The `Ready` condition's reasons: TiDB Operator's exact strings, and three of our own for a PD that
 * could not be read (TiDB Operator keeps reporting the members' last health, often `Ready`).
 */
export const READY_REASONS = {
  statefulSetNotUpToDate: 'StatefulSetNotUpToDate',
  pdUnreachable: 'PDUnreachable',
  pdRefusesClient: 'PDRefusesClient',
  pdQuorumLost: 'PDQuorumLost',
  pdUnhealthy: 'PDUnhealthy',
  tikvStoreNotUp: 'TiKVStoreNotUp',
  tidbUnhealthy: 'TiDBUnhealthy',
  tiflashStoreNotUp: 'TiFlashStoreNotUp',
  ticdcCaptureNotReady: 'TiCDCCaptureNotReady',
  tiproxyUnhealthy: 'TiProxyUnhealthy',
  ready: 'Ready',
} as const;

type Spec = TidbCluster['spec'];

/**
 * Why a TLS cluster's PD refuses the reconciler, and what to do: the components require a client
 * certificate signed by the cluster CA; the API server's proxy presents none (docs/adr/0018).
 */
export const PD_REFUSES_CLIENT =
  'PD refused the reconciler in the TLS handshake: under tlsCluster every component requires a client certificate signed by the cluster CA, ' +
  'which the API server proxy does not present; run the functions in the cluster VPC with COMPONENT_ACCESS=direct (docs/adr/0018)';
type Check = { reason: string; message: string; isBlocking: (spec: Spec, status: TidbClusterStatus, pdRead: PdReadFailure | undefined) => boolean };

// Checked in this order; the first that blocks gives the reason (as TiDB Operator's switch).
const CHECKS: readonly Check[] = [
  {
    reason: READY_REASONS.statefulSetNotUpToDate,
    message: 'Statefulset(s) are in progress',
    isBlocking: (_spec, status) => !areStatefulSetsUpToDate(status),
  },
  {
    reason: READY_REASONS.pdRefusesClient,
    message: PD_REFUSES_CLIENT,
    isBlocking: (spec, _status, pdRead) => spec.pd !== undefined && pdRead === 'clientRefused',
  },
  {
    reason: READY_REASONS.pdUnreachable,
    message: 'PD cannot be reached: its members are not known to be healthy',
    isBlocking: (spec, _status, pdRead) => spec.pd !== undefined && pdRead === 'unreachable',
  },
  {
    reason: READY_REASONS.pdQuorumLost,
    message: 'PD has no leader: it lost quorum',
    isBlocking: (spec, _status, pdRead) => spec.pd !== undefined && pdRead === 'noLeader',
  },
  {
    reason: READY_REASONS.pdUnhealthy,
    message: 'PD(s) are not healthy',
    isBlocking: (spec, status) => spec.pd !== undefined && !isPdAllMembersReady(spec, status),
  },
  {
    reason: READY_REASONS.tikvStoreNotUp,
    message: 'TiKV store(s) are not up',
    isBlocking: (spec, status) => spec.tikv !== undefined && !isTikvAllStoresReady(spec, status),
  },
  {
    reason: READY_REASONS.tidbUnhealthy,
    message: 'TiDB(s) are not healthy',
    isBlocking: (spec, status) => spec.tidb !== undefined && !isTidbAllMembersReady(spec, status),
  },
  {
    reason: READY_REASONS.tiflashStoreNotUp,
    message: 'TiFlash store(s) are not up',
    isBlocking: (spec, status) => spec.tiflash !== undefined && !isTiflashAllStoresReady(spec, status),
  },
  {
    reason: READY_REASONS.ticdcCaptureNotReady,
    message: 'TiCDC capture(s) are not ready',
    isBlocking: (spec, status) => spec.ticdc !== undefined && !isTicdcAllCapturesReady(spec, status),
  },
  {
    reason: READY_REASONS.tiproxyUnhealthy,
    message: 'TiProxy(s) are not healthy',
    isBlocking: (spec, status) => spec.tiproxy !== undefined && !isTiproxyAllMembersReady(spec, status),
  },
];

/**
 * The `Ready` condition for a spec and status: False with the first blocking reason, else True.
 * `pdRead` is how reading PD failed this step (undefined when it was read or not needed).
 */
export function planReadyCondition(spec: Spec, status: TidbClusterStatus, pdRead?: PdReadFailure): ConditionValue {
  // An invalid spec is what is wrong first: nothing else is reconciled until it is fixed (admission.ts).
  const invalid = status.conditions?.find((c) => c.type === INVALID_SPEC_CONDITION && c.status === 'True');
  if (invalid) return { type: 'Ready', status: 'False', reason: INVALID_SPEC_CONDITION, message: `the spec is invalid: ${invalid.message?.replace(/^generation \d+: /, '') ?? ''}` };
  const blocking = CHECKS.find((check) => check.isBlocking(spec, status, pdRead));
  if (blocking) return { type: 'Ready', status: 'False', reason: blocking.reason, message: blocking.message };
  const message = 'TiDB cluster is fully up and running';
  return { type: 'Ready', status: 'True', reason: READY_REASONS.ready, message };
}

/** How reading PD failed in this snapshot: undefined when PD was read or not asked (no PD `error`). */
export function pdReadFailure(snapshot: Snapshot): PdReadFailure | undefined {
  if (observedPd(snapshot) !== undefined || pdReadError(snapshot) === undefined) return undefined;
  return pdReadErrorKind(snapshot) ?? 'unreachable';
}

/**
 * The `ClusterStatus` rule. Guarantees: the status comes back unchanged (undefined) when the `Ready`
 * condition's status and reason are unchanged, so a steady cluster writes nothing; the outcome is
 * always `complete` — readiness is reported, not waited for (component rules do the waiting).
 */
export function planClusterStatus({ cluster, status, snapshot }: RuleInput): StatusDecision {
  const ready = planReadyCondition(cluster.spec, status, pdReadFailure(snapshot));
  const current = status.conditions ?? [];
  const conditions = setCondition(current, ready, snapshot.nowMs);
  if (conditions === current) return { outcome: complete() };
  return { status: { ...status, conditions: [...conditions] }, outcome: complete() };
}
