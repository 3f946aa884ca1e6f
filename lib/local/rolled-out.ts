/**
 * What `waitFor: ready` means: the TidbCluster is Ready *as asked*, not only `Ready=True`. A status
 * can say Ready while the spec asks for something the StatefulSets do not have yet (a new image the
 * reconciler has not written, or a rollout the StatefulSet controller has not finished), so the judge
 * also reads every component's StatefulSet: its controller has observed its generation, it is at its
 * update revision with every replica updated and ready, and its main container runs the image the
 * TidbCluster asks for, and the TidbCluster's status shows that StatefulSet as it is (the reconciler's
 * status sync has caught up). A component whose StatefulSet is suspended (`suspendAction`) is not judged.
 */
import type { TidbCluster } from '../model/kube.js';
import { tiproxyImage } from '../reconcile/components/tiproxy/pod-template.js';
import { componentImage } from '../reconcile/member/pod-spec.js';
import { isSuspendWanted } from '../reconcile/member/suspend.js';
import type { KubeObject } from '../sim/object.js';
import type { ObjectStore } from '../sim/store.js';

type Condition = { type?: string; status?: string };

/** The member components, their StatefulSet suffix (and main container name) and default image. */
const COMPONENTS = [
  { name: 'pd', base: 'pingcap/pd' },
  { name: 'tikv', base: 'pingcap/tikv' },
  { name: 'tiflash', base: 'pingcap/tiflash' },
  { name: 'tidb', base: 'pingcap/tidb' },
  { name: 'ticdc', base: 'pingcap/ticdc' },
  { name: 'pump', base: 'pingcap/tidb-binlog' },
  { name: 'tiproxy', base: 'pingcap/tiproxy' },
] as const;

/** The image the TidbCluster asks for: TiProxy's base image wins over its image (v1's `TiProxyImage`), every other component's image wins. */
function imageOf(cluster: TidbCluster, name: (typeof COMPONENTS)[number]['name'], base: string): string {
  return name === 'tiproxy' ? tiproxyImage(cluster) : componentImage(cluster, cluster.spec[name], base);
}

/** Ready as asked, or the first reason it is not (`Ready=False`, `StatefulSet demo/basic-tikv …`). */
export type ReadyVerdict = { readonly ready: true } | { readonly ready: false; readonly why: string };

/** Whether `tc` (read from `store`) is Ready as asked; undefined `tc` (it does not exist) is not. */
export function readyAsAsked(store: ObjectStore, tc: KubeObject | undefined): ReadyVerdict {
  if (!tc) return { ready: false, why: 'the TidbCluster does not exist' };
  const ready = ((tc.status?.conditions ?? []) as Condition[]).some((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready) return { ready: false, why: 'Ready is not True' };
  const cluster = tc as unknown as TidbCluster;
  const namespace = tc.metadata.namespace;
  for (const { name, base } of COMPONENTS) {
    const spec = cluster.spec[name];
    if (spec === undefined || isSuspendWanted(cluster, name)) continue;
    const stsName = `${tc.metadata.name ?? ''}-${name}`;
    const sts = store.get('StatefulSet', namespace, stsName);
    const why = notRolledOut(sts, imageOf(cluster, name, base), name);
    if (why !== undefined) return { ready: false, why: `StatefulSet ${namespace ?? ''}/${stsName} ${why}` };
    const stale = staleStatus((tc.status as Record<string, { statefulSet?: Record<string, unknown> }> | undefined)?.[name]?.statefulSet, sts?.status ?? {});
    if (stale !== undefined) return { ready: false, why: `status.${name}.statefulSet.${stale} does not show StatefulSet ${namespace ?? ''}/${stsName} yet` };
  }
  return { ready: true };
}

// What the TidbCluster's status copies from each StatefulSet's, and must show before the cluster is at rest.
const MIRRORED = ['replicas', 'readyReplicas', 'updatedReplicas', 'currentRevision', 'updateRevision'] as const;

/** The first mirrored field where the TidbCluster's copy differs from the StatefulSet's status, or undefined. */
function staleStatus(copy: Record<string, unknown> | undefined, actual: Record<string, unknown>): string | undefined {
  return MIRRORED.find((field) => (copy?.[field] ?? 0) !== (actual[field] ?? 0));
}

/** Why a component's StatefulSet is not rolled out to `image`, or undefined when it is. */
function notRolledOut(sts: KubeObject | undefined, image: string, container: string): string | undefined {
  if (!sts) return 'does not exist';
  const status = sts.status ?? {};
  const generation = sts.metadata.generation ?? 0;
  if ((status.observedGeneration ?? 0) < generation) return `generation ${generation} not observed yet (observed ${status.observedGeneration ?? 0})`;
  const replicas = sts.spec?.replicas ?? 1;
  if (status.updateRevision !== undefined && status.currentRevision !== status.updateRevision) return `at revision ${status.currentRevision ?? '(none)'}, not its update revision ${status.updateRevision}`;
  if ((status.updatedReplicas ?? 0) < replicas || (status.readyReplicas ?? 0) < replicas) return `has ${status.updatedReplicas ?? 0} updated and ${status.readyReplicas ?? 0} ready of ${replicas} replicas`;
  const containers = (sts.spec?.template?.spec?.containers ?? []) as { name?: string; image?: string }[];
  const main = containers.find((c) => c.name === container);
  if (main && main.image !== image) return `runs ${main.image ?? '(no image)'}, the TidbCluster asks for ${image}`;
  return undefined;
}
