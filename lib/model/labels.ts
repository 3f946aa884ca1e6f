/**
 * The labels, names and owner reference TiDB Operator v1 puts on every object a TidbCluster owns
 * (`pkg/apis/label/label.go`, §2.0, §2.10): `app.kubernetes.io/{name,managed-by,instance,component}`,
 * and a controller owner reference to the TidbCluster so its objects go by garbage collection with
 * it. The one place that says what they are: the rules that write them, the observer that selects by
 * them and the exporter that maps a watched object back to its cluster all read them from here.
 */

import type { ObjectMeta, TidbCluster } from './kube.js';

/** The PD microservices (`spec.pdms[].name`): their objects carry the service name as component (v1's `label.PDMS`). */
export type PdmsServiceName = 'tso' | 'scheduling';

/** The components whose objects carry `app.kubernetes.io/component`. */
export type ComponentName = 'pd' | 'tikv' | 'tiflash' | 'tidb' | 'ticdc' | 'pump' | 'tiproxy' | 'discovery' | PdmsServiceName;

/** The label keys TiDB Operator sets. */
export const LABEL = {
  name: 'app.kubernetes.io/name',
  managedBy: 'app.kubernetes.io/managed-by',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  usedBy: 'app.kubernetes.io/used-by',
  /** On a cluster's PersistentVolumes: the namespace of the claim (volumes are cluster-scoped). */
  namespace: 'app.kubernetes.io/namespace',
} as const;

/** The `managed-by` value of every object TiDB Operator (and so the reconciler) creates. */
export const MANAGED_BY = 'tidb-operator';

/** The annotation with the JSON of what the reconciler last applied to an object (TiDB Operator's key). */
export const LAST_APPLIED_ANNOTATION = 'pingcap.com/last-applied-configuration';

/**
 * The TiKV pod annotation with when leader eviction before its restart began (TiDB Operator's key,
 * unprefixed): the pods carrying it are the ones whose leader count a step reads from `/metrics`.
 */
export const EVICT_LEADER_BEGIN_TIME_ANNOTATION = 'evictLeaderBeginTime';

/** One entry of `metadata.ownerReferences`. */
export type OwnerReference = NonNullable<ObjectMeta['ownerReferences']>[number];

/** The non-empty `app.kubernetes.io/instance` label of `labels`; an empty value counts as absent. */
export function instanceLabelOf(labels: Readonly<Record<string, string>> | undefined): string | undefined {
  const value = labels?.[LABEL.instance];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The `app.kubernetes.io/instance` value of `tc`'s objects: the TidbCluster's own
 * `app.kubernetes.io/instance` label when it has a non-empty one, else its name (as TiDB Operator's
 * `GetInstanceName`).
 */
export function instanceName(tc: Pick<TidbCluster, 'metadata'>): string {
  return instanceLabelOf(tc.metadata.labels) ?? tc.metadata.name ?? '';
}

/** The labels every owned object carries, as equality pairs: the observer's selector (also put on the Events we record). */
export function ownedLabels(instance: string): Record<string, string> {
  return { [LABEL.instance]: instance, [LABEL.managedBy]: MANAGED_BY };
}

/**
 * The `component` values TiDB Operator gives objects of its other custom resources, which carry
 * `instance=<their own name>` and so may share a TidbCluster's instance label (a TidbDashboard named
 * like its cluster): a TidbCluster's reads leave them out, as v1's member managers select by their
 * own component.
 */
export const OTHER_RESOURCE_COMPONENTS: ReadonlySet<string> = new Set(['monitor', 'backup', 'restore', 'backup-schedule', 'dm-master', 'dm-worker', 'ng-monitoring', 'tidb-dashboard', 'initializer']);

/** Whether an object with these labels belongs to another custom resource than a TidbCluster (see `OTHER_RESOURCE_COMPONENTS`). */
export function isOtherResourceObject(labels: Readonly<Record<string, string>> | undefined): boolean {
  const component = labels?.[LABEL.component];
  return component !== undefined && OTHER_RESOURCE_COMPONENTS.has(component);
}

/** The equality selector `managed-by=tidb-operator` (what the exporter watches), as a selector string. */
export const MANAGED_BY_SELECTOR = `${LABEL.managedBy}=${MANAGED_BY}`;

/**
 * The labels of `component`'s objects. Guarantees: exactly the four TiDB Operator selector labels,
 * so they double as the selector of a Deployment, StatefulSet or Service.
 */
export function componentLabels(tc: TidbCluster, component: ComponentName): Record<string, string> {
  return {
    [LABEL.name]: 'tidb-cluster',
    [LABEL.managedBy]: MANAGED_BY,
    [LABEL.instance]: instanceName(tc),
    [LABEL.component]: component,
  };
}

/**
 * The controller owner reference to `tc` (controller and blockOwnerDeletion true, as TiDB Operator's
 * `GetOwnerRef`): deleting the TidbCluster garbage-collects the object.
 */
export function ownerReference(tc: TidbCluster): OwnerReference {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbCluster',
    name: tc.metadata.name ?? '',
    uid: tc.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The uid of the controller owner reference in `meta`, or undefined when nothing controls it. */
export function controllerUid(meta: ObjectMeta | undefined): string | undefined {
  return meta?.ownerReferences?.find((ref) => ref.controller === true)?.uid;
}
