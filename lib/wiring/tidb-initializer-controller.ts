/**
 * The TidbInitializer controller as a deployment runs it: its reads (the initializer, the TidbCluster
 * `spec.cluster.name` names in the initializer's namespace, the Job and ConfigMap
 * `<cluster>-tidb-initializer`, the key names of the password Secret and of the `initSqlConfigMap`)
 * through the `ObjectReader` port, and the recipe (`lib/reconcile/tidb-initializer/recipe.ts`) to
 * decide. Reads only — never a password: the Secret's values are dropped unread; every call is
 * bounded by the step's clients' deadline.
 */

import type { ObjectReader } from '../kube/port.js';
import type { KubeObject, TidbCluster } from '../model/kube.js';
import type { Job } from '../reconcile/backup/types.js';
import { initializerMemberName } from '../reconcile/tidb-initializer/job.js';
import { type InitializerSnapshot, planTidbInitializer } from '../reconcile/tidb-initializer/recipe.js';
import type { TidbInitializer } from '../reconcile/tidb-initializer/types.js';
import { observeWith, type Controller } from '../step/controller.js';

/** What the controller needs: the object reads. */
export type TidbInitializerControllerOptions = { readonly objects: ObjectReader };

/** The TidbInitializer controller. */
export function tidbInitializerController(options: TidbInitializerControllerOptions): Controller<InitializerSnapshot> {
  return {
    kind: 'TidbInitializer',
    observe: (ctx) => observeWith(() => observeInitializer(options.objects, ctx.ref.namespace, ctx.ref.name, ctx.ports.clock.nowMs.bind(ctx.ports.clock))),
    decide: planTidbInitializer,
    subject: (snap) => ({ cluster: undefined, gone: snap.ti === undefined }),
  };
}

async function observeInitializer(objects: ObjectReader, ns: string, name: string, now: () => number): Promise<InitializerSnapshot> {
  const ti = (await objects.getObject('TidbInitializer', ns, name)) as TidbInitializer | undefined;
  const none = { secretKeys: undefined, sqlConfigMapKeys: undefined };
  const cluster = ti?.spec?.cluster?.name;
  if (ti === undefined || !cluster) return { nowMs: now(), ti, tc: undefined, job: undefined, configMap: undefined, sources: none };
  const member = initializerMemberName(cluster);
  const spec = ti.spec ?? {};
  const [tc, job, configMap, secretKeys, sqlConfigMap] = await Promise.all([
    objects.getObject('TidbCluster', ns, cluster) as Promise<TidbCluster | undefined>,
    objects.getObject('Job', ns, member) as Promise<Job | undefined>,
    objects.getObject('ConfigMap', ns, member) as Promise<KubeObject | undefined>,
    spec.passwordSecret ? objects.secretKeys(ns, spec.passwordSecret) : Promise.resolve(undefined),
    spec.initSqlConfigMap ? objects.getObject('ConfigMap', ns, spec.initSqlConfigMap) : Promise.resolve(undefined),
  ]);
  const sqlConfigMapKeys = sqlConfigMap === undefined ? undefined : Object.keys((sqlConfigMap['data'] as Record<string, string> | undefined) ?? {});
  return { nowMs: now(), ti, tc, job, configMap, sources: { secretKeys, sqlConfigMapKeys } };
}
