/**
 * The TidbMonitor controller's recipe, as v1's `SyncMonitor` (release-1.6
 * `pkg/monitor/monitor/monitor_manager.go:67-190`) and `reconcileTidbMonitor`, one named stage a line:
 *   Finalizer  `tidb.pingcap.com/monitor-protection` added to a live monitor; a deleted one has its
 *              cluster-scoped ClusterRole / ClusterRoleBinding (labelled managed-by tidb-operator)
 *              deleted and the finalizer removed
 *   Clusters   no `spec.clusters` ⇒ nothing happens; each is looked up in its namespace (defaulting
 *              to the monitor's); a missing one, or a TLS one without `<tc>-cluster-client-secret`,
 *              fails the step (retried), in v1's words
 *   Validate   v1's checks and ours, each naming its field ⇒ a `FailedValidation` Warning, no retry
 *   Secrets    `tidbmonitor-<tm>-tls-assets` made to hold each TLS cluster's client certificate
 *              (`secret.copy`; looked at again every 30 s, v1's resync), and with Grafana `<tm>-monitor`
 *              (created once)
 *   Services   per shard `<tm>-prometheus`, `<tm>-monitor-reloader`, `<tm>-grafana`
 *   Config     ConfigMaps `<tm>-monitor` (prometheus.yml; `configMapRef`'s `prometheus-config` wins)
 *              and `<tm>-monitor-grafana`
 *   RBAC       ServiceAccount, Role + RoleBinding (`clusterScoped`: ClusterRole + ClusterRoleBinding)
 *   Workload   one StatefulSet per shard; a first creation waits ("waiting for tidbmonitor running")
 *   Status     `status.statefulSet` = the first shard's StatefulSet status, written with the finalizer
 *              in one full-object update under the observed resourceVersion (no status subresource)
 * Not done (v1 does): the PD etcd `/topology/prometheus|grafana` keys for TiDB Dashboard, PV
 * reclaim-policy sync and the legacy Deployment migration.
 */

import type { Action, EventAction } from '../../model/action.js';
import type { KubeObject } from '../../model/kube.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan, RuleResult } from '../../model/plan.js';
import { jsonEqual } from '../engine/equal.js';
import { combineOutcomes, complete, fail, retry, wait } from '../engine/outcome.js';
import { planOwnedObject, refOf } from '../owned/apply.js';
import { crossNamespaceName, monitorObjectName, shardStatefulSetName } from './names.js';
import { grafanaConfigMap, grafanaSecret, monitorRbac, monitorServiceAccount, monitorServices, prometheusConfigMap } from './objects.js';
import { renderPrometheusConfig, type MonitoredCluster } from './prometheus-config.js';
import { liveObject, type MonitorOwnedKind, type MonitorSnapshot } from './snapshot.js';
import { monitorStatefulSet } from './statefulset.js';
import { hasTlsCluster, planTlsAssets, TLS_ASSETS_RESYNC_MS } from './tls-assets.js';
import { MONITOR_FINALIZER, shardsOf, type TidbMonitor, type TidbMonitorStatus } from './types.js';
import { describeProblems, validateMonitor } from './validate.js';

type Draft = { finalizers: string[]; status: TidbMonitorStatus; actions: Action[]; events: EventAction[]; results: RuleResult[] };

/** Plans one step of a TidbMonitor. Pure: the same snapshot gives the same plan. */
export function planTidbMonitor(snap: MonitorSnapshot): Plan {
  const tm = snap.monitor;
  if (tm === undefined) return { actions: [], status: undefined, outcome: complete('TidbMonitor not found'), ruleResults: [] };
  const draft: Draft = { finalizers: [...(tm.metadata.finalizers ?? [])], status: { ...(tm.status ?? {}) }, actions: [], events: [], results: [] };
  const outcome = tm.metadata.deletionTimestamp !== undefined ? cleanUp(draft, snap, tm) : sync(draft, snap, tm);
  return toPlan(draft, tm, outcome);
}

function note(draft: Draft, rule: string, outcome: Outcome): Outcome {
  draft.results.push({ rule, outcome });
  return outcome;
}

