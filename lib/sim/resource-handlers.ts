/**
 * The verbs on resources: get, list (selectors, limit/continue), create, update, patch, delete,
 * deletecollection, and the status and scale subresources — each answering as the real API server.
 */
import { ApiError, badRequest, invalid } from './api-error.js';
import { decodeBuiltinFields } from './builtin-fields.js';
import { buildSelection } from './filters.js';
import type { KubeObject } from './object.js';
import { APPLY_PATCH_TYPE, handleApply } from './apply-handler.js';
import { applyPatch } from './patch.js';
import { type ResourceDef, type ScalePaths, apiVersionOf } from './resources.js';
import type { DeleteOptions, ObjectStore, WriteOptions } from './store.js';
import { fieldValidationOf } from './crd/admission.js';
import { listPage } from './list-pages.js';
import { CRD_KIND } from './crd/registry.js';

/** A parsed request on a resource route. */
export type ResourceRequest = {
  method: string;
  resource: ResourceDef;
  namespace: string | undefined;
  name: string | undefined;
  subresource: 'status' | 'scale' | undefined;
  query: URLSearchParams;
  contentType: string;
  body: unknown;
};

/**
 * The status code and body of an answer; `object` is the object a delete removed (as it was);
 * `warnings` what the server tells the client in `Warning` headers (unknown fields pruned).
 */
export type Answer = { code: number; body: unknown; object?: unknown; warnings?: string[] };

/** Runs one non-watch resource request against the store. */
export function handleResource(store: ObjectStore, r: ResourceRequest): Answer {
  const warnings: string[] = [];
  const answer = answerResource(store, r, { dryRun: r.query.get('dryRun') === 'All', fieldValidation: fieldValidationOf(r.query), warnings });
  return warnings.length ? { ...answer, warnings } : answer;
}

