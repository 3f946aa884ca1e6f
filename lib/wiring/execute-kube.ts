/**
 * Kubernetes writes of a plan, over `KubePort`. Every write is a create or carries the observed
 * `resourceVersion` (update, updateStatus, merge patch) or a `uid`/`resourceVersion` precondition
 * (delete); one that does not is refused before a request is sent (`TerminalError`: the rule that
 * built it is wrong, retrying cannot help). A 409 comes back as the client's `ConflictError`, so the
 * next step re-observes instead of overwriting.
 */

import { kindInfo } from '../kube/kinds.js';
import type { KnownKind, KubeObject as PortObject, KubePort } from '../kube/port.js';
import type { DeleteAction, KubeAction, PatchAction } from '../model/action.js';
import type { KubeObject, ObjectRef } from '../model/kube.js';
import { NotFoundError, TerminalError } from '../platform/errors.js';
import { describeAction } from '../step/describe.js';
import { plainJson } from './plain-json.js';

/** Runs one Kubernetes write (see the module comment for what each guarantees). */
export async function executeKube(kube: KubePort, action: KubeAction): Promise<void> {
  switch (action.kind) {
    case 'create':
      await kube.create(toPortObject(action, action.object));
      return;
    case 'update':
      await kube.update(toPortObject(action, withVersion(action.object, action.resourceVersion)));
      return;
    case 'updateStatus':
      await kube.updateStatus(toPortObject(action, withVersion(action.object, action.resourceVersion)));
      return;
    case 'patch':
      return mergePatch(kube, action);
    case 'delete':
      return deleteObject(kube, action);
    default: {
      const never: never = action;
      throw new TerminalError(`unknown Kubernetes action ${JSON.stringify(never)}`);
    }
  }
}

async function mergePatch(kube: KubePort, action: PatchAction): Promise<void> {
  const what = describeAction(action);
  if (action.patchType !== 'merge') {
    // KubePort speaks JSON merge patch only; a JSON patch needs a port method first.
    throw new TerminalError(`${what}: ${action.patchType} patches are not supported by the Kubernetes port`, { field: 'patchType' });
  }
  if (!action.resourceVersion) {
    throw new TerminalError(`${what} refused: a patch must carry the observed resourceVersion`, { field: 'resourceVersion' });
  }
  const patch = action.patch;
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new TerminalError(`${what}: a merge patch must be a JSON object`, { field: 'patch' });
  }
  // A PersistentVolume is cluster-scoped: the only kind patched without a namespace.
  const { namespace, name } = action.ref.kind === 'PersistentVolume' ? { namespace: '', name: action.ref.name } : namespaced(action.ref, what);
  await kube.patch(action.ref.kind, namespace, name, plainJson<Record<string, unknown>>(patch), { resourceVersion: action.resourceVersion });
}

/**
 * A delete applies only to the object observed; one already gone is the state the plan wanted. A Pod
 * delete must carry both the observed uid and resourceVersion: a pod that changed since (or a new pod
 * of the same name) is never deleted on a stale decision.
 */
async function deleteObject(kube: KubePort, action: DeleteAction): Promise<void> {
  const what = describeAction(action);
  if (!action.uid && !action.resourceVersion) {
    throw new TerminalError(`${what} refused: a delete must carry the observed uid or resourceVersion`, { field: 'uid' });
  }
  if (action.ref.kind === 'Pod' && (!action.uid || !action.resourceVersion)) {
    const field = action.uid ? 'resourceVersion' : 'uid';
    throw new TerminalError(`${what} refused: a Pod delete must carry the observed uid and resourceVersion`, { field });
  }
  const { namespace, name } = isClusterScoped(action.ref) ? { namespace: '', name: action.ref.name } : namespaced(action.ref, what);
  const options = {
    ...(action.uid ? { uid: action.uid } : {}),
    ...(action.resourceVersion ? { resourceVersion: action.resourceVersion } : {}),
    ...(action.propagationPolicy ? { propagationPolicy: action.propagationPolicy } : {}),
    ...(action.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: action.gracePeriodSeconds } : {}),
  };
  try {
    await kube.delete(knownKind(action.ref, what), namespace, name, options);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}

function withVersion(object: KubeObject, resourceVersion: string): KubeObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion } };
}

/**
 * The object as the port takes it, checked against the action's ref (a mismatch is a rule bug) and
 * given the ref's namespace when the rule left it out.
 */
function toPortObject(action: Exclude<KubeAction, PatchAction | DeleteAction>, object: KubeObject): PortObject {
  const what = describeAction(action);
  const { ref } = action;
  if (object.kind !== ref.kind) throw new TerminalError(`${what}: the object is a ${object.kind}`, { field: 'kind' });
  const name = object.metadata.name;
  if (name !== undefined && name !== ref.name) throw new TerminalError(`${what}: the object is named ${name}`, { field: 'metadata.name' });
  if (isClusterScoped(ref)) return plainJson<PortObject>({ ...object, metadata: { ...object.metadata, name: ref.name } });
  const { namespace } = namespaced(ref, what);
  if (object.metadata.namespace !== undefined && object.metadata.namespace !== namespace) {
    throw new TerminalError(`${what}: the object is in namespace ${object.metadata.namespace}`, { field: 'metadata.namespace' });
  }
  return plainJson<PortObject>({ ...object, metadata: { ...object.metadata, name: ref.name, namespace } });
}

/** A ClusterRole or ClusterRoleBinding (a cluster-scoped TidbMonitor's): written without a namespace. */
function isClusterScoped(ref: ObjectRef): boolean {
  return ref.kind === 'ClusterRole' || ref.kind === 'ClusterRoleBinding' ? kindInfo(ref.kind).clusterScoped === true : false;
}

function namespaced(ref: ObjectRef, what: string): { namespace: string; name: string } {
  if (ref.namespace === undefined) throw new TerminalError(`${what}: ${ref.kind} needs a namespace`, { field: 'namespace' });
  return { namespace: ref.namespace, name: ref.name };
}

/** PersistentVolumes are only ever patched (reclaim policy, labels); any other write of one is a rule bug. */
function knownKind(ref: ObjectRef, what: string): KnownKind {
  if (ref.kind === 'PersistentVolume') {
    throw new TerminalError(`${what}: PersistentVolumes are only patched through the Kubernetes port`, { field: 'kind' });
  }
  return ref.kind;
}
