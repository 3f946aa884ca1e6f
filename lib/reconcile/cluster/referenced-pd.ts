/**
 * A cluster that joins another one's PD (`spec.cluster`, TiDB Operator's heterogeneous clusters)
 * learns nothing from its own objects when that PD changes: PD coming up, its stores registering
 * and turning Up are the other cluster's events. TiDB Operator resyncs every cluster every 30 s; here
 * the `ReferencedPd` status rule asks to look again while such a cluster is on its way — soon while
 * that PD cannot be read, a little later while the cluster is not Ready — and asks for nothing once
 * it is Ready (events and the sweep cover drift from there).
 */

import type { TidbCluster } from '../../model/kube.js';
import { complete } from '../engine/outcome.js';
import type { RuleInput, StatusDecision } from '../engine/rule.js';
import { pdReadError } from './observed.js';

/** How soon to look again while the referenced PD cannot be read. */
export const REFERENCED_PD_UNREAD_RETRY_MS = 5_000;
/** How soon to look again while the cluster is not Ready on a PD that is read. */
export const REFERENCED_PD_CONVERGING_RETRY_MS = 15_000;

/** The TidbCluster whose PD `tc` joins (its namespace defaults to tc's), when it has no PD of its own. */
export function referencedPdOf(tc: TidbCluster): { readonly namespace: string; readonly name: string } | undefined {
  if (tc.spec.pd !== undefined && tc.spec.pd !== null) return undefined;
  const name = tc.spec.cluster?.name;
  if (name === undefined || name === '') return undefined;
  return { namespace: tc.spec.cluster?.namespace || tc.metadata.namespace || '', name };
}

/**
 * The name of the TidbCluster whose PD Service (`<name>-pd`) the start scripts of tc's components
 * connect to: the referenced cluster's when tc has no PD of its own (`referencedPdOf`), tc's own
 * otherwise. As TiDB Operator v1's start scripts, the Service is named without a namespace.
 */
export function pdServiceClusterOf(tc: TidbCluster): string {
  return referencedPdOf(tc)?.name ?? tc.metadata.name ?? '';
}

/**
 * The `ReferencedPd` rule (after the Ready condition is computed). Guarantees: never changes the
 * status; for a cluster with its own PD or no reference it asks for nothing; otherwise it asks to be
 * woken after `REFERENCED_PD_UNREAD_RETRY_MS` while that PD could not be read, after
 * `REFERENCED_PD_CONVERGING_RETRY_MS` while the cluster is not Ready, and not at all once it is.
 */
export function planReferencedPd({ cluster, status, snapshot }: RuleInput): StatusDecision {
  const ref = referencedPdOf(cluster);
  if (ref === undefined) return { outcome: complete() };
  const pd = `${ref.namespace}/${ref.name}`;
  const error = pdReadError(snapshot);
  if (error !== undefined) {
    return { outcome: complete(`PD of ${pd} not read (${error}): looking again`), wakeAtMs: snapshot.nowMs + REFERENCED_PD_UNREAD_RETRY_MS };
  }
  const ready = (status.conditions ?? []).find((c) => c.type === 'Ready')?.status === 'True';
  if (ready) return { outcome: complete() };
  return { outcome: complete(`not Ready yet on the PD of ${pd}: looking again`), wakeAtMs: snapshot.nowMs + REFERENCED_PD_CONVERGING_RETRY_MS };
}
