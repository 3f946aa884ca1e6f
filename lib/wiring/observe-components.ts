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
import { pdReadFailureOf, readPd, toPdView, withMemberReadiness } from './pd-view.js';

/**
 * What a component read gets: the clients, which cluster to reach (https under cluster TLS) and the
 * TidbCluster as read (a cluster may use another one's PD, see `pd-target.ts`).
 */
export type ComponentReadContext = { readonly clients: ClusterClients; readonly target: ClusterTarget; readonly cluster: TidbCluster };

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

/**
 * The readers. PD: members, health, leader, stores, config and evict-leader schedulers through the
 * `<tc>-pd` service of the PD the cluster uses (see `pd-view.ts`, `pd-target.ts`), then each member's
 * readiness from its own pod — asked only of PD pods this observation listed.
 */
export const COMPONENT_READERS: ComponentReaders = {
  pd: {
    title: 'PD',
    inSpec: usesPd,
    read: async ({ clients, target, cluster }) => toPdView(await readPd(clients.pd(pdTargetOf(cluster, target)))),
    complete: async (view, objects, { clients, target, cluster }) =>
      withMemberReadiness(view, clients.pd(pdTargetOf(cluster, target)), new Set(objects.Pod.map((p) => p.metadata?.name ?? ''))),
    completeWhat: 'read PD member readiness',
    failureOf: pdReadFailureOf,
  },
};