function event(tm: TidbMonitor, type: 'Normal' | 'Warning', reason: string, message: string): EventAction {
  const object = { kind: 'TidbMonitor' as const, namespace: tm.metadata.namespace ?? '', name: tm.metadata.name ?? '' };
  return { kind: 'event', type, reason, message, object, ...(tm.metadata.uid === undefined ? {} : { involvedUid: tm.metadata.uid }) };
}

/** `cleanAndRemoveProtectionFinalizerIfNeed`. */
function cleanUp(draft: Draft, snap: MonitorSnapshot, tm: TidbMonitor): Outcome {
  if (tm.spec?.clusterScoped === true) {
    for (const kind of ['ClusterRole', 'ClusterRoleBinding'] as const) {
      const live = liveObject(snap, kind, crossNamespaceName(tm));
      if (live !== undefined && live.metadata.labels?.['app.kubernetes.io/managed-by'] === 'tidb-operator') {
        draft.actions.push({ kind: 'delete', ref: refOf(live), ...(live.metadata.uid ? { uid: live.metadata.uid } : {}) });
      }
    }
  }
  draft.finalizers = draft.finalizers.filter((f) => f !== MONITOR_FINALIZER);
  return note(draft, 'Finalizer', complete('TidbMonitor deleted: clean-up done, finalizer removed'));
}

function sync(draft: Draft, snap: MonitorSnapshot, tm: TidbMonitor): Outcome {
  if (!draft.finalizers.includes(MONITOR_FINALIZER)) draft.finalizers.push(MONITOR_FINALIZER);
  const ns = tm.metadata.namespace ?? '';
  const name = tm.metadata.name ?? '';
  if ((tm.spec?.clusters ?? []).length === 0) return note(draft, 'Clusters', complete(`tm[${ns}/${name}] does not configure the target tidbcluster`));
  const problems = validateMonitor(tm);
  if (problems.length > 0) {
    const message = describeProblems(problems);
    draft.events.push(event(tm, 'Warning', 'FailedValidation', message));
    return note(draft, 'Validate', fail(`invalid spec: ${message}`, true));
  }
  const monitored: MonitoredCluster[] = [];
  for (const c of snap.clusters) {
    if (c.tc === undefined) return note(draft, 'Clusters', fail(`get tm[${ns}/${name}]'s target tc[${c.namespace}/${c.name}] failed, err: tidbcluster.pingcap.com "${c.name}" not found`));
    const tls = c.tc.spec?.tlsCluster?.enabled === true;
    if (tls && c.clientSecretKeys === undefined) return note(draft, 'Clusters', fail(`get secret [${c.namespace}/${c.name}-cluster-client-secret] failed, err: secrets "${c.name}-cluster-client-secret" not found`));
    monitored.push({ name: c.name, namespace: c.namespace, tls });
  }
  let prometheusYml = renderPrometheusConfig(tm, monitored, shardsOf(tm));
  const ref = tm.spec?.prometheus?.config?.configMapRef;
  if (ref?.name) {
    if (snap.externalConfig === undefined) return note(draft, 'Config', fail(`configmaps "${ref.name}" not found (spec.prometheus.config.configMapRef, namespace ${ref.namespace ?? ns})`));
    const external = (snap.externalConfig['data'] as Record<string, string> | undefined)?.['prometheus-config'];
    if (external !== undefined) prometheusYml = external;
  }
  const firstTc = snap.clusters.find((c) => c.tc !== undefined && c.tc.spec?.pd !== undefined)?.tc;
  // `syncAssetSecret` runs before every other object, as v1's: the pods mount it.
  draft.actions.push(planTlsAssets(tm, snap.clusters));
  const stages: [string, KubeObject[]][] = [
    ['Secrets', tm.spec?.grafana === undefined ? [] : [grafanaSecret(tm)]],
    ['Services', monitorServices(tm)],
    ['Config', [prometheusConfigMap(tm, prometheusYml), ...(tm.spec?.grafana === undefined ? [] : [grafanaConfigMap(tm)])]],
    ['RBAC', [monitorServiceAccount(tm), ...monitorRbac(tm)]],
    ['Workload', Array.from({ length: shardsOf(tm) }, (_, shard) => monitorStatefulSet(tm, firstTc, shard))],
  ];
  for (const [stage, objects] of stages) {
    const failed = applyStage(draft, snap, tm, stage, objects);
    if (failed !== undefined) return failed;
  }
  const ready = status(draft, snap, tm);
  if (ready.kind !== 'complete' || !hasTlsCluster(snap.clusters)) return ready;
  return note(draft, 'Resync', retry(TLS_ASSETS_RESYNC_MS, 'TLS assets: look at the clusters\' client certificates again (v1\'s 30 s resync)'));
}

