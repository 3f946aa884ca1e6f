/**
 * The TidbMonitor controller as a deployment runs it: its reads through the `ObjectReader` port — the
 * monitor, each TidbCluster of `spec.clusters` (in its own namespace, defaulting to the monitor's) and
 * the key names of a TLS cluster's `<tc>-cluster-client-secret`, the objects it owns (one LIST per kind
 * by `app.kubernetes.io/component=monitor`, the ClusterRole and ClusterRoleBinding of a cluster-scoped
 * monitor by name), whether Grafana's Secret exists, and `prometheus.config.configMapRef` — and the recipe
 * (`lib/reconcile/monitor/recipe.ts`) to decide. Reads only; every call is bounded by the step's
 * clients' deadline.
 */

import type { ObjectReader } from '../kube/port.js';
import type { KubeObject, TidbCluster } from '../model/kube.js';
import { crossNamespaceName, monitorObjectName } from '../reconcile/monitor/names.js';
import { planTidbMonitor } from '../reconcile/monitor/recipe.js';
import type { MonitorOwnedKind, MonitorSnapshot, ObservedCluster } from '../reconcile/monitor/snapshot.js';
import { clusterRefsOf, type TidbMonitor } from '../reconcile/monitor/types.js';
import { observeWith, type Controller } from '../step/controller.js';

/** What the TidbMonitor controller is built with. */
export type MonitorControllerOptions = { readonly objects: ObjectReader };

/** The selector of everything a monitor labels (every monitor's: filtered by name in the recipe). */
const MONITOR_SELECTOR = 'app.kubernetes.io/component=monitor';
const LISTED: readonly MonitorOwnedKind[] = ['Service', 'ConfigMap', 'StatefulSet', 'ServiceAccount', 'Role', 'RoleBinding'];

/** The TidbMonitor controller. */
export function monitorController(options: MonitorControllerOptions): Controller<MonitorSnapshot> {
  return {
    kind: 'TidbMonitor',
    observe: (ctx) => observeWith(() => observeMonitor(options.objects, ctx.ref.namespace, ctx.ref.name, ctx.ports.clock.nowMs.bind(ctx.ports.clock))),
    decide: planTidbMonitor,
    subject: (snap) => ({ cluster: undefined, gone: snap.monitor === undefined }),
  };
}

async function observeMonitor(objects: ObjectReader, ns: string, name: string, now: () => number): Promise<MonitorSnapshot> {
  const monitor = (await objects.getObject('TidbMonitor', ns, name)) as TidbMonitor | undefined;
  const empty: MonitorSnapshot = { nowMs: now(), monitor, clusters: [], live: {}, secrets: new Set(), externalConfig: undefined };
  if (monitor === undefined) return empty;
  const deleting = monitor.metadata.deletionTimestamp !== undefined;
  const clusterScoped = monitor.spec?.clusterScoped === true;
  const ref = monitor.spec?.prometheus?.config?.configMapRef;
  const [clusters, listed, clusterRbac, secrets, externalConfig] = await Promise.all([
    deleting ? Promise.resolve([]) : Promise.all(clusterRefsOf(monitor).map((c) => observeCluster(objects, c.namespace, c.name))),
    deleting ? Promise.resolve([]) : Promise.all(LISTED.map(async (kind) => [kind, (await objects.listObjects(kind, ns, MONITOR_SELECTOR)) as KubeObject[]] as const)),
    clusterScoped ? Promise.all((['ClusterRole', 'ClusterRoleBinding'] as const).map(async (kind) => [kind, (await objects.getObject(kind, '', crossNamespaceName(monitor))) as KubeObject | undefined] as const)) : Promise.resolve([]),
    deleting ? Promise.resolve([]) : Promise.all([monitorObjectName(monitor)].map(async (s) => ((await objects.secretKeys(ns, s)) === undefined ? undefined : s))),
    ref?.name && !deleting ? (objects.getObject('ConfigMap', ref.namespace || ns, ref.name) as Promise<KubeObject | undefined>) : Promise.resolve(undefined),
  ]);
  const live: Partial<Record<MonitorOwnedKind, readonly KubeObject[]>> = Object.fromEntries(listed);
  for (const [kind, obj] of clusterRbac) if (obj !== undefined) live[kind] = [obj];
  return { nowMs: now(), monitor, clusters, live, secrets: new Set(secrets.filter((s): s is string => s !== undefined)), externalConfig };
}

async function observeCluster(objects: ObjectReader, namespace: string, name: string): Promise<ObservedCluster> {
  const tc = (await objects.getObject('TidbCluster', namespace, name)) as TidbCluster | undefined;
  const tls = tc?.spec?.tlsCluster?.enabled === true;
  const clientSecretKeys = tls ? await objects.secretKeys(namespace, `${name}-cluster-client-secret`) : undefined;
  return { name, namespace, tc, clientSecretKeys };
}
