/**
 * The TidbNGMonitoring controller's recipe, as v1's `Reconcile` (release-1.6
 * `pkg/controller/tidbngmonitoring/tidb_ng_monitoring_control.go`, `pkg/manager/tidbngmonitoring/*`),
 * one named stage a line:
 *   Validate   v1's checks and ours; invalid ⇒ Warning `FailedValidation` with every problem, no retry
 *   Deleting   an object being deleted needs nothing (its objects go by garbage collection)
 *   Cluster    the TidbCluster `spec.clusters[0]` names; missing ⇒ an error, retried with back-off
 *   Reclaim    each bound volume's reclaim policy set to `pvReclaimPolicy` (default Retain)
 *   Assets     Secret `<tngm>-tc-client-tls`: the cluster's client certificates under TLS, else empty
 *   Service    the headless `<tngm>-ng-monitoring` (not while paused)
 *   Core       status from the StatefulSet; paused ⇒ stop here; else the ConfigMap (digest-named) and
 *              the StatefulSet created or updated when their applied content differs
 * The step writes status through /status only when it changed, as v1 — after a failed sync too.
 */

import type { Outcome } from '../../model/outcome.js';
import type { Plan } from '../../model/plan.js';
import { clusterClientSecretName, isTlsCluster } from '../cluster/tls.js';
import { clusterRefOf, companionStatus, isCompanionReady } from '../companion/meta.js';
import { companionEvent, newDraft, note, toCompanionPlan, type CompanionDraft } from '../companion/plan.js';
import { planReclaimPolicy } from '../companion/reclaim.js';
import { planSecretCopies } from '../companion/tls.js';
import { complete, fail, wait } from '../engine/outcome.js';
import { CONFIG_MAP_APPLY, planApply, SERVICE_APPLY, STATEFUL_SET_APPLY } from '../member/apply.js';
import { ngmAssetKey, ngmConfigMap, ngmName, ngmService, ngmStatefulSet, ngmTlsSecretName } from './build.js';
import type { NgMonitoringSnapshot } from './snapshot.js';
import type { TidbNGMonitoring } from './types.js';
import { validateNgMonitoring } from './validate.js';

/** Plans one step of a TidbNGMonitoring. Pure: the same snapshot gives the same plan. */
export function planTidbNgMonitoring(snap: NgMonitoringSnapshot): Plan {
  const tngm = snap.tngm;
  if (tngm === undefined) return { actions: [], status: undefined, outcome: complete('TidbNGMonitoring not found'), ruleResults: [] };
  const draft = newDraft();
  const outcome = runStages(draft, snap, tngm);
  // An invalid object keeps its status (v1 returns before reconciling), as does one without a StatefulSet yet;
  // otherwise v1 writes what it found even after an error.
  const invalid = draft.results.some((r) => r.rule === 'Validate') || snap.sts === undefined;
  const status = invalid ? { ...(tngm.status ?? {}) } : { ...(tngm.status ?? {}), ngMonitoring: companionStatus(tngm.status?.ngMonitoring, snap.sts, snap.pods) };
  return toCompanionPlan('TidbNGMonitoring', tngm, status, draft, [outcome]);
}

function runStages(draft: CompanionDraft, snap: NgMonitoringSnapshot, tngm: TidbNGMonitoring): Outcome {
  const problems = validateNgMonitoring(tngm);
  if (problems.length > 0) {
    const message = problems.length === 1 ? (problems[0] ?? '') : `[${problems.join(', ')}]`;
    draft.events.push(companionEvent('TidbNGMonitoring', tngm, 'Warning', 'FailedValidation', message));
    return note(draft, 'Validate', fail(`invalid spec: ${message}`, true));
  }
  if (tngm.metadata.deletionTimestamp !== undefined) return note(draft, 'Deleting', complete('TidbNGMonitoring is being deleted'));
  const ref = clusterRefOf(tngm);
  const tc = snap.tc;
  if (tc === undefined || ref === undefined) return note(draft, 'Cluster', fail(`get tc ${ref?.namespace ?? ''}/${ref?.name ?? ''} failed: tidbcluster.pingcap.com "${ref?.name ?? ''}" not found`));
  // Reclaim: as v1, each bound volume gets `pvReclaimPolicy` (default Retain).
  draft.writes.push(...planReclaimPolicy(tngm.spec?.pvReclaimPolicy ?? 'Retain', snap.claims ?? [], snap.volumes ?? []));
  const name = tngm.metadata.name ?? '';
  const tcName = tc.metadata.name ?? '';
  // Under TLS the copy is re-checked every step (a renewed certificate is copied again); without it the empty Secret is made once.
  const from = isTlsCluster(tc) ? [{ name: clusterClientSecretName(tcName), keyPrefix: ngmAssetKey(tc, '') }] : [];
  const copies = from.length > 0 || snap.secrets[ngmTlsSecretName(name)] !== true ? [{ to: ngmTlsSecretName(name), from }] : [];
  const assets = planSecretCopies(draft, 'TidbNGMonitoring', tngm, tc, copies, snap.secrets);
  if (assets !== undefined) return note(draft, 'Assets', assets);
  const paused = tngm.spec?.paused === true;
  if (!paused) {
    const service = planApply(SERVICE_APPLY, ngmService(tngm), snap.service);
    if (service) draft.writes.push(service);
    note(draft, 'Service', service ? wait(`Service ${service.ref.name}: ${service.kind}`) : complete());
  }
  if (paused) return note(draft, 'Core', complete('paused: the StatefulSet is left as it is'));
  const configMap = ngmConfigMap(tngm, tc);
  const cmName = configMap.metadata?.name ?? '';
  const cm = planApply(CONFIG_MAP_APPLY, configMap, snap.configMaps.find((c) => c.metadata?.name === cmName));
  if (cm) draft.writes.push(cm);
  const sts = planApply(STATEFUL_SET_APPLY, ngmStatefulSet(tngm, tc, cmName), snap.sts);
  if (sts) {
    draft.writes.push(sts);
    return note(draft, 'Core', wait(`StatefulSet ${sts.ref.name}: ${sts.kind}`));
  }
  if (!isCompanionReady(snap.sts)) return note(draft, 'Core', wait(`StatefulSet ${ngmName(name)} is not ready yet`));
  return note(draft, 'Core', complete('ng-monitoring is running'));
}