function answerResource(store: ObjectStore, r: ResourceRequest, write: WriteOptions): Answer {
  const kind = r.resource.kind;
  if (r.name === undefined) {
    if (r.method === 'GET') return { code: 200, body: listObjects(store, r) };
    if (r.method === 'POST') return { code: 201, body: decoding(r, () => store.create(kind, bodyForCreate(r), write)) };
    if (r.method === 'DELETE') return { code: 200, body: deleteCollection(store, r) };
    throw methodNotAllowed(r.method);
  }
  if (r.subresource === 'scale') return handleScale(store, r, r.name);
  switch (r.method) {
    case 'GET':
      return { code: 200, body: store.mustGet(kind, r.namespace, r.name) };
    case 'PUT': {
      const obj = objectBody(r.body);
      if (obj.metadata.name !== undefined && obj.metadata.name !== r.name) {
        throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${r.name})`);
      }
      if ((r.resource.custom || kind === CRD_KIND) && !obj.metadata.resourceVersion) {
        // As their registries (AllowUnconditionalUpdate false): a replace must say which version it replaces.
        throw invalid(kind, r.name, [{ field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }], r.resource.group);
      }
      const target = { ...obj, metadata: { ...obj.metadata, name: r.name, namespace: r.namespace } };
      const subresource = r.subresource;
      return { code: 200, body: decoding(r, () => store.update(kind, target, { ...write, subresource })) };
    }
    case 'PATCH': {
      if (r.contentType === APPLY_PATCH_TYPE) return handleApply(store, r, r.name, write);
      const current = store.mustGet(kind, r.namespace, r.name);
      // The patched object is read through the kind's type, as a create or update is.
      const patched = decodeBuiltinFields(r.resource, applyPatch(r.contentType, current, r.body), r.query.get('fieldValidation')) as KubeObject;
      return { code: 200, body: store.update(kind, patched, { ...write, subresource: r.subresource }) };
    }
    case 'DELETE': {
      const { object, gone } = store.delete(kind, r.namespace, r.name, deleteOptions(r));
      // As the API server: an immediate delete of a built-in kind answers with a Status.
      if (gone && kind !== 'Pod' && !r.resource.custom) {
        return { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: r.name, group: r.resource.group, kind: r.resource.plural, uid: object.metadata.uid } }, object };
      }
      return { code: gone ? 200 : 202, body: object, object };
    }
    default:
      throw methodNotAllowed(r.method);
  }
}

/**
 * As the API server's decoder: a strict decoding error of a created or replaced object names the
 * kind it could not handle (a patch's does not, its body being a patch).
 */
function decoding(r: ResourceRequest, write: () => KubeObject): KubeObject {
  try {
    return write();
  } catch (err) {
    if (err instanceof ApiError && err.code === 400 && err.message.startsWith('strict decoding error')) {
      const { kind, version } = r.resource;
      throw new ApiError(400, 'BadRequest', `${kind} in version "${version}" cannot be handled as a ${kind}: ${err.message}`);
    }
    throw err;
  }
}

function listObjects(store: ObjectStore, r: ResourceRequest): Record<string, unknown> {
  const labelSelector = r.query.get('labelSelector');
  const fieldSelector = r.query.get('fieldSelector');
  const { filter, labels } = buildSelection(r.resource.kind, labelSelector, fieldSelector);
  const { items, metadata } = listPage(store, {
    kind: r.resource.kind,
    namespace: r.namespace,
    filter,
    labels,
    selective: Boolean(labelSelector || fieldSelector),
    limit: Number(r.query.get('limit') ?? '0'),
    continueToken: r.query.get('continue'),
    resourceVersion: r.query.get('resourceVersion'),
  });
  return { kind: `${r.resource.kind}List`, apiVersion: apiVersionOf(r.resource), metadata, items };
}

function deleteCollection(store: ObjectStore, r: ResourceRequest): Record<string, unknown> {
  const { filter, labels } = buildSelection(r.resource.kind, r.query.get('labelSelector'), r.query.get('fieldSelector'));
  const items: KubeObject[] = [];
  for (const obj of store.list(r.resource.kind, r.namespace, filter, labels)) {
    try {
      items.push(store.delete(r.resource.kind, obj.metadata.namespace, obj.metadata.name ?? '', deleteOptions(r)).object);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  return { kind: `${r.resource.kind}List`, apiVersion: apiVersionOf(r.resource), metadata: { resourceVersion: String(store.currentResourceVersion()) }, items };
}

function handleScale(store: ObjectStore, r: ResourceRequest, name: string): Answer {
  const kind = r.resource.kind;
  const current = store.mustGet(kind, r.namespace, name);
  const paths = r.resource.scalePaths ?? BUILTIN_SCALE;
  const scale = toScale(current, paths);
  if (r.method === 'GET') return { code: 200, body: scale };
  if (r.method !== 'PUT' && r.method !== 'PATCH') throw methodNotAllowed(r.method);
  const wanted = (r.method === 'PUT' ? objectBody(r.body) : applyPatch(r.contentType, scale, r.body)) as KubeObject;
  const replicas = wanted.spec?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new ApiError(422, 'Invalid', `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`);
  }
  const rv = wanted.metadata?.resourceVersion || current.metadata.resourceVersion;
  const next = setPath({ ...structuredClone(current), metadata: { ...current.metadata, resourceVersion: rv } }, paths.specReplicasPath, replicas);
  const updated = store.update(kind, next);
  return { code: 200, body: toScale(updated, paths) };
}

// Built-in StatefulSets and Deployments: replicas in spec/status, the selector's matchLabels.
const BUILTIN_SCALE: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };

function pathParts(path: string): string[] {
  return path.split('.').filter((p) => p !== '');
}

function getPath(obj: unknown, path: string): unknown {
  return pathParts(path).reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function setPath(obj: KubeObject, path: string, value: unknown): KubeObject {
  const parts = pathParts(path);
  let o = obj as Record<string, unknown>;
  for (const k of parts.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== 'object') o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  const last = parts.at(-1);
  if (last !== undefined) o[last] = value;
  return obj;
}

/** The autoscaling/v1 Scale view of a StatefulSet, a Deployment or a custom resource with `subresources.scale`. */
function toScale(obj: KubeObject, paths: ScalePaths): KubeObject {
  const m = obj.metadata;
  const sel = obj.spec?.selector?.matchLabels ?? {};
  const selector = paths === BUILTIN_SCALE
    ? Object.entries(sel).map(([k, v]) => `${k}=${String(v)}`).join(',')
    : String(paths.labelSelectorPath ? getPath(obj, paths.labelSelectorPath) ?? '' : '');
  const specReplicas = getPath(obj, paths.specReplicasPath);
  const statusReplicas = getPath(obj, paths.statusReplicasPath);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : paths === BUILTIN_SCALE ? 1 : 0 },
    status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, selector },
  };
}

function bodyForCreate(r: ResourceRequest): KubeObject {
  const obj = objectBody(r.body);
  const bodyNs = obj.metadata.namespace;
  if (r.resource.namespaced && bodyNs && r.namespace && bodyNs !== r.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (obj.kind && obj.kind !== r.resource.kind) throw badRequest(`the kind of the object (${obj.kind}) does not match the URL (${r.resource.kind})`);
  return { ...obj, metadata: { ...obj.metadata, namespace: r.resource.namespaced ? r.namespace ?? bodyNs : undefined } };
}

function objectBody(body: unknown): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  const obj = body as KubeObject;
  if (obj.metadata !== undefined && (typeof obj.metadata !== 'object' || obj.metadata === null)) throw badRequest('metadata must be an object');
  return { ...obj, metadata: obj.metadata ?? {} };
}

function deleteOptions(r: ResourceRequest): DeleteOptions {
  const b = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as Record<string, unknown>;
  const q = r.query;
  const grace = q.get('gracePeriodSeconds') ?? (b.gracePeriodSeconds !== undefined ? String(b.gracePeriodSeconds) : undefined);
  const policy = q.get('propagationPolicy') ?? (b.propagationPolicy as string | undefined) ?? (b.orphanDependents === true ? 'Orphan' : undefined);
  if (policy !== undefined && policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
    throw new ApiError(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const pre = b.preconditions as DeleteOptions['preconditions'] | undefined;
  return {
    gracePeriodSeconds: grace !== undefined ? Number(grace) : undefined,
    propagationPolicy: policy,
    preconditions: pre,
    dryRun: q.get('dryRun') === 'All' || (Array.isArray(b.dryRun) && b.dryRun.includes('All')),
  };
}

function methodNotAllowed(method: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`);
}
