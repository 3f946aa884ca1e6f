/**
 * A component's ConfigMap, as TiDB Operator v1's `updateConfigMap`/`confirmNameByData` (§2.0): with
 * `configUpdateStrategy: InPlace` (the default) it is `<tc>-<component>`, updated in place; with
 * `RollingUpdate` it is `<tc>-<component>-<first 7 hex of sha256(data)>`, so a content change is a
 * new name, a pod template change, and a rolling upgrade. TOML keys are compared semantically:
 * reordering keys changes nothing, and an equal config keeps its text verbatim.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';

import type { TidbCluster } from '../../model/kube.js';
import { componentLabels, ownerReference } from '../../model/labels.js';
import type { ComponentDeclaration } from './component.js';
import type { Snapshot } from '../../model/snapshot.js';
import { configDataDigest, isConfigDataEqual, type ConfigData } from './config-data.js';
import { appliedTemplate } from './statefulset.js';

/** The desired ConfigMap and the live one of the same name (if any). */
export type ConfigMapPlan = { readonly configMap: IConfigMap; readonly live: IConfigMap | undefined };

/** The TidbCluster annotation naming the ConfigMap in use while the StatefulSet is deleted (v1's key). */
export const configMapBeforeDeleteAnnotation = (component: string): string => `tidb.pingcap.com/configmap-name-before-delete-${component}`;

const setNameOf = (component: ComponentDeclaration, tc: TidbCluster): string => `${tc.metadata.name ?? ''}-${component.name}`;

/**
 * The ConfigMap the pods mount now: the `config` volume of the StatefulSet's applied template whose
 * name starts with `<tc>-<component>`, or — while the StatefulSet is deleted for a volume change —
 * the TidbCluster's `configmap-name-before-delete-<component>` annotation.
 */
export function inUseConfigMapName(component: ComponentDeclaration, tc: TidbCluster, set: IStatefulSet | undefined): string | undefined {
  if (!set) return tc.metadata.annotations?.[configMapBeforeDeleteAnnotation(component.name)];
  const prefix = setNameOf(component, tc);
  const volumes = appliedTemplate(set).spec?.volumes ?? [];
  return volumes.find((v) => v.name === 'config' && (v.configMap?.name ?? '').startsWith(prefix))?.configMap?.name;
}

function configMapObject(component: ComponentDeclaration, tc: TidbCluster, name: string, data: ConfigData): IConfigMap {
  const metadata = { name, namespace: tc.metadata.namespace, labels: componentLabels(tc, component.name), ownerReferences: [ownerReference(tc)] };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { ...data } };
}

/**
 * The ConfigMap to have. Guarantees: when the live ConfigMap says the same (semantically), its text
 * is kept verbatim (so nothing is written and no pod rolls); under `RollingUpdate` an equal in-use
 * ConfigMap keeps its name, and a digest name that would collide with the in-use one gets `-new`.
 */
export function planConfigMapObject(
  component: ComponentDeclaration,
  tc: TidbCluster,
  liveConfigMaps: readonly IConfigMap[],
  set: IStatefulSet | undefined,
  snapshot?: Snapshot,
): ConfigMapPlan {
  const plain = component.config.data(tc);
  const { overlay } = component.config;
  // What other objects add (`overlay`) goes on top of the data the name is computed from.
  const desiredFor = (live: IConfigMap | undefined): ConfigData => (overlay && snapshot ? overlay(tc, snapshot, live?.data) : plain);
  const liveNamed = (name: string | undefined) => (name === undefined ? undefined : liveConfigMaps.find((c) => c.metadata?.name === name));
  const isSameData = (live: IConfigMap | undefined) => isConfigDataEqual(desiredFor(live), live?.data, component.config.tomlKeys);
  const keep = (name: string, live: IConfigMap | undefined): ConfigMapPlan => ({
    configMap: configMapObject(component, tc, name, isSameData(live) && live?.data ? live.data : desiredFor(live)),
    live,
  });
  const base = setNameOf(component, tc);
  const strategy = component.specOf(tc)?.configUpdateStrategy ?? tc.spec.configUpdateStrategy;
  if (strategy !== 'RollingUpdate') return keep(base, liveNamed(base));
  const inUse = inUseConfigMapName(component, tc, set);
  const inUseLive = liveNamed(inUse);
  if (inUse !== undefined && isSameData(inUseLive)) return keep(inUse, inUseLive);
  const digestName = `${base}-${configDataDigest(plain)}`;
  // An overlay added or gone leaves the name its plain data gives: updated in place, no roll (v1).
  if (overlay && snapshot && digestName === inUse) return keep(inUse, inUseLive);
  const name = digestName === inUse ? `${digestName}-new` : digestName;
  return keep(name, liveNamed(name));
}
