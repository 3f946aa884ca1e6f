/**
 * The StatefulSet re-created for new claim templates, as TiDB Operator v1.6's `tryToRecreateSTS`
 * (release-1.6 `pkg/manager/volumes/raw_pvc_modifier.go`, `vac_pvc_modifier.go`,
 * `vol_compare_utils.go` `IsStatefulSetSynced`, `pkg/manager/utils/statefulset.go`
 * `DeleteStatefulSetWithOrphan`): Kubernetes refuses an update of `volumeClaimTemplates`, so when a
 * template's size or class differs from the spec, the ConfigMap the pods mount is recorded in the
 * TidbCluster annotation `tidb.pingcap.com/configmap-name-before-delete-<component>` and the
 * StatefulSet is deleted with `propagationPolicy: Orphan` — its pods and claims keep running — and the
 * member recipe creates it again with the new templates on the next step (adopting the pods), so a
 * member added later starts at the new size.
 * Ours (docs/reference/volumes.md): v1.6 does this before it modifies the claims; here it is done only
 * once every claim of the component reached its desired size — a refused or unfinished resize never
 * changes what new members get — and only when the StatefulSet is at rest: its pods all Ready and the
 * component healthy (the resize gate), no rollout under way (revisions equal, the generation observed,
 * every replica there), the replicas the spec wants, and the applied pod spec the desired one, so the
 * re-created StatefulSet has the same revision and no pod restarts. The delete carries the observed
 * uid and resourceVersion as preconditions. A template added or removed is v1's error, not handled.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action } from '../../model/action.js';
import type { Outcome } from '../../model/outcome.js';
import { fail, retry, wait } from '../engine/outcome.js';
import type { RuleInput } from '../engine/rule.js';
import type { ComponentDeclaration } from '../member/component.js';
import { configMapBeforeDeleteAnnotation, inUseConfigMapName } from '../member/config-map.js';
import { isTemplateSpecApplied, replicasOf } from '../member/statefulset.js';
import { sameQuantity, type DesiredVolume } from '../member/volume-phase.js';
import { observedObjects } from './observed.js';
import { resizeGateProblem } from './volume-gate.js';

/** How soon to look again while the StatefulSet may not be re-created yet. */
export const RECREATE_POLL_MS = 10_000;

/** What re-creating asks of the step: the writes, and the outcome (undefined: nothing to do). */
export type RecreateTurn = { readonly actions: readonly Action[]; readonly outcome: Outcome } | undefined;

/**
 * As `IsStatefulSetSynced`: whether every claim template has the desired size and class (a desired
 * volume that names no class matches any); an error when a template has no desired volume or the
 * number of volumes differs.
 */
export function templatesSynced(sts: IStatefulSet, desired: readonly DesiredVolume[]): { synced: boolean; error?: string } {
  const templates = sts.spec?.volumeClaimTemplates ?? [];
  for (const t of templates) {
    const want = desired.find((d) => d.name === t.metadata?.name);
    if (want === undefined) return { synced: false, error: `volume ${t.metadata?.name ?? ''} unsupported to remove` };
    const size = t.spec?.resources?.requests?.storage;
    if (!sameQuantity(size === undefined ? undefined : String(size), want.size)) return { synced: false };
    if (want.storageClassName !== undefined && want.storageClassName !== (t.spec?.storageClassName ?? '')) return { synced: false };
  }
  if (templates.length !== desired.length) return { synced: false, error: `unsupported change in number of volumes ${templates.length} -> ${desired.length}` };
  return { synced: true };
}

/** As v1's `StatefulSetIsUpgrading`, stricter: revisions differ, the generation is not observed yet, or replicas are missing. */
export function isStatefulSetMoving(sts: IStatefulSet): boolean {
  const st = sts.status;
  if (st === undefined) return true;
  if ((st.currentRevision ?? '') !== (st.updateRevision ?? '')) return true;
  if ((st.observedGeneration ?? 0) < (sts.metadata?.generation ?? 0)) return true;
  return st.replicas !== replicasOf(sts) || (st.readyReplicas ?? 0) !== replicasOf(sts);
}

/**
 * The re-creation step for `component` once its claims are all at their desired size. Guarantees:
 * nothing when the templates already match; a wait (no write) while the StatefulSet is being deleted
 * or is not at rest; otherwise the annotation (when it must change) and the orphaning delete under
 * the observed uid and resourceVersion, in that order.
 */
export function planStatefulSetRecreate(input: RuleInput, component: ComponentDeclaration, pods: readonly IPod[], desired: readonly DesiredVolume[]): RecreateTurn {
  const tc = input.cluster;
  const setName = `${tc.metadata.name ?? ''}-${component.name}`;
  const sts = observedObjects(input.snapshot, 'StatefulSet').find((s) => s.metadata?.name === setName);
  if (sts === undefined || desired.length === 0) return undefined;
  if (sts.metadata?.deletionTimestamp !== undefined) return { actions: [], outcome: wait(`${component.title} StatefulSet ${setName} is being deleted for its new claim templates`) };
  const { synced, error } = templatesSynced(sts, desired);
  if (error !== undefined) return { actions: [], outcome: fail(`${component.title}: change in number of volumes is not supported; ${error}`) };
  if (synced) return undefined;
  const held = resizeGateProblem(input, component, pods) ?? atRestProblem(input, component, sts);
  if (held !== undefined) return { actions: [], outcome: retry(RECREATE_POLL_MS, `${component.title} StatefulSet ${setName} waits to be re-created for its new claim templates: ${held}`) };
  const actions: Action[] = [];
  const key = configMapBeforeDeleteAnnotation(component.name);
  const inUse = inUseConfigMapName(component, tc, sts);
  if (inUse !== undefined && tc.metadata.annotations?.[key] !== inUse) {
    const ref = { kind: 'TidbCluster' as const, namespace: tc.metadata.namespace ?? '', name: tc.metadata.name ?? '' };
    actions.push({ kind: 'patch', ref, patchType: 'merge', patch: { metadata: { annotations: { [key]: inUse } } }, resourceVersion: tc.metadata.resourceVersion ?? '' });
  }
  const ref = { kind: 'StatefulSet' as const, namespace: sts.metadata?.namespace ?? '', name: setName };
  actions.push({ kind: 'delete', ref, uid: sts.metadata?.uid ?? '', resourceVersion: sts.metadata?.resourceVersion ?? '', propagationPolicy: 'Orphan' });
  return { actions, outcome: retry(RECREATE_POLL_MS, `${component.title} StatefulSet ${setName} deleted (pods orphaned) to be re-created with its new claim templates`) };
}

function atRestProblem(input: RuleInput, component: ComponentDeclaration, sts: IStatefulSet): string | undefined {
  if (isStatefulSetMoving(sts)) return 'a rollout or scale is under way';
  const want = component.desiredReplicas(input.cluster, input.status);
  if (replicasOf(sts) !== want) return `replicas ${replicasOf(sts)}, the spec wants ${want}`;
  const inUse = inUseConfigMapName(component, input.cluster, sts);
  if (inUse === undefined || !isTemplateSpecApplied(component.podTemplate(input.cluster, inUse), sts)) return 'the desired pod template is not applied yet';
  return undefined;
}
