/**
 * Volume resize, as TiDB Operator v1.6's PVC modifier (docs/reference/volumes.md §V3, §V6): after
 * every component (v1 runs it after the members, the meta manager and the PVC cleaner), each
 * component's claims are brought to the size its spec asks, **one pod's claims at a time** in v1's
 * pod order — the claim's spec annotations and its larger request in one patch, then a wait until
 * the cluster reports the new capacity, then the status annotations — and only while the component
 * is `Normal` and every member of it is healthy (the member recipe's rolling gate). A claim that
 * cannot change (no expansion, or a smaller size) is left alone and reported (volume-refusal.ts).
 * Once every claim has its size, the StatefulSet is re-created with the new claim templates
 * (volume-recreate.ts). Under the `VolumeModifying` gate a move to another EBS StorageClass is a
 * change too: its claims' volumes are modified through EC2 first (volume-ebs.ts, docs/adr/0031).
 * `status.<component>.volumes` is synced on every step by the `VolumeStatus` status rule.
 */

import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { Action, PatchAction } from '../../model/action.js';
import type { OwnedObjects, TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import { LABEL, instanceName } from '../../model/labels.js';
import type { Outcome } from '../../model/outcome.js';
import { combineOutcomes, complete, retry } from '../engine/outcome.js';
import type { Decision, RuleInput, StatusDecision } from '../engine/rule.js';
import { jsonEqual } from '../engine/equal.js';
import type { ComponentDeclaration } from '../member/component.js';
import { byPodOrder, capacityOf, compareQuantity, desiredVolumes, isClassChanged, podVolumes, requestOf, sameQuantity, storageClassOf, VOLUME_ANNOTATIONS, type ActualVolume, type DesiredVolume } from '../member/volume-phase.js';
import { observeVolumeStatus } from '../member/volume-status.js';
import { componentStatusIn } from '../member/member-status.js';
import { pdComponent } from '../components/pd/recipe.js';
import { tikvComponent } from '../components/tikv/recipe.js';
import { tiflashComponent } from '../components/tiflash/recipe.js';
import { tidbComponent } from '../components/tidb/recipe.js';
import { ticdcComponent } from '../components/ticdc/recipe.js';
import { pumpComponent } from '../components/pump/recipe.js';
import { toKubeTime } from './condition.js';
import { observedObjects } from './observed.js';
import { planRefusalCondition, type ComponentRefusals } from './volume-refusal.js';
import { resizeGateProblem, withResizingCondition } from './volume-gate.js';
import { planStatefulSetRecreate } from './volume-recreate.js';
import { planEbsClaim, VOLUME_MODIFY_PENDING } from './volume-ebs.js';
import { clusterWarning } from './events.js';
import type { EbsVolumeModification } from '../../model/ebs.js';

/** The components whose volumes are modified, in v1's `AllComponentStatus` order. */
export const MODIFIED_COMPONENTS: readonly ComponentDeclaration[] = [pdComponent, tidbComponent, tikvComponent, tiflashComponent, ticdcComponent, pumpComponent];

/** How soon to look again while a claim's new size is not reported yet (v1 requeues on its error). */
export const RESIZE_POLL_MS = 10_000;

/** The pods of `component` among `pods`, in v1's order. */
export function componentPods(tc: TidbCluster, pods: readonly IPod[], component: ComponentDeclaration): IPod[] {
  const instance = instanceName(tc);
  return pods.filter((p) => p.metadata?.labels?.[LABEL.component] === component.name && p.metadata?.labels?.[LABEL.instance] === instance).sort(byPodOrder);
}

/**
 * The StorageClasses a step must read: those of the claims of the cluster's pods whose desired size
 * is larger than their capacity (whether they may grow) and, under the `VolumeModifying` gate
 * (`volumeModifying`), both classes of every claim whose class the spec changes (their provisioners
 * and parameters). Empty when no claim needs either.
 */
export function volumeClassesToRead(tc: TidbCluster, owned: Pick<OwnedObjects, 'Pod' | 'PersistentVolumeClaim'>, volumeModifying = false): string[] {
  const names = new Set<string>();
  for (const component of MODIFIED_COMPONENTS) {
    const desired = desiredVolumes(component, tc);
    if (desired.length === 0) continue;
    for (const v of componentPods(tc, owned.Pod, component).flatMap((pod) => podVolumes(pod, owned.PersistentVolumeClaim, desired, [], 0))) {
      if ((compareQuantity(v.desired.size, requestOf(v.claim)) ?? 0) > 0 && storageClassOf(v.claim) !== '') names.add(storageClassOf(v.claim));
      if (volumeModifying && isClassChanged(v.claim, v.desired)) {
        if (storageClassOf(v.claim) !== '') names.add(storageClassOf(v.claim));
        names.add(v.desired.storageClassName ?? '');
      }
    }
  }
  return [...names].sort();
}

/**
 * The EBS volumes whose last modification the step must ask EC2 for (gate on): those the EBS
 * modifier works on in the pod whose claims are in flight next, per component — the only claims
 * a step may act on. Empty when none.
 */
export function ebsVolumesToDescribe(tc: TidbCluster, owned: Pick<OwnedObjects, 'Pod' | 'PersistentVolumeClaim'>, volumes: readonly IPersistentVolume[], classes: readonly IStorageClass[], nowMs: number): string[] {
  const ids: string[] = [];
  for (const component of MODIFIED_COMPONENTS) {
    const desired = desiredVolumes(component, tc);
    if (desired.length === 0 || hasVac(desired)) continue;
    const byPod = componentPods(tc, owned.Pod, component).map((pod) => podVolumes(pod, owned.PersistentVolumeClaim, desired, classes, nowMs, { volumes }));
    const next = byPod.find((vs) => vs.some(inFlight)) ?? [];
    for (const v of next) if (v.ebs && inFlight(v)) ids.push(v.ebs.pv.spec?.csi?.volumeHandle ?? '');
  }
  return ids.filter((id) => id !== '');
}

const ref = (claim: IPersistentVolumeClaim) => ({ kind: 'PersistentVolumeClaim' as const, namespace: claim.metadata?.namespace ?? '', name: claim.metadata?.name ?? '' });

const patchClaim = (claim: IPersistentVolumeClaim, patch: Record<string, unknown>): PatchAction => ({ kind: 'patch', ref: ref(claim), patchType: 'merge', patch, resourceVersion: claim.metadata?.resourceVersion ?? '' });

/**
 * As v1.6's `Modify` for one `Preparing` claim: the spec annotations (size, class, revision + 1 when
 * the size changes, the transition time) and the larger request, in one patch.
 */
export function preparePatch(v: ActualVolume, nowMs: number): PatchAction {
  const a = v.claim.metadata?.annotations ?? {};
  const recorded = a[VOLUME_ANNOTATIONS.specStorageSize] ?? requestOf(v.claim);
  const revision = Number.parseInt(a[VOLUME_ANNOTATIONS.specRevision] ?? '0', 10);
  // As v1.6's isPVCSpecMatched: a new size, or a class the spec annotation does not name yet.
  const newClass = (v.desired.storageClassName ?? '') !== '' && a[VOLUME_ANNOTATIONS.specStorageClass] !== v.desired.storageClassName && isClassChanged(v.claim, v.desired);
  const changed = !sameQuantity(recorded, v.desired.size) || newClass;
  const annotations: Record<string, string> = {
    [VOLUME_ANNOTATIONS.specStorageSize]: v.desired.size,
    ...(v.desired.storageClassName ? { [VOLUME_ANNOTATIONS.specStorageClass]: v.desired.storageClassName } : {}),
    ...(changed ? { [VOLUME_ANNOTATIONS.specRevision]: String((Number.isFinite(revision) ? revision : 0) + 1) } : {}),
    [VOLUME_ANNOTATIONS.lastTransition]: toKubeTime(nowMs),
  };
  // The EBS modifier grows the request only once EC2 has modified the volume (v1.6's order).
  const grow = v.ebs || sameQuantity(requestOf(v.claim), v.desired.size) ? {} : { spec: { resources: { requests: { storage: v.desired.size } } } };
  return patchClaim(v.claim, { metadata: { annotations }, ...grow });
}

/** As v1.6's `Modify` for a `Modifying` claim: the request if not yet raised, the status annotations once the capacity is there, else nothing (wait). */
export function modifyingPatch(v: ActualVolume): PatchAction | undefined {
  if (!sameQuantity(requestOf(v.claim), v.desired.size)) return patchClaim(v.claim, { spec: { resources: { requests: { storage: v.desired.size } } } });
  // A volume may be larger than asked (a static disk): at least the desired size is done.
  if ((compareQuantity(capacityOf(v.claim), v.desired.size) ?? -1) < 0) return undefined;
  const a = v.claim.metadata?.annotations ?? {};
  const sc = a[VOLUME_ANNOTATIONS.specStorageClass];
  const annotations: Record<string, string> = {
    [VOLUME_ANNOTATIONS.statusRevision]: a[VOLUME_ANNOTATIONS.specRevision] ?? '',
    [VOLUME_ANNOTATIONS.statusStorageSize]: a[VOLUME_ANNOTATIONS.specStorageSize] ?? v.desired.size,
    ...(sc ? { [VOLUME_ANNOTATIONS.statusStorageClass]: sc } : {}),
  };
  return patchClaim(v.claim, { metadata: { annotations } });
}

function inFlight(v: ActualVolume): boolean {
  return v.phase === 'Preparing' || v.phase === 'Modifying';
}

/** What the EBS modifier needs to plan a claim: the cluster and component (for its Warning) and EC2's modifications. */
export type EbsPlanning = { readonly tc: TidbCluster; readonly title: string; readonly modifications: Readonly<Record<string, EbsVolumeModification>>; readonly readError?: string };

/**
 * The actions for the one pod in flight: each of its claims as its phase says. A claim the EBS
 * modifier works on (`v.ebs`) gets its spec annotations, then `ModifyVolume` until EC2 reports the
 * target `optimizing` or `completed`, and only then its request and status annotations (v1.6's order).
 */
export function planPodClaims(volumes: readonly ActualVolume[], nowMs: number, ebs?: EbsPlanning): { actions: Action[]; waits: string[] } {
  const actions: Action[] = [];
  const waits: string[] = [];
  for (const v of volumes) {
    if (v.phase !== 'Preparing' && v.phase !== 'Modifying') continue;
    if (v.phase === 'Preparing') actions.push(preparePatch(v, nowMs));
    const modified = v.ebs && ebs ? planEbsClaim(ebs.tc, ebs.title, v, ebs.modifications, nowMs, ebs.readError) : { actions: [], done: true };
    actions.push(...modified.actions);
    if (modified.why) waits.push(modified.why);
    if (v.phase === 'Modifying' && modified.done) actions.push(...defined(modifyingPatch(v)));
  }
  return { actions, waits };
}

const defined = <T>(x: T | undefined): T[] => (x === undefined ? [] : [x]);

/** One component's turn: its refusals, its actions and outcome, and its status as the turn leaves it. */
export type ComponentTurn = { readonly refusals: ComponentRefusals; readonly actions: readonly Action[]; readonly outcome: Outcome; readonly status: TidbClusterStatus };

/** As v1.6's `hasVAC`: some desired volume names a VolumeAttributesClass. */
export const hasVac = (desired: readonly DesiredVolume[]): boolean => desired.some((d) => (d.volumeAttributesClassName ?? '') !== '');

/** Whether a claim differs from `v.desired` in size or VolumeAttributesClass (v1.6's `isPVCModified`). */
const vacOutdated = (v: ActualVolume): boolean => !sameQuantity(requestOf(v.claim), v.desired.size) || (v.claim.spec?.volumeAttributesClassName ?? '') !== (v.desired.volumeAttributesClassName ?? '');

/** Whether the cluster has not yet made what a claim asks (its size, or its class: `status.currentVolumeAttributesClassName`). */
const vacInFlight = (v: ActualVolume): boolean =>
  (compareQuantity(capacityOf(v.claim), requestOf(v.claim)) ?? -1) < 0 || (v.claim.spec?.volumeAttributesClassName ?? '') !== (v.claim.status?.currentVolumeAttributesClassName ?? '');

/**
 * As v1.6's `vacPVCModifier` (§V4): every claim whose size or class differs gets both in one patch,
 * all pods in the same step (the CSI driver applies the class's parameters); a refused claim is left
 * alone; then a wait until the cluster reports them.
 */
export function planVacClaims(volumes: readonly ActualVolume[]): PatchAction[] {
  return volumes
    .filter((v) => v.phase !== 'Unbound' && v.phase !== 'CannotModify' && vacOutdated(v))
    .map((v) => patchClaim(v.claim, { spec: { resources: { requests: { storage: v.desired.size } }, volumeAttributesClassName: v.desired.volumeAttributesClassName ?? null } }));
}

function vacTurn(input: RuleInput, status: TidbClusterStatus, component: ComponentDeclaration, pods: readonly IPod[], all: readonly ActualVolume[], refusals: ComponentRefusals): ComponentTurn {
  const actions = planVacClaims(all);
  const waiting = all.filter((v) => v.phase !== 'Unbound' && v.phase !== 'CannotModify' && vacInFlight(v));
  const busy = actions.length > 0 || waiting.length > 0;
  const resizing = withResizingCondition(status, component, busy, input.snapshot.nowMs);
  if (!busy) return { refusals, ...recreateTurn(input, component, pods, all), status: resizing };
  const problem = actions.length > 0 ? resizeGateProblem(input, component, pods) : undefined;
  if (problem) return { refusals, actions: [], outcome: retry(RESIZE_POLL_MS, `${component.title} volumes wait to be modified: ${problem}`), status: resizing };
  const names = (actions.length > 0 ? actions.map((a) => a.ref.name) : waiting.map((v) => v.claim.metadata?.name ?? '')).join(', ');
  const why = actions.length > 0 ? `modifying claims ${names} (size and VolumeAttributesClass)` : `waiting for claims ${names} to report their size and VolumeAttributesClass`;
  return { refusals, actions, outcome: retry(RESIZE_POLL_MS, `${component.title} volumes: ${why}`), status: resizing };
}

/**
 * Once no claim of the component is in flight: the StatefulSet re-created for new claim templates
 * (volume-recreate.ts) when every claim has its desired size, else nothing.
 */
function recreateTurn(input: RuleInput, component: ComponentDeclaration, pods: readonly IPod[], all: readonly ActualVolume[]): { actions: readonly Action[]; outcome: Outcome } {
  const done = all.length > 0 && all.every((v) => v.phase === 'Modified');
  const turn = done ? planStatefulSetRecreate(input, component, pods, desiredVolumes(component, input.cluster)) : undefined;
  return turn ?? { actions: [], outcome: complete() };
}

/**
 * No claim in flight but some changed too recently: wait until the first may start. A claim the EBS
 * modifier waits on (six hours, EBS's rule) is reported by a Warning once (ours; v1.6 only logs it).
 */
function pendingTurn(input: RuleInput, component: ComponentDeclaration, all: readonly ActualVolume[], pendingUntil: number): { actions: Action[]; outcome: Outcome } {
  const ebs = all.filter((v) => v.phase === 'Pending' && v.ebs);
  const afterMs = pendingUntil - input.snapshot.nowMs;
  if (ebs.length === 0) return { actions: [], outcome: retry(afterMs, `${component.title} volumes: a claim changed less than a minute ago`) };
  const names = ebs.map((v) => v.claim.metadata?.name ?? '').join(', ');
  const to = ebs[0]?.ebs?.to.metadata?.name ?? '';
  const message = `${component.title} claims ${names} wait to move to StorageClass "${to}": EBS allows one modification of a volume every six hours; the first may start at ${toKubeTime(pendingUntil)}`;
  return { actions: [{ ...clusterWarning(input.cluster, VOLUME_MODIFY_PENDING, message), once: true }], outcome: retry(afterMs, `${component.title} volumes: ${message}`) };
}

/** The turn of `component` (see the module comment). */
export function planComponentVolumes(input: RuleInput, status: TidbClusterStatus, component: ComponentDeclaration): ComponentTurn {
  const { snapshot, cluster } = input;
  const desired = desiredVolumes(component, cluster);
  const pods = componentPods(cluster, observedObjects(snapshot, 'Pod'), component);
  const claims = observedObjects(snapshot, 'PersistentVolumeClaim');
  const gate = snapshot.config.volumeModifying === true ? { volumes: snapshot.volumes ?? [] } : undefined;
  const byPod = pods.map((pod) => ({ pod, volumes: podVolumes(pod, claims, desired, snapshot.storageClasses ?? [], snapshot.nowMs, gate) }));
  const all = byPod.flatMap((p) => p.volumes);
  const refusals = { title: component.title, refusals: all.flatMap((v) => (v.refusal ? [v.refusal] : [])) };
  if (hasVac(desired)) return vacTurn(input, status, component, pods, all, refusals);
  const next = byPod.find((p) => p.volumes.some(inFlight));
  const resizing = withResizingCondition(status, component, next !== undefined, snapshot.nowMs);
  if (!next) {
    const pendingUntil = Math.min(...all.flatMap((v) => (v.pendingUntilMs === undefined ? [] : [v.pendingUntilMs])));
    if (Number.isFinite(pendingUntil)) return { refusals, ...pendingTurn(input, component, all, pendingUntil), status: resizing };
    return { refusals, ...recreateTurn(input, component, pods, all), status: resizing };
  }
  const problem = resizeGateProblem(input, component, pods);
  if (problem) return { refusals, actions: [], outcome: retry(RESIZE_POLL_MS, `${component.title} volumes wait to be resized: ${problem}`), status: resizing };
  const { actions, waits } = planPodClaims(next.volumes, snapshot.nowMs, { tc: cluster, title: component.title, modifications: snapshot.ebsModifications ?? {}, ...(snapshot.ebsReadError === undefined ? {} : { readError: snapshot.ebsReadError }) });
  const names = next.volumes.filter(inFlight).map((v) => v.claim.metadata?.name ?? '').join(', ');
  const what = next.volumes.some((v) => v.ebs) ? 'modifying' : 'resizing';
  const why = waits.length > 0 ? `${what} claims ${names} of pod ${next.pod.metadata?.name ?? ''}: ${waits.join('; ')}` : actions.length > 0 ? `${what} claims ${names} of pod ${next.pod.metadata?.name ?? ''}` : `waiting for claims ${names} to report their new capacity`;
  return { refusals, actions, outcome: retry(RESIZE_POLL_MS, `${component.title} volumes: ${why}`), status: resizing };
}

/**
 * The `VolumeModifier` rule. Guarantees: for each component with storage, at most one pod's claims
 * are patched per step (and only when the component is Normal and all its members healthy); a claim
 * that cannot change is never patched and is reported by the `VolumeModifyRefused` condition and a
 * Warning Event; never stops the sequence; completes when every claim has its desired size.
 */
export function planVolumeModifier(input: RuleInput): Decision {
  let status = input.status;
  const actions: Action[] = [];
  const outcomes: Outcome[] = [];
  const groups: ComponentRefusals[] = [];
  for (const component of MODIFIED_COMPONENTS) {
    if (!component.specOf(input.cluster)) continue;
    const turn = planComponentVolumes(input, status, component);
    status = turn.status;
    actions.push(...turn.actions);
    outcomes.push(turn.outcome);
    if (turn.refusals.refusals.length > 0) groups.push(turn.refusals);
  }
  const refused = planRefusalCondition(input.cluster, status, groups, input.snapshot.nowMs);
  status = refused.status ?? status;
  actions.push(...refused.actions);
  if (refused.message) outcomes.push(complete(refused.message));
  return { ...(status === input.status ? {} : { status }), actions, outcome: combineOutcomes(outcomes) };
}

/**
 * The `VolumeStatus` status rule: `status.<component>.volumes` of every component the cluster has,
 * as v1.6's `SyncVolumeStatus`. Guarantees: the status is unchanged (undefined) when every map is
 * already as observed; a component without claims gets no `volumes`.
 */
export function planVolumeStatus(input: RuleInput): StatusDecision {
  const { snapshot, cluster } = input;
  let status = input.status;
  for (const component of MODIFIED_COMPONENTS) {
    const current = componentStatusIn(component, status);
    if (!component.specOf(cluster) || current === undefined) continue;
    const desired: DesiredVolume[] = desiredVolumes(component, cluster);
    const volumes = observeVolumeStatus(componentPods(cluster, observedObjects(snapshot, 'Pod'), component), observedObjects(snapshot, 'PersistentVolumeClaim'), desired);
    const had = (current as { volumes?: unknown }).volumes;
    if (jsonEqual(had ?? {}, volumes)) continue;
    const { volumes: _old, ...rest } = current as { volumes?: unknown };
    status = { ...status, [component.name]: Object.keys(volumes).length === 0 ? rest : { ...rest, volumes } };
  }
  return { ...(status === input.status ? {} : { status }), outcome: complete() };
}
