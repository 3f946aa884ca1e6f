/**
 * The TidbNGMonitoring controller as a deployment runs it: its reads (the TidbNGMonitoring, the
 * TidbCluster `spec.clusters[0]` names, its Service, ConfigMaps and pods by label, its StatefulSet by
 * name, which certificate Secrets exist) through the `ObjectReader` port, and the recipe
 * (`lib/reconcile/tidb-ng-monitoring/recipe.ts`) to decide. Reads only; every call is bounded by the
 * step's clients' deadline.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IService } from 'kubernetes-models/v1/Service';

import type { ObjectReader } from '../kube/port.js';
import type { TidbCluster } from '../model/kube.js';
import { clusterClientSecretName, isTlsCluster } from '../reconcile/cluster/tls.js';
import { clusterRefOf, companionLabels } from '../reconcile/companion/meta.js';
import { ngmName, ngmTlsSecretName } from '../reconcile/tidb-ng-monitoring/build.js';
import { planTidbNgMonitoring } from '../reconcile/tidb-ng-monitoring/recipe.js';
import type { NgMonitoringSnapshot } from '../reconcile/tidb-ng-monitoring/snapshot.js';
import type { TidbNGMonitoring } from '../reconcile/tidb-ng-monitoring/types.js';
import { observeWith, type Controller } from '../step/controller.js';
import { observeCompanionVolumes } from './companion-volumes.js';

/** The TidbNGMonitoring controller over `objects`. */
export function tidbNgMonitoringController(objects: ObjectReader): Controller<NgMonitoringSnapshot> {
  return {
    kind: 'TidbNGMonitoring',
    observe: (ctx) => observeWith(() => observeNgMonitoring(objects, ctx.ref.namespace, ctx.ref.name, ctx.ports.clock.nowMs.bind(ctx.ports.clock))),
    decide: planTidbNgMonitoring,
    subject: (snap) => ({ cluster: undefined, gone: snap.tngm === undefined }),
  };
}

async function observeNgMonitoring(objects: ObjectReader, ns: string, name: string, now: () => number): Promise<NgMonitoringSnapshot> {
  const tngm = (await objects.getObject('TidbNGMonitoring', ns, name)) as TidbNGMonitoring | undefined;
  if (tngm === undefined) return { nowMs: now(), tngm, tc: undefined, service: undefined, configMaps: [], sts: undefined, pods: [], secrets: {} };
  const ref = clusterRefOf(tngm);
  const labels = companionLabels('TidbNGMonitoring', name);
  const [tc, services, configMaps, sts, pods, own] = await Promise.all([
    ref === undefined ? Promise.resolve(undefined) : (objects.getObject('TidbCluster', ref.namespace, ref.name) as Promise<TidbCluster | undefined>),
    objects.listObjects('Service', ns, labels) as Promise<IService[]>,
    objects.listObjects('ConfigMap', ns, labels) as Promise<IConfigMap[]>,
    objects.getObject('StatefulSet', ns, ngmName(name)) as Promise<IStatefulSet | undefined>,
    objects.listObjects('Pod', ns, labels) as Promise<IPod[]>,
    objects.secretKeys(ns, ngmTlsSecretName(name)),
  ]);
  const { claims, volumes } = await observeCompanionVolumes(objects, ns, labels);
  // The cluster's client certificate is looked for only under TLS; only its existence is read here.
  const source = tc !== undefined && ref !== undefined && isTlsCluster(tc) ? clusterClientSecretName(ref.name) : undefined;
  const sourceFound = source === undefined ? undefined : (await objects.secretKeys(ref?.namespace ?? ns, source)) !== undefined;
  const secrets: Record<string, boolean> = { [ngmTlsSecretName(name)]: own !== undefined, ...(source === undefined ? {} : { [source]: sourceFound === true }) };
  return { nowMs: now(), tngm, tc, service: services.find((s) => s.metadata?.name === ngmName(name)), configMaps, sts, pods, claims, volumes, secrets };
}
