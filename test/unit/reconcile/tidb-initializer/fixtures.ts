/**
 * Builders for TidbInitializer rule tests: the upstream example's initializer `demo/ti` for the
 * TidbCluster `demo/basic` (a password Secret `tidb-secret` with `root`, inline SQL), its Job, and a
 * snapshot around them.
 */

import type { KubeObject, TidbCluster } from '../../../../lib/model/kube.js';
import type { Job } from '../../../../lib/reconcile/backup/types.js';
import type { InitializerSnapshot } from '../../../../lib/reconcile/tidb-initializer/recipe.js';
import type { TidbInitializer, TidbInitializerSpec, TidbInitializerStatus } from '../../../../lib/reconcile/tidb-initializer/types.js';
import { T0, tidbCluster } from '../../../support/fixtures.js';

/** The TidbCluster `demo/basic`. */
export function cluster(...changes: ((tc: TidbCluster) => TidbCluster)[]): TidbCluster {
  return tidbCluster(...changes);
}

/** A TidbInitializer `demo/ti` as upstream's example has it (for cluster `basic`). */
export function initializer(spec: Partial<TidbInitializerSpec> = {}, status?: TidbInitializerStatus, name = 'ti', uid = 'uid-ti'): TidbInitializer {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbInitializer',
    metadata: { name, namespace: 'demo', uid, resourceVersion: '7' },
    spec: { image: 'tnir/mysqlclient', imagePullPolicy: 'IfNotPresent', cluster: { name: 'basic' }, initSql: 'create database hello;', passwordSecret: 'tidb-secret', ...spec },
    ...(status ? { status } : {}),
  };
}

/** The Job `basic-tidb-initializer`, owned by `owner` (default the fixture's initializer), with `conditions`. */
export function job(conditions: { type: string; status: string }[] = [], owner = { name: 'ti', uid: 'uid-ti' }, extra: Record<string, unknown> = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'basic-tidb-initializer', namespace: 'demo', ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbInitializer', name: owner.name, uid: owner.uid, controller: true }] },
    status: { conditions, ...extra },
  } as Job;
}

/** A snapshot at T0: the cluster exists, the Secret has `root`, nothing created yet (plus `over`). */
export function snap(ti: TidbInitializer | undefined, over: Partial<InitializerSnapshot> = {}): InitializerSnapshot {
  return { nowMs: T0, ti, tc: cluster(), job: undefined, configMap: undefined, sources: { secretKeys: ['root'], sqlConfigMapKeys: undefined }, ...over };
}

/** The ConfigMap `basic-tidb-initializer` owned by `owner`. */
export function configMap(owner = { name: 'ti', uid: 'uid-ti' }): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'basic-tidb-initializer', namespace: 'demo', ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbInitializer', name: owner.name, uid: owner.uid, controller: true }] } };
}
