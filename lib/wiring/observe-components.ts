/**
 * How the observer reads each component beyond its objects: one entry per observed component, with
 * when it is read, how its API is read into the snapshot's view, what the component's own objects
 * add to that view, and how a failed read is classified. The observer walks this table; adding a
 * component to `ObservedComponents` without an entry here does not compile.
 */

import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import type { ObservedComponentName, ObservedComponents } from '../model/snapshot.js';
import type { ClusterClients, ClusterTarget } from './clients.js';
import { referencedPdOf } from '../reconcile/cluster/referenced-pd.js';
import { pdTargetOf } from './pd-target.js';
import { type ClusterIdCache, isPdRollingOut, pdReadFailureOf, readPd, readsPdStores, toPdView, withMemberReadiness } from './pd-view.js';
import { withPdms } from './pdms-view.js';
import { readTidbServers, tidbReadFailureOf } from './tidb-view.js';
import { readPump, readTicdc } from './ticdc-view.js';
import { readTiflashView } from './tiflash-view.js';
import { readTiproxy } from './tiproxy-view.js';


/**
 * What a component read gets: the clients, which cluster to reach (https under cluster TLS) and the
 * TidbCluster as read (a cluster may use another one's PD, see `pd-target.ts`).
 */
export type ComponentReadContext = {
  readonly clients: ClusterClients;
  readonly target: ClusterTarget;
  readonly cluster: TidbCluster;
  /** The PD cluster ids the observer has read (its own bounded cache, kept while it lives: a warm container). */
  readonly clusterIds: ClusterIdCache;
};

/** The view type of component `N`. */
export type ViewOf<N extends ObservedComponentName> = NonNullable<ObservedComponents[N]['view']>;

/** The read-failure kinds of component `N`. */
export type FailureOf<N extends ObservedComponentName> = NonNullable<ObservedComponents[N]['errorKind']>;

/**
 * One component's reader. `read` runs alongside the owned-object LISTs; `complete`, when present,
 * runs once those are in, with the component's own objects (and only when `read` succeeded).
 * `read` throws the clients' typed errors; `failureOf` classifies them. `title` names the component
 * in the budget's abort messages (`read PD`), `completeWhat` the completion (default `read <title>`).
 */
export type ComponentReader<View, Failure extends string> = {
  readonly title: string;
  readonly inSpec: (cluster: TidbCluster) => boolean;
  readonly read: (context: ComponentReadContext) => Promise<View>;
  readonly complete?: (view: View, objects: OwnedObjects, context: ComponentReadContext) => Promise<View>;
  readonly completeWhat?: string;
  readonly failureOf: (err: unknown) => Failure;
};

/** Every observed component's reader, by name. */
export type ComponentReaders = { readonly [N in ObservedComponentName]: ComponentReader<ViewOf<N>, FailureOf<N>> };

/** Whether the spec has a PD of its own to read (a cluster joining another one's PD has none). */
export function hasPd(cluster: TidbCluster): boolean {
  return cluster.spec.pd !== undefined && cluster.spec.pd !== null;
}

/** Whether the cluster uses a PD: its own, or the one of the cluster `spec.cluster` names. */
export function usesPd(cluster: TidbCluster): boolean {
  return hasPd(cluster) || referencedPdOf(cluster) !== undefined;
}

/** Whether the spec has a section for `name` (a component the reconciler runs). */
const hasSection = (name: 'ticdc' | 'pump') => (cluster: TidbCluster): boolean => cluster.spec[name] !== undefined && cluster.spec[name] !== null;

/**
 * The readers. PD: members, health and leader, with stores, config and evict-leader schedulers when
 * the cluster's rules use them, through the `<tc>-pd` service of the PD the cluster uses (see
 * `pd-view.ts`, `pd-target.ts`), then — while its own PD rolls out — each member's readiness from its
 * own pod, asked only of PD pods this observation listed. TiDB: each running TiDB pod's `/status`
 * (see `tidb-view.ts`). TiCDC and Pump are asked through their own pods, so both are read once the
 * pods are listed (see `ticdc-view.ts`); neither read throws.
 */
export const COMPONENT_READERS: ComponentReaders = {
  pd: {
    title: 'PD',
    inSpec: usesPd,
    read: async ({ clients, target, cluster, clusterIds }) => {
      const pd = pdTargetOf(cluster, target);
      const view = toPdView(await readPd(clients.pd(pd), { stores: readsPdStores(cluster), clusterIds, pdName: `${pd.namespace}/${pd.tcName}` }));
      // The PD microservices (PD in `mode: ms`): their servers, and their primaries while they upgrade.
      return withPdms(view, clients.pd(pd), cluster);
    },
    complete: async (view, objects, { clients, target, cluster }) =>
      isPdRollingOut(cluster, objects) ? withMemberReadiness(view, clients.pd(pdTargetOf(cluster, target)), new Set(objects.Pod.map((p) => p.metadata?.name ?? ''))) : view,
    completeWhat: 'read PD member readiness',
    failureOf: pdReadFailureOf,
  },
  // TiDB: `/status` of each running TiDB pod, once the pods are listed (nothing to read before).
  tidb: {
    title: 'TiDB',
    inSpec: (cluster) => cluster.spec.tidb !== undefined && cluster.spec.tidb !== null,
    read: async () => ({ servers: {} }),
    complete: async (_view, objects, { clients, target }) => readTidbServers(objects, clients.tidb(target)),
    completeWhat: 'read TiDB /status',
    failureOf: tidbReadFailureOf,
  },
  pump: {
    title: 'Pump',
    inSpec: hasSection('pump'),
    read: () => Promise.resolve({ nodes: undefined, detail: 'Pump pods not listed yet' }),
    complete: (_view, objects, { clients, target }) => readPump(clients.pump(target), objects.Pod),
    completeWhat: 'read the Pump registry',
    failureOf: () => 'unreachable',
  },
  ticdc: {
    title: 'TiCDC',
    inSpec: hasSection('ticdc'),
    read: () => Promise.resolve({ captures: {}, drains: {} }),
    complete: (_view, objects, { clients, target }) => readTicdc(clients.ticdc(target), objects.Pod),
    completeWhat: 'read TiCDC captures',
    failureOf: () => 'unreachable',
  },
  // TiFlash: nothing up front; once its objects are in, the proxy store status of the updated pods
  // of a rolling StatefulSet (see `tiflash-view.ts`).
  tiflash: {
    title: 'TiFlash',
    inSpec: (cluster) => cluster.spec.tiflash !== undefined && cluster.spec.tiflash !== null,
    read: async () => ({ storeStatus: {} }),
    complete: async (_view, objects, { clients, target }) => readTiflashView(objects, clients.tiflash(target)),
    completeWhat: 'read TiFlash store status',
    failureOf: () => 'unreachable',
  },
  // TiProxy: nothing up front; once its pods are listed, each one's /api/debug/health (see `tiproxy-view.ts`).
  tiproxy: {
    title: 'TiProxy',
    inSpec: (cluster) => cluster.spec.tiproxy !== undefined && cluster.spec.tiproxy !== null,
    read: async () => ({ members: {} }),
    complete: async (_view, objects, { clients, target }) => readTiproxy(clients.tiproxy(target), objects.Pod),
    completeWhat: 'read TiProxy health',
    failureOf: () => 'unreachable',
  },
};
