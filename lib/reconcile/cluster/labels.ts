/**
 * The labels and owner reference every object a TidbCluster owns carries, as TiDB Operator v1
 * (`pkg/apis/label/label.go`, §2.0): `app.kubernetes.io/{name,managed-by,instance,component}`, and a
 * controller owner reference to the TidbCluster so its objects go by garbage collection with it.
 */

import type { ObjectMeta, TidbCluster } from '../../model/kube.js';

/** The components whose objects carry `app.kubernetes.io/component`. */
export type ComponentName = 'pd' | 'tikv' | 'tiflash' | 'tidb' | 'ticdc' | 'pump' | 'tiproxy' | 'discovery';

/** The label keys TiDB Operator sets, and the annotation holding what was last applied. */
export const LABEL = {
  name: 'app.kubernetes.io/name',
  managedBy: 'app.kubernetes.io/managed-by',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  usedBy: 'app.kubernetes.io/used-by',
} as const;

/** The annotation with the JSON of what the reconciler last applied to an object (TiDB Operator's key). */
export const LAST_APPLIED_ANNOTATION = 'pingcap.com/last-applied-configuration';

/** One entry of `metadata.ownerReferences`. */
export type OwnerReference = NonNullable<ObjectMeta['ownerReferences']>[number];

/**
 * The `app.kubernetes.io/instance` value: the TidbCluster's own `app.kubernetes.io/instance` label
 * when it has one, else its name (as TiDB Operator's `GetInstanceName`).
 */
export function instanceName(tc: TidbCluster): string {
  const label = tc.metadata.labels?.[LABEL.instance];
  return label !== undefined && label !== '' ? label : (tc.metadata.name ?? '');
}

/**
 * The labels of `component`'s objects. Guarantees: exactly the four TiDB Operator selector labels,
 * so they double as the selector of a Deployment, StatefulSet or Service.
 */
export function componentLabels(tc: TidbCluster, component: ComponentName): Record<string, string> {
  return {
    [LABEL.name]: 'tidb-cluster',
    [LABEL.managedBy]: 'tidb-operator',
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
