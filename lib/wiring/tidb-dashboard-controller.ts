/**
 * The TidbDashboard controller as a deployment runs it: its reads (the TidbDashboard, the TidbCluster
 * `spec.clusters[0]` names, the dashboard's Service and StatefulSet by name, its pods by label,
 * which certificate Secrets exist) through the `ObjectReader` port, and the recipe
 * (`lib/reconcile/tidb-dashboard/recipe.ts`) to decide. Reads only; every call is bounded by the
 * step's clients' deadline.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IService } from 'kubernetes-models/v1/Service';

import type { ObjectReader } from '../kube/port.js';
import type { TidbCluster } from '../model/kube.js';
import { clusterRefOf, companionLabels } from '../reconcile/companion/meta.js';
import { clusterClientSecretName, isTlsCluster } from '../reconcile/cluster/tls.js';
import { dashboardServiceName, dashboardStatefulSetName, isMysqlTls, tidbClientSecretName } from '../reconcile/tidb-dashboard/build.js';
import { planTidbDashboard } from '../reconcile/tidb-dashboard/recipe.js';
import type { DashboardSnapshot } from '../reconcile/tidb-dashboard/snapshot.js';
import type { TidbDashboard } from '../reconcile/tidb-dashboard/types.js';
import { observeWith, type Controller } from '../step/controller.js';
import { observeCompanionVolumes } from './companion-volumes.js';

/** The TidbDashboard controller over `objects`. */
export function tidbDashboardController(objects: ObjectReader): Controller<DashboardSnapshot> {
  return {
    kind: 'TidbDashboard',
    observe: (ctx) => observeWith(() => observeDashboard(objects, ctx.ref.namespace, ctx.ref.name, ctx.ports.clock.nowMs.bind(ctx.ports.clock))),
    decide: planTidbDashboard,
    subject: (snap) => ({ cluster: undefined, gone: snap.td === undefined }),
  };
}

async function observeDashboard(objects: ObjectReader, ns: string, name: string, now: () => number): Promise<DashboardSnapshot> {
  const td = (await objects.getObject('TidbDashboard', ns, name)) as TidbDashboard | undefined;
  const empty = { service: undefined, sts: undefined, pods: [], secrets: {} };
  if (td === undefined) return { nowMs: now(), td, tc: undefined, ...empty };
  const ref = clusterRefOf(td);
  const labels = companionLabels('TidbDashboard', name);
  const [tc, services, sts, pods] = await Promise.all([
    ref === undefined ? Promise.resolve(undefined) : (objects.getObject('TidbCluster', ref.namespace, ref.name) as Promise<TidbCluster | undefined>),
    // Services are listed by label, as the TidbCluster's are (the reconciler's role lists them, it does not get them).
    objects.listObjects('Service', ns, labels) as Promise<IService[]>,
    objects.getObject('StatefulSet', ns, dashboardStatefulSetName(name)) as Promise<IStatefulSet | undefined>,
    objects.listObjects('Pod', ns, labels) as Promise<IPod[]>,
  ]);
  const { claims, volumes } = await observeCompanionVolumes(objects, ns, labels);
  const service = services.find((s) => s.metadata?.name === dashboardServiceName(name));
  // Only whether the cluster's certificate Secrets exist: the copy itself reads them inside the adapter.
  const sources = tc === undefined || ref === undefined ? [] : [...(isTlsCluster(tc) ? [clusterClientSecretName(ref.name)] : []), ...(isMysqlTls(tc) ? [tidbClientSecretName(ref.name)] : [])];
  const found = await Promise.all(sources.map(async (s) => [s, (await objects.secretKeys(ref?.namespace ?? ns, s)) !== undefined] as const));
  return { nowMs: now(), td, tc, service, sts, pods, claims, volumes, secrets: Object.fromEntries(found) };
}
