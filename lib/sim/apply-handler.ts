/**
 * The server-side apply request (`PATCH …/<name>?fieldManager=…&force=…` with an
 * `application/apply-patch+yaml` body): checks the body names the resource and object the URL
 * does, as the real server, then creates the object when it does not exist (through the same
 * defaults, validation and admission as a create) or stores the applied configuration merged into it.
 */
import { ApiError, badRequest } from './api-error.js';
import { ownOnlyAdmitted, serverSideApply } from './apply.js';
import { decodeBuiltinFields } from './builtin-fields.js';
import { type KubeObject, rfc3339 } from './object.js';
import { apiVersionOf } from './resources.js';
import type { ObjectStore, WriteOptions } from './store.js';
import type { Answer, ResourceRequest } from './resource-handlers.js';

/** The media type of a server-side apply body (YAML or JSON). */
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/** Answers a server-side apply of the object `r.name`: 201 when it created it, 200 otherwise. */
export function handleApply(store: ObjectStore, r: ResourceRequest, name: string, write: WriteOptions): Answer {
  const manager = r.query.get('fieldManager') ?? '';
  if (manager === '') {
    throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  }
  const body = r.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('error decoding YAML: the applied configuration must be an object');
  const applied = body as Record<string, unknown>;
  const res = r.resource;
  const expected = apiVersionOf(res);
  if (applied['apiVersion'] !== expected || applied['kind'] !== res.kind) {
    // As the field manager's version check: it prints the body's group/version and kind.
    const [group, version] = typeof applied['apiVersion'] === 'string' ? splitApiVersion(applied['apiVersion']) : ['', ''];
    throw badRequest(`invalid object type: ${group}/${version}, Kind=${typeof applied['kind'] === 'string' ? applied['kind'] : ''}`);
  }
  const meta = (applied['metadata'] ?? {}) as Record<string, unknown>;
  if (meta['name'] !== undefined && meta['name'] !== name) {
    throw badRequest(`the name of the object (${String(meta['name'])}) does not match the name on the URL (${name})`);
  }
  if (res.namespaced && meta['namespace'] !== undefined && meta['namespace'] !== r.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const live = store.get(res.kind, r.namespace, name);
  const request = { manager, force: r.query.get('force') === 'true', custom: res.custom === true, apiVersion: expected, now: rfc3339(store.clock.nowMs()) };
  const result = serverSideApply(live, applied, request);
  const metadata = { ...(result['metadata'] as Record<string, unknown>), name, namespace: res.namespaced ? r.namespace : undefined };
  const decoded = decodeBuiltinFields(res, { ...result, metadata }, r.query.get('fieldValidation')) as KubeObject;
  const persist = (obj: KubeObject, opts: WriteOptions) =>
    live
      ? store.update(res.kind, { ...obj, metadata: { ...obj.metadata, resourceVersion: live.metadata.resourceVersion } }, { ...opts, subresource: r.subresource === 'status' ? 'status' : undefined })
      : store.create(res.kind, obj, opts);
  // Admission may prune unknown fields (field validation Warn or Ignore); the manager owns only what is kept.
  const next = write.fieldValidation === 'Strict' ? decoded : (ownOnlyAdmitted(decoded, persist(decoded, { ...write, dryRun: true, warnings: [] }), manager) as KubeObject);
  return { code: live ? 200 : 201, body: persist(next, write) };
}

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}
