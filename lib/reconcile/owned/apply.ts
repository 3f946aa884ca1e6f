/**
 * Deploying the objects of a custom resource other than a TidbCluster (a TidbMonitor's StatefulSets,
 * Services, ConfigMaps, Secrets and RBAC; the same shape serves any "StatefulSet + Service for a CR"
 * controller): for each desired object, the create or the update (under the observed
 * resourceVersion) that makes it true, with TiDB Operator v1's apply rules per kind — Services and
 * StatefulSets compared against their last-applied record (`lib/reconcile/member/apply.ts`), ConfigMaps
 * by data and labels, RBAC objects by their rules, subjects and role reference. Secrets are only ever
 * created: their values never cross the reconciler's port, so a live one cannot be compared. An object
 * of that name controlled by someone else is never taken over: it is reported as a conflict.
 */

import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { CreateAction, UpdateAction } from '../../model/action.js';
import type { KubeKind, KubeObject } from '../../model/kube.js';
import { controllerUid } from '../../model/labels.js';
import { jsonEqual } from '../engine/equal.js';
import { CONFIG_MAP_APPLY, planApply, SERVICE_APPLY, STATEFUL_SET_APPLY, withServiceRecord } from '../member/apply.js';
import { withLastApplied } from '../member/statefulset.js';

/** What applying one desired object needs: the write (none when applied), or why it may not be written. */
export type OwnedApply = { readonly write?: CreateAction | UpdateAction; readonly conflict?: string };

/** The fields of an RBAC object (and a ServiceAccount) that v1 owns. */
const OWNED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Role: ['rules'],
  ClusterRole: ['rules'],
  RoleBinding: ['subjects', 'roleRef'],
  ClusterRoleBinding: ['subjects', 'roleRef'],
  ServiceAccount: ['automountServiceAccountToken'],
};

/**
 * The write that makes `desired` true given `live` (undefined: absent), for an owner of uid
 * `ownerUid`. A namespaced `live` must be controlled by the owner; a cluster-scoped one (no owner
 * reference possible) must carry the same `app.kubernetes.io/instance` and `managed-by` labels.
 */
export function planOwnedObject(desired: KubeObject, live: KubeObject | undefined, ownerUid: string): OwnedApply {
  const conflict = live === undefined ? undefined : ownershipConflict(desired, live, ownerUid);
  if (conflict !== undefined) return { conflict };
  const write = writeFor(desired, live);
  return write === undefined ? {} : { write };
}

function writeFor(desired: KubeObject, live: KubeObject | undefined): CreateAction | UpdateAction | undefined {
  switch (desired.kind) {
    case 'Service':
      return planApply(SERVICE_APPLY, withServiceRecord(desired as IService), live as IService | undefined);
    case 'ConfigMap':
      return planApply(CONFIG_MAP_APPLY, desired as IConfigMap, live as IConfigMap | undefined);
    case 'StatefulSet':
      return planApply(STATEFUL_SET_APPLY, withLastApplied(desired as IStatefulSet), live as IStatefulSet | undefined);
    case 'Secret':
      return live === undefined ? { kind: 'create', ref: refOf(desired), object: desired } : undefined;
    default:
      return planFields(desired, live);
  }
}

/** RBAC objects and ServiceAccounts: applied when labels and the owned fields are equal; an update keeps the rest of the live object. */
function planFields(desired: KubeObject, live: KubeObject | undefined): CreateAction | UpdateAction | undefined {
  const ref = refOf(desired);
  if (live === undefined) return { kind: 'create', ref, object: desired };
  const fields = OWNED_FIELDS[desired.kind] ?? [];
  const applied = fields.every((f) => jsonEqual(desired[f], live[f])) && jsonEqual(desired.metadata.labels ?? {}, live.metadata.labels ?? {});
  if (applied) return undefined;
  const object: KubeObject = { ...live, metadata: { ...live.metadata, labels: desired.metadata.labels }, ...Object.fromEntries(fields.map((f) => [f, desired[f]])) };
  return { kind: 'update', ref, object, resourceVersion: live.metadata.resourceVersion ?? '' };
}

function ownershipConflict(desired: KubeObject, live: KubeObject, ownerUid: string): string | undefined {
  const what = `${desired.kind} ${desired.metadata.namespace ? `${desired.metadata.namespace}/` : ''}${desired.metadata.name ?? ''}`;
  if (desired.metadata.ownerReferences === undefined) {
    const key = ['app.kubernetes.io/instance', 'app.kubernetes.io/managed-by'];
    const same = key.every((k) => live.metadata.labels?.[k] === desired.metadata.labels?.[k]);
    return same ? undefined : `${what} exists but was not made for this object (labels ${JSON.stringify(live.metadata.labels ?? {})})`;
  }
  const controller = controllerUid(live.metadata);
  return controller === ownerUid ? undefined : `${what} exists but is controlled by ${controller === undefined ? 'no owner' : `another owner (uid ${controller})`}`;
}

/** The action reference of `obj`: cluster-scoped kinds carry no namespace. */
export function refOf(obj: KubeObject): { kind: KubeKind; namespace?: string; name: string } {
  return { kind: obj.kind as KubeKind, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}), name: obj.metadata.name ?? '' };
}
