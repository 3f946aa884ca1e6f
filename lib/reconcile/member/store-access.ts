/**
 * What store failover reads and writes of one store component (TiDB Operator v1's `StoreAccess`):
 * every component whose status keeps `failureStores` keeps `spec.<c>.maxFailoverCount` /
 * `recoverFailover` / `failover.recoverByUID` and `status.<c>.stores` / `failureStores` /
 * `failoverUID` in the same shapes, so the access is the component's name, its title, its
 * desired-replica formula and how soon it polls; each store component declares its own.
 */

import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import type { RuleInput } from '../engine/rule.js';
import type { MemberName } from './component.js';

/** The components whose status keeps stores and failure stores. */
export type StoreComponent = { [K in MemberName]: NonNullable<TidbClusterStatus[K]> extends { failureStores?: unknown } ? K : never }[MemberName];

/** A store component's status (every one has the same store fields). */
export type StoreStatus = NonNullable<TidbClusterStatus[StoreComponent]>;
/** One `status.<c>.stores` entry. */
export type StatusStore = NonNullable<StoreStatus['stores']>[string];
/** One `status.<c>.failureStores` entry. */
export type FailureStore = NonNullable<StoreStatus['failureStores']>[string];

/** The failover-related fields of a store component's spec. */
export type StoreFailoverSpec = {
  readonly replicas: number;
  readonly maxFailoverCount?: number;
  readonly recoverFailover?: boolean;
  readonly failover?: { readonly recoverByUID?: string };
};

/** One store component as store failover sees it (see the module comment). */
export type StoreAccess = {
  readonly component: StoreComponent;
  /** As messages name it. */
  readonly title: string;
  /** How soon a failover rule that changed the status, or is holding, wants to look again. */
  readonly retryMs: number;
  /** The StatefulSet replicas this status asks for (spec + failure stores + spares). */
  readonly desiredReplicas: (spec: TidbCluster['spec'], status: TidbClusterStatus) => number;
};

/** The component's spec (undefined when the cluster has none). */
export const storeSpecOf = (access: StoreAccess, tc: TidbCluster): StoreFailoverSpec | undefined => tc.spec[access.component];

/** The component's status as the rules before this one left it (empty when there is none). */
export const storeStatusOf = (access: StoreAccess, input: RuleInput): StoreStatus => input.status[access.component] ?? {};

/** The input's status with the component's failure fields replaced (`undefined` removes one). */
export function withFailureFields(
  access: StoreAccess,
  input: RuleInput,
  fields: { readonly failureStores: Record<string, FailureStore> | undefined; readonly failoverUID: string | undefined },
): TidbClusterStatus {
  const { failureStores: _stores, failoverUID: _uid, ...rest } = storeStatusOf(access, input);
  const next: StoreStatus = {
    ...rest,
    ...(fields.failureStores === undefined ? {} : { failureStores: fields.failureStores }),
    ...(fields.failoverUID === undefined ? {} : { failoverUID: fields.failoverUID }),
  };
  return { ...input.status, [access.component]: next };
}