function applyStage(draft: Draft, snap: MonitorSnapshot, tm: TidbMonitor, stage: string, objects: readonly KubeObject[]): Outcome | undefined {
  const writes: string[] = [];
  for (const desired of objects) {
    const live = desired.kind === 'Secret' ? existingSecret(snap, desired) : liveObject(snap, desired.kind as MonitorOwnedKind, desired.metadata.name ?? '');
    const applied = planOwnedObject(desired, live, tm.metadata.uid ?? '');
    if (applied.conflict !== undefined) {
      draft.events.push(event(tm, 'Warning', 'FailedSync', `Sync TidbMonitor[${tm.metadata.namespace ?? ''}/${tm.metadata.name ?? ''}] ${stage} failed, err: ${applied.conflict}`));
      return note(draft, stage, fail(applied.conflict, true));
    }
    if (applied.write !== undefined) {
      draft.actions.push(applied.write);
      writes.push(`${applied.write.kind} ${desired.kind} ${desired.metadata.name ?? ''}`);
    }
  }
  note(draft, stage, complete(writes.length === 0 ? undefined : writes.join(', ')));
  return undefined;
}

/** A Secret is known only by existence: a stand-in carrying the desired owner, or undefined. */
function existingSecret(snap: MonitorSnapshot, desired: KubeObject): KubeObject | undefined {
  return snap.secrets.has(desired.metadata.name ?? '') ? desired : undefined;
}

/** `syncTidbMonitorStatus`, and whether every shard's pods are ready. */
function status(draft: Draft, snap: MonitorSnapshot, tm: TidbMonitor): Outcome {
  const first = liveObject(snap, 'StatefulSet', shardStatefulSetName(tm, 0));
  if (first?.['status'] !== undefined) draft.status = { ...draft.status, statefulSet: first['status'] as Record<string, unknown> };
  const created = draft.actions.some((a) => a.kind === 'create' && a.ref.kind === 'StatefulSet');
  if (created) return note(draft, 'Status', wait(`TidbMonitor: [${tm.metadata.namespace ?? ''}/${tm.metadata.name ?? ''}], waiting for tidbmonitor running`));
  const want = tm.spec?.replicas ?? 1;
  for (let shard = 0; shard < shardsOf(tm); shard += 1) {
    const sts = liveObject(snap, 'StatefulSet', shardStatefulSetName(tm, shard));
    const st = (sts?.['status'] ?? {}) as { readyReplicas?: number; updatedReplicas?: number; observedGeneration?: number };
    if ((st.readyReplicas ?? 0) < want || (st.observedGeneration ?? 0) < (sts?.metadata.generation ?? 0)) {
      return note(draft, 'Status', wait(`StatefulSet ${shardStatefulSetName(tm, shard)}: ${st.readyReplicas ?? 0}/${want} ready`));
    }
  }
  return note(draft, 'Status', complete(`${monitorObjectName(tm)}: ${shardsOf(tm)} shard(s) ready`));
}

/** The plan: the children's writes, then one update of the monitor when its finalizers or status changed, then Events. */
function toPlan(draft: Draft, tm: TidbMonitor, outcome: Outcome): Plan {
  const actions: Action[] = [...draft.actions];
  const finalizersChanged = !jsonEqual(draft.finalizers, tm.metadata.finalizers ?? []);
  if (finalizersChanged || !jsonEqual(draft.status, tm.status ?? {})) {
    const ref = { kind: 'TidbMonitor' as const, namespace: tm.metadata.namespace ?? '', name: tm.metadata.name ?? '' };
    const object: KubeObject = { ...tm, metadata: { ...tm.metadata, finalizers: draft.finalizers }, status: draft.status };
    actions.push({ kind: 'update', ref, object, resourceVersion: tm.metadata.resourceVersion ?? '' });
  }
  actions.push(...draft.events);
  return { actions, status: undefined, outcome: combineOutcomes([outcome]), ruleResults: draft.results };
}
