/**
 * The TidbDashboard controller's recipe, as v1's `Reconcile` (release-1.6
 * `pkg/controller/tidbdashboard/tidb_dashboard_control.go`, `pkg/manager/tidbdashboard/*`), one
 * named stage a line:
 *   Validate   v1's checks and ours; invalid ⇒ Warning `FailedValidation` with every problem, no retry
 *   Deleting   an object being deleted needs nothing (its objects go by garbage collection)
 *   Cluster    the TidbCluster `spec.clusters[0]` names; missing ⇒ an error, retried with back-off
 *   Reclaim    each bound volume's reclaim policy set to `pvReclaimPolicy` (default Retain)
 *   TLS        the cluster's client certificates copied into the dashboard's own Secrets
 *   Service    `<td>-tidb-dashboard-exposed`: created, or updated when its applied spec differs
 *   Core       status from the StatefulSet (synced, phase, its status), then `<td>-tidb-dashboard`
 *              created or updated when its applied spec differs
 * The step writes status through /status only when it changed, as v1.
 */

import type { Outcome } from '../../model/outcome.js';
import type { Plan } from '../../model/plan.js';
import { complete, fail, wait } from '../engine/outcome.js';
import { planApply, SERVICE_APPLY, STATEFUL_SET_APPLY } from '../member/apply.js';
import { clusterRefOf, companionStatus, isCompanionReady } from '../companion/meta.js';
import { companionEvent, newDraft, note, toCompanionPlan, type CompanionDraft } from '../companion/plan.js';
import { planReclaimPolicy } from '../companion/reclaim.js';
import { planSecretCopies } from '../companion/tls.js';
import { clusterClientSecretName, isTlsCluster } from '../cluster/tls.js';
import { dashboardClusterTlsSecretName, dashboardMysqlTlsSecretName, dashboardService, dashboardStatefulSet, dashboardStatefulSetName, isMysqlTls, tidbClientSecretName } from './build.js';
import type { DashboardSnapshot } from './snapshot.js';
import type { TidbDashboard } from './types.js';
import { validateDashboard } from './validate.js';

/** Plans one step of a TidbDashboard. Pure: the same snapshot gives the same plan. */
export function planTidbDashboard(snap: DashboardSnapshot): Plan {
  const td = snap.td;
  if (td === undefined) return { actions: [], status: undefined, outcome: complete('TidbDashboard not found'), ruleResults: [] };
  const draft = newDraft();
  const outcome = runStages(draft, snap, td);
  const status = companionStatus(td.status, snap.sts, snap.pods);
  // v1 writes status only after a full sync (or its failure after the StatefulSet was read); an invalid or orphaned dashboard keeps its old one.
  const keep = draft.results.some((r) => r.rule === 'Validate' || r.rule === 'Cluster');
  return toCompanionPlan('TidbDashboard', td, keep ? { ...(td.status ?? {}) } : status, draft, [outcome]);
}

function runStages(draft: CompanionDraft, snap: DashboardSnapshot, td: TidbDashboard): Outcome {
  const problems = validateDashboard(td);
  if (problems.length > 0) {
    const message = problems.length === 1 ? (problems[0] ?? '') : `[${problems.join(', ')}]`;
    draft.events.push(companionEvent('TidbDashboard', td, 'Warning', 'FailedValidation', message));
    return note(draft, 'Validate', fail(`invalid spec: ${message}`, true));
  }
  if (td.metadata.deletionTimestamp !== undefined) return note(draft, 'Deleting', complete('TidbDashboard is being deleted'));
  const ref = clusterRefOf(td);
  const tc = snap.tc;
  if (tc === undefined || ref === undefined) return note(draft, 'Cluster', fail(`get tc ${ref?.namespace ?? ''}/${ref?.name ?? ''} failed: tidbcluster.pingcap.com "${ref?.name ?? ''}" not found`));
  // Reclaim: as v1, each bound volume gets `pvReclaimPolicy` (default Retain).
  draft.writes.push(...planReclaimPolicy(td.spec?.pvReclaimPolicy ?? 'Retain', snap.claims ?? [], snap.volumes ?? []));
  const name = td.metadata.name ?? '';
  const copies = [
    ...(isTlsCluster(tc) ? [{ to: dashboardClusterTlsSecretName(name), from: [{ name: clusterClientSecretName(tc.metadata.name ?? ''), keyPrefix: '' }] }] : []),
    ...(isMysqlTls(tc) ? [{ to: dashboardMysqlTlsSecretName(name), from: [{ name: tidbClientSecretName(tc.metadata.name ?? ''), keyPrefix: '' }] }] : []),
  ];
  const tls = planSecretCopies(draft, 'TidbDashboard', td, tc, copies, snap.secrets);
  if (tls !== undefined) return note(draft, 'TLS', tls);
  const service = planApply(SERVICE_APPLY, dashboardService(td), snap.service);
  if (service) draft.writes.push(service);
  note(draft, 'Service', service ? wait(`Service ${service.ref.name}: ${service.kind}`) : complete());
  const sts = planApply(STATEFUL_SET_APPLY, dashboardStatefulSet(td, tc), snap.sts);
  if (sts) {
    draft.writes.push(sts);
    return note(draft, 'Core', wait(`StatefulSet ${sts.ref.name}: ${sts.kind}`));
  }
  if (!isCompanionReady(snap.sts)) return note(draft, 'Core', wait(`StatefulSet ${dashboardStatefulSetName(name)} is not ready yet`));
  return note(draft, 'Core', complete('TiDB Dashboard is running'));
}
