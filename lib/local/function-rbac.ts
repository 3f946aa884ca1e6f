/**
 * Each function's Kubernetes identity in a local world, as README's "Deploy to EKS" makes it: an
 * EKS access entry maps the function's IAM role to the username
 * `arn:aws:sts::<account>:assumed-role/<role name>/{{SessionName}}` (Lambda's session name is the
 * function's name) and the group `tidb-reconciler` (the exporter's: `tidb-reconciler-exporter`),
 * which `infra/k8s/reconciler-rbac.yaml` binds.
 * The world applies that manifest from the file, as a user applies it with kubectl, and gives each
 * function a kubeconfig with its own bearer token (ADR 0017).
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../sim/object.js';
import type { ObjectStore } from '../sim/store.js';
import type { RbacUser } from '../sim/rbac.js';
import type { SimWorld } from '../sim/world.js';
import { simKubeconfig } from '../sim/kubeconfig.js';
import type { FunctionIdentities } from './iam/identities.js';

/** The Kubernetes group the reconcile, sweep and admin functions' access entries name (README "Deploy to EKS", step 3). */
export const RECONCILER_GROUP = 'tidb-reconciler';
/** The Kubernetes group the exporter function's access entry names: read-only, what it watches. */
export const EXPORTER_GROUP = 'tidb-reconciler-exporter';

/** The manifest of the functions' RBAC, as the README applies it. */
export const RECONCILER_RBAC_FILE = new URL('../../infra/k8s/reconciler-rbac.yaml', import.meta.url);

/** The proxy path's grants, applied beside it only with `COMPONENT_ACCESS=api-proxy` (docs/adr/0018). */
export const API_PROXY_RBAC_FILE = new URL('../../infra/k8s/reconciler-rbac-api-proxy.yaml', import.meta.url);

/** The kinds of a manifest a world applies for RBAC (a Deployment of the exporter.yaml is not run). */
const RBAC_KINDS = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** The Kubernetes user function `fn` authenticates as (its access entry). */
export function functionUser(ids: FunctionIdentities, fn: string): RbacUser {
  return { name: ids.principal(fn).arn, groups: [fn === 'exporter' ? EXPORTER_GROUP : RECONCILER_GROUP] };
}

/** The RBAC objects of a manifest file (multi-document YAML); other kinds are left out. */
export function rbacObjectsOf(file: URL | string): KubeObject[] {
  const text = readFileSync(file, 'utf8');
  const objects: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${String(file)}: ${doc.errors[0]?.message ?? 'YAML error'}`);
    const object = doc.toJS() as KubeObject | null;
    if (object === null) continue;
    if (typeof object.kind !== 'string' || typeof object.metadata?.name !== 'string') throw new Error(`${String(file)}: a document without kind or metadata.name`);
    if (RBAC_KINDS.has(object.kind)) objects.push(object);
  }
  return objects;
}

/** Creates (or replaces) the RBAC objects of `file` in the world's store, as `kubectl apply -f` would. */
export function applyRbacFile(world: { readonly store: ObjectStore }, file: URL | string = RECONCILER_RBAC_FILE): void {
  applyRbacObjects(world, rbacObjectsOf(file));
}

/**
 * Creates (or replaces) `objects` in the world's store, as `kubectl apply -f` would; a namespace an
 * object names is created first when missing (as its owner would have made it).
 */
export function applyRbacObjects(world: { readonly store: ObjectStore }, objects: readonly KubeObject[]): void {
  for (const object of objects) {
    const ns = object.metadata.namespace;
    if (ns !== undefined && world.store.get('Namespace', undefined, ns) === undefined) world.store.create('Namespace', { metadata: { name: ns } });
    const kind = String(object.kind);
    const existing = world.store.get(kind, object.metadata.namespace, object.metadata.name ?? '');
    if (existing === undefined) world.store.create(kind, structuredClone(object));
    else world.store.update(kind, { ...structuredClone(object), metadata: { ...object.metadata, resourceVersion: existing.metadata.resourceVersion } });
  }
}

/** The functions README gives no access entry (they do not talk to Kubernetes). */
const WITHOUT_ACCESS_ENTRY = new Set(['timer']);

/**
 * A kubeconfig for function `fn`: its own token, authenticating as its access entry's user. A
 * function without an access entry gets a token the API server does not know (401, as EKS answers
 * a role without one).
 */
export function functionKubeconfig(world: SimWorld, ids: FunctionIdentities, fn: string): Record<string, unknown> {
  if (WITHOUT_ACCESS_ENTRY.has(fn)) return simKubeconfig(world.url, `no-access-entry-${fn}`, 'default', world.caData);
  return world.kubeconfigAs(functionUser(ids, fn));
}
