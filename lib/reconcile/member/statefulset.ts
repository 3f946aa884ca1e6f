/**
 * StatefulSet bookkeeping shared by the component rules, as TiDB Operator v1's
 * `pkg/manager/utils/statefulset.go`: the `pingcap.com/last-applied-configuration` annotation holds
 * the JSON of the spec the reconciler last wrote, and every "did it change?" question is asked of
 * that annotation — never of the live spec, which the API server has filled with defaults.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { KubeObject } from '../../model/kube.js';
import { jsonEqual } from '../engine/equal.js';
import { LAST_APPLIED_ANNOTATION } from '../../model/labels.js';

/** A StatefulSet's spec. */
export type StatefulSetSpec = NonNullable<IStatefulSet['spec']>;
/** A StatefulSet's pod template. */
export type PodTemplate = StatefulSetSpec['template'];
/** A StatefulSet's update strategy. */
export type UpdateStrategy = NonNullable<StatefulSetSpec['updateStrategy']>;

// TiDB Operator bookkeeping annotations that never count as a change.
const BOOKKEEPING = new Set([LAST_APPLIED_ANNOTATION, 'tidb.pingcap.com/sync-timestamp']);

/** The spec recorded in the last-applied annotation, or undefined when it is missing or not JSON. */
export function lastAppliedSpec(sts: IStatefulSet | undefined): Partial<StatefulSetSpec> | undefined {
  const text = sts?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Partial<StatefulSetSpec>) : undefined;
  } catch {
    return undefined;
  }
}

/** The template last applied (from the annotation), or the live one when no annotation says. */
export function appliedTemplate(sts: IStatefulSet): PodTemplate {
  return lastAppliedSpec(sts)?.template ?? sts.spec?.template ?? {};
}

/**
 * As TiDB Operator's `templateEqual`: whether `desired`'s pod spec equals the one last applied to
 * `sts`. A missing or unreadable annotation counts as "changed", so the first write records one.
 */
export function isTemplateSpecApplied(desired: PodTemplate, sts: IStatefulSet): boolean {
  const applied = lastAppliedSpec(sts)?.template;
  return applied !== undefined && jsonEqual(desired.spec, applied.spec);
}

/** The object with its last-applied annotation set to the JSON of its spec. */
export function withLastApplied<T extends IStatefulSet>(sts: T): T {
  const annotations = { ...(sts.metadata?.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: JSON.stringify(sts.spec) };
  return { ...sts, metadata: { ...sts.metadata, annotations } };
}

const meaningful = (annotations: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => !BOOKKEEPING.has(key)));

/**
 * As TiDB Operator's `StatefulSetEqual` (plus labels): `live` already carries everything of `desired`
 * the reconciler owns — labels, annotations other than bookkeeping, and the last-applied replicas,
 * update strategy and template.
 */
export function isStatefulSetApplied(desired: IStatefulSet, live: IStatefulSet): boolean {
  const applied = lastAppliedSpec(live);
  if (!applied) return false;
  return (
    jsonEqual(desired.metadata?.labels ?? {}, live.metadata?.labels ?? {}) &&
    jsonEqual(meaningful(desired.metadata?.annotations), meaningful(live.metadata?.annotations)) &&
    jsonEqual(desired.spec?.replicas, applied.replicas) &&
    jsonEqual(desired.spec?.updateStrategy, applied.updateStrategy) &&
    jsonEqual(desired.spec?.template, applied.template)
  );
}

/**
 * The object to `update` `live` with, as TiDB Operator's `UpdateStatefulSet`: the live object with
 * `desired`'s labels, annotations, replicas, update strategy and template (the immutable parts —
 * selector, service name, claim templates — stay as they are), its last-applied annotation refreshed.
 */
export function statefulSetUpdate(desired: IStatefulSet, live: IStatefulSet): KubeObject {
  const spec: StatefulSetSpec = {
    ...(live.spec ?? { selector: {}, template: {} }),
    replicas: desired.spec?.replicas,
    updateStrategy: desired.spec?.updateStrategy,
    template: desired.spec?.template ?? {},
  };
  const metadata = {
    ...live.metadata,
    labels: desired.metadata?.labels,
    annotations: { ...desired.metadata?.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(spec) },
  };
  const { status: _status, ...rest } = live;
  return { ...rest, apiVersion: 'apps/v1', kind: 'StatefulSet', metadata, spec };
}

/** The RollingUpdate partition of a StatefulSet, or undefined (OnDelete, or no partition set). */
export function partitionOf(sts: IStatefulSet | undefined): number | undefined {
  return sts?.spec?.updateStrategy?.rollingUpdate?.partition;
}

/** A StatefulSet's replicas (Kubernetes defaults a missing value to 1). */
export const replicasOf = (sts: IStatefulSet): number => sts.spec?.replicas ?? 1;

/** The `controller-revision-hash` label of a pod (the revision it runs), if it has one. */
export const podRevision = (pod: IPod): string | undefined => pod.metadata?.labels?.['controller-revision-hash'];

/**
 * As TiDB Operator's `statefulSetIsUpgrading` + the per-component pod check: the StatefulSet is
 * between revisions, or has an unobserved spec change at its replica count; else any pod runs a
 * revision other than `updateRevision` — unless some pod has no revision label yet (then: not
 * upgrading, as TiDB Operator returns early).
 */
export function isStatefulSetUpgrading(sts: IStatefulSet, pods: readonly IPod[], updateRevision: string | undefined): boolean {
  const status = sts.status;
  if (status && status.currentRevision !== status.updateRevision) return true;
  const generation = sts.metadata?.generation ?? 0;
  if (status && generation > (status.observedGeneration ?? 0) && replicasOf(sts) === status.replicas) return true;
  if (pods.some((p) => podRevision(p) === undefined)) return false;
  return pods.some((p) => podRevision(p) !== updateRevision);
}

/** When the pod's Ready condition last became True (ms), or undefined when it is not Ready. */
export function podReadySinceMs(pod: IPod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return undefined;
  const at = ready.lastTransitionTime === undefined ? Number.NaN : Date.parse(ready.lastTransitionTime);
  return Number.isNaN(at) ? 0 : at;
}

/** Whether the pod's Ready condition is True. */
export const isPodReady = (pod: IPod): boolean => podReadySinceMs(pod) !== undefined;
