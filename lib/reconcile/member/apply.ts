/**
 * One apply protocol for every object a TidbCluster owns (Services, ConfigMaps, StatefulSets, the
 * discovery objects): missing ⇒ create the desired object; applied ⇒ nothing; otherwise update the
 * live object under its observed resourceVersion. What "applied" means and what an update keeps of
 * the live object is the kind's policy — as TiDB Operator v1, Services and StatefulSets compare
 * against the `pingcap.com/last-applied-configuration` record, never against API-server defaults.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';

import type { CreateAction, UpdateAction } from '../../model/action.js';
import type { KubeObject, ObjectMeta, OwnedKind } from '../../model/kube.js';
import { LAST_APPLIED_ANNOTATION } from '../../model/labels.js';
import { jsonEqual } from '../engine/equal.js';
import { isStatefulSetApplied, statefulSetUpdate } from './statefulset.js';

/** How one kind is applied: whether `live` already carries `desired`, and the object an update sends. */
export type ApplyPolicy<T> = {
  readonly kind: OwnedKind;
  readonly isApplied: (desired: T, live: T) => boolean;
  readonly updated: (desired: T, live: T) => KubeObject;
};

/**
 * The write that makes `desired` true: a create when nothing is live, an update of `live` (carrying
 * its resourceVersion) when the policy says it is not applied, else undefined.
 */
export function planApply<T extends { readonly metadata?: ObjectMeta }>(
  policy: ApplyPolicy<T>,
  desired: T,
  live: T | undefined,
): CreateAction | UpdateAction | undefined {
  const ref = { kind: policy.kind, namespace: desired.metadata?.namespace ?? '', name: desired.metadata?.name ?? '' };
  if (!live) return { kind: 'create', ref, object: desired as unknown as KubeObject };
  if (policy.isApplied(desired, live)) return undefined;
  return { kind: 'update', ref, object: policy.updated(desired, live), resourceVersion: live.metadata?.resourceVersion ?? '' };
}

/** The desired Service with its spec recorded in the last-applied annotation. */
export function withServiceRecord(svc: IService): IService {
  const annotations = { ...svc.metadata?.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(svc.spec) };
  return { ...svc, metadata: { ...svc.metadata, annotations } };
}

/** Whether `live` already carries `desired`: same labels, annotations and last-applied spec. */
export function isServiceApplied(desired: IService, live: IService): boolean {
  const record = live.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  let applied: unknown;
  try {
    applied = record === undefined ? undefined : JSON.parse(record);
  } catch {
    applied = undefined;
  }
  return (
    applied !== undefined &&
    jsonEqual(applied, desired.spec) &&
    jsonEqual(desired.metadata?.labels ?? {}, live.metadata?.labels ?? {}) &&
    jsonEqual(desired.metadata?.annotations ?? {}, live.metadata?.annotations ?? {})
  );
}

/**
 * The object to update `live` with: `desired`, keeping the allocated cluster IP(s) and, per port
 * name, the allocated node ports unless the desired port names one (as TiDB Operator keeps ClusterIP
 * and node ports on update).
 */
export function serviceUpdate(desired: IService, live: IService): KubeObject {
  const nodePort = (name: string | undefined) => live.spec?.ports?.find((p) => p.name === name)?.nodePort;
  const ports = (desired.spec?.ports ?? []).map((p) => {
    // A node port the desired Service names itself wins; otherwise the allocated one is kept.
    const allocated = p.nodePort === undefined && (desired.spec?.type === 'NodePort' || desired.spec?.type === 'LoadBalancer') ? nodePort(p.name) : undefined;
    return allocated === undefined ? p : { ...p, nodePort: allocated };
  });
  const kept = {
    ...(live.spec?.clusterIP === undefined ? {} : { clusterIP: live.spec.clusterIP }),
    ...(live.spec?.clusterIPs === undefined ? {} : { clusterIPs: live.spec.clusterIPs }),
  };
  const metadata = { ...live.metadata, labels: desired.metadata?.labels, annotations: desired.metadata?.annotations };
  return { ...live, apiVersion: 'v1', kind: 'Service', metadata, spec: { ...live.spec, ...desired.spec, ...kept, ports } };
}

/** Services: the last-applied spec record, labels and annotations (see `isServiceApplied`). */
export const SERVICE_APPLY: ApplyPolicy<IService> = { kind: 'Service', isApplied: isServiceApplied, updated: serviceUpdate };

/** ConfigMaps: data and labels; an update keeps the rest of the live object. */
export const CONFIG_MAP_APPLY: ApplyPolicy<IConfigMap> = {
  kind: 'ConfigMap',
  isApplied: (desired, live) => jsonEqual(desired.data, live.data) && jsonEqual(desired.metadata?.labels, live.metadata?.labels),
  updated: (desired, live) => ({ ...live, metadata: { ...live.metadata, labels: desired.metadata?.labels }, data: desired.data }) as KubeObject,
};

/** StatefulSets: as TiDB Operator's `StatefulSetEqual` / `UpdateStatefulSet` (see statefulset.ts). */
export const STATEFUL_SET_APPLY: ApplyPolicy<IStatefulSet> = { kind: 'StatefulSet', isApplied: isStatefulSetApplied, updated: statefulSetUpdate };
