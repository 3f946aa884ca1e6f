/**
 * What store failover reads and writes of one store component, TiKV or TiFlash (TiDB Operator v1's
 * `StoreAccess`): both keep `spec.<c>.maxFailoverCount` / `recoverFailover` / `failover.recoverByUID`
 * and `status.<c>.stores` / `failureStores` / `failoverUID` in the same shapes, so the access is the
 * component's name, its title, its desired-replica formula and how soon it polls.
 */

import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import type { RuleInput } from '../engine/rule.js';
import { tiflashDesiredReplicas, tikvDesiredReplicas } from '../cluster/replicas.js';

/** `status.tikv` (TiFlash's status has the same store fields). */
export type StoreStatus = NonNullable<TidbClusterStatus['tikv']>;
/** One `status.<c>.stores` entry. */
export type StatusStore = NonNullable<StoreStatus['stores']>[string];
/** One `status.<c>.failureStores` entry. */
export type FailureStore = NonNullable<StoreStatus['failureStores']>[string];

/** The store components. */
export type StoreComponent = 'tikv' | 'tiflash';

/** The failover-related fields of `spec.tikv` / `spec.tiflash`. */
export type StoreFailoverSpec = {
  readonly replicas: number;
  readonly maxFailoverCount?: number;
  readonly recoverFailover?: boolean;
  readonly failover?: { readonly recoverByUID?: string };
};

/** One store component as store failover sees it (see the module comment). */
export type StoreAccess = {
  readonly component: StoreComponent;
  /** As messages name it (`TiKV`). */
  readonly title: string;
  /** How soon a failover rule that changed the status, or is holding, wants to look again. */
  readonly retryMs: number;
  /** The StatefulSet replicas this status asks for (spec + failure stores + spares). */
  readonly desiredReplicas: (spec: TidbCluster['spec'], status: TidbClusterStatus) => number;
};

/** TiKV's stores (`tikvFailoverPeriod`, `spec.tikv.maxFailoverCount`). */
export const TIKV_STORES: StoreAccess = { component: 'tikv', title: 'TiKV', retryMs: 5_000, desiredReplicas: tikvDesiredReplicas };

/** TiFlash's stores (`tiflashFailoverPeriod`, `spec.tiflash.maxFailoverCount`). */
export const TIFLASH_STORES: StoreAccess = { component: 'tiflash', title: 'TiFlash', retryMs: 5_000, desiredReplicas: tiflashDesiredReplicas };

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
