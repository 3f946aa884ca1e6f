/**
 * PD's ConfigMap, as TiDB Operator v1 (§2.0, §2.1): `config-file` (pd.toml from `spec.pd.config`,
 * TOML text or a map) and `startup-script`. With `configUpdateStrategy: InPlace` (the default) it is
 * `<tc>-pd`, updated in place; with `RollingUpdate` it is `<tc>-pd-<first 7 hex of sha256(data)>`, so
 * a content change is a new name, a pod template change, and a rolling upgrade. TOML is compared
 * semantically: reordering keys changes nothing, and an equal config keeps its text verbatim.
 */

import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';

import type { Action } from '../model/action.js';
import type { KubeObject, TidbCluster } from '../model/kube.js';
import { configDataDigest, isConfigDataEqual, renderConfig, type ConfigData, type TomlValue } from './configmap.js';
import { jsonEqual } from './equal.js';
import { componentLabels, ownerReference } from '../model/labels.js';
import { complete } from './outcome.js';
import { PD_KEYS, gatePdAct, pdSetName, pdStatefulSet } from './pd-common.js';
import { DEFAULT_PD_START_TIMEOUT_SECONDS, pdStartScript } from './pd-start-script.js';
import type { Decision, RuleInput } from './rule.js';
import { appliedTemplate } from './statefulset.js';
import { clusterScheme, pdSecurityConfig } from './tls.js';

/** The ConfigMap keys of PD. */
export const PD_CONFIG_KEYS = { config: 'config-file', script: 'startup-script' } as const;

/** PD's data directory: `/var/lib/pd`, or a sub-directory of it (`spec.pd.dataSubDir`). */
export function pdDataDir(tc: TidbCluster): string {
  const sub = tc.spec.pd?.dataSubDir;
  return sub === undefined || sub === '' ? '/var/lib/pd' : `/var/lib/pd/${sub}`;
}

/** The desired ConfigMap data: rendered pd.toml (plus operator-injected keys) and the start script. */
export function pdConfigData(tc: TidbCluster): ConfigData {
  // As TiDB Operator: with cluster TLS, `[security]` points at the mounted `pd-tls` Secret.
  const overlay: Record<string, TomlValue> = { ...pdSecurityConfig(tc) };
  // As TiDB Operator: the dashboard proxies through PD when asked to.
  if (tc.spec.pd?.enableDashboardInternalProxy === true) overlay['dashboard.internal-proxy'] = true;
  const script = pdStartScript({
    dataDir: pdDataDir(tc),
    startTimeoutSeconds: tc.spec.pd?.startTimeout ?? DEFAULT_PD_START_TIMEOUT_SECONDS,
    scheme: clusterScheme(tc),
    clusterDomain: tc.spec.clusterDomain ?? '',
  });
  return { [PD_CONFIG_KEYS.config]: renderConfig(tc.spec.pd?.config, overlay), [PD_CONFIG_KEYS.script]: script };
}

const isRollingUpdate = (tc: TidbCluster): boolean =>
  (tc.spec.pd?.configUpdateStrategy ?? tc.spec.configUpdateStrategy) === 'RollingUpdate';

/**
 * The ConfigMap the PD pods mount now: the `config` volume of the StatefulSet's applied template
 * whose name starts with `<tc>-pd`, or — while the StatefulSet is deleted for a volume change — the
 * TidbCluster annotation `tidb.pingcap.com/configmap-name-before-delete-pd`.
 */
export function inUsePdConfigMapName(input: RuleInput): string | undefined {
  const sts = pdStatefulSet(input);
  const prefix = pdSetName(input.cluster);
  if (!sts) return input.cluster.metadata.annotations?.[PD_KEYS.configMapBeforeDelete];
  const volumes = appliedTemplate(sts).spec?.volumes ?? [];
  return volumes.find((v) => v.name === 'config' && (v.configMap?.name ?? '').startsWith(prefix))?.configMap?.name;
}

/** The desired PD ConfigMap and the live one of the same name (if any). */
export type PdConfigMapPlan = { readonly configMap: IConfigMap; readonly live: IConfigMap | undefined };

const liveNamed = (input: RuleInput, name: string | undefined): IConfigMap | undefined =>
  name === undefined ? undefined : input.snapshot.components.pd.objects.ConfigMap.find((c) => c.metadata?.name === name);

const isSameData = (desired: ConfigData, live: IConfigMap | undefined): boolean =>
  isConfigDataEqual(desired, live?.data, [PD_CONFIG_KEYS.config]);

function configMapObject(tc: TidbCluster, name: string, data: ConfigData): IConfigMap {
  const metadata = { name, namespace: tc.metadata.namespace, labels: componentLabels(tc, 'pd'), ownerReferences: [ownerReference(tc)] };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { ...data } };
}

/**
 * The PD ConfigMap to have, as TiDB Operator's `updateConfigMap`/`confirmNameByData`. Guarantees:
 * when the live ConfigMap says the same (semantically), its text is kept verbatim (so nothing is
 * written and no pod rolls); under `RollingUpdate` an equal in-use ConfigMap keeps its name, and a
 * digest name that would collide with the in-use one gets `-new`.
 */
export function planPdConfigMapObject(input: RuleInput): PdConfigMapPlan {
  const tc = input.cluster;
  const desired = pdConfigData(tc);
  const keep = (name: string, live: IConfigMap | undefined): PdConfigMapPlan => ({
    configMap: configMapObject(tc, name, isSameData(desired, live) && live?.data ? live.data : desired),
    live,
  });
  if (!isRollingUpdate(tc)) return keep(pdSetName(tc), liveNamed(input, pdSetName(tc)));
  const inUse = inUsePdConfigMapName(input);
  const inUseLive = liveNamed(input, inUse);
  if (inUse !== undefined && isSameData(desired, inUseLive)) return keep(inUse, inUseLive);
  const digestName = `${pdSetName(tc)}-${configDataDigest(desired)}`;
  const name = digestName === inUse ? `${digestName}-new` : digestName;
  return keep(name, liveNamed(input, name));
}

/** The name of the ConfigMap the desired PD pod template mounts. */
export const pdConfigMapName = (input: RuleInput): string => planPdConfigMapObject(input).configMap.metadata?.name ?? '';

/** The write that makes the PD ConfigMap as desired: create, update (under its resourceVersion), or none. */
export function planPdConfigMapWrite(plan: PdConfigMapPlan): Action | undefined {
  const { configMap, live } = plan;
  const ref = { kind: 'ConfigMap' as const, namespace: configMap.metadata?.namespace ?? '', name: configMap.metadata?.name ?? '' };
  if (!live) return { kind: 'create', ref, object: configMap as KubeObject };
  const applied = jsonEqual(configMap.data, live.data) && jsonEqual(configMap.metadata?.labels, live.metadata?.labels);
  if (applied) return undefined;
  const object = { ...live, metadata: { ...live.metadata, labels: configMap.metadata?.labels }, data: configMap.data } as KubeObject;
  return { kind: 'update', ref, object, resourceVersion: live.metadata?.resourceVersion ?? '' };
}

/**
 * The `PdConfigMap` rule. As TiDB Operator: the ConfigMap the pods should mount exists with the
 * desired content. Guarantees: at most one create or update; always completes (a new name reaches
 * the pods through the StatefulSet rules, as an upgrade).
 */
export function planPdConfigMap(input: RuleInput): Decision {
  return gatePdAct((gated) => {
    const action = planPdConfigMapWrite(planPdConfigMapObject(gated));
    return { actions: action ? [action] : [], outcome: complete(action ? 'PD config map written' : undefined) };
  })(input);
}
