/**
 * PATCH bodies, applied as the API server applies them: JSON merge patch (RFC 7386), JSON patch
 * (RFC 6902) and strategic merge patch, chosen by the request's Content-Type. Every function returns
 * a new value and leaves its inputs untouched, so the store can keep the old object for the watch
 * event and for a retry on conflict.
 */
import { ApiError } from './api-error.js';
import { jsonEqual } from './object.js';
import { applyStrategicMergePatch } from './strategic-merge.js';

/** The patch media types the simulated server serves, in the order the 415 message lists them. */
export const PATCH_CONTENT_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
] as const;

type JsonObject = Record<string, unknown>;
type Container = JsonObject | unknown[];

// As the API server (patch.go): a JSON patch that decodes but cannot be applied is a 422 with this
// fixed message; the specific reason goes into details.causes so tests and kubectl users can see it.
const REJECTED = 'the server rejected our request due to an error in our request';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets a key without ever touching the prototype (a patch may carry a `__proto__` key). */
function setKey(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function unprocessable(detail: string): ApiError {
  return new ApiError(422, 'Invalid', REJECTED, { causes: [{ message: detail }] });
}

/**
 * RFC 7386 JSON merge patch: a `null` value deletes the key, an object merges recursively into the
 * target's object at that key (or into `{}` when there is none), anything else (arrays included)
 * replaces. A patch that is not an object replaces the whole target. Returns a new value.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? structuredClone(target) : {};
  mergeInto(result, patch);
  return result;
}

function mergeInto(result: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else if (isObject(value)) {
      const current = result[key];
      const child: JsonObject = isObject(current) ? current : {};
      mergeInto(child, value);
      setKey(result, key, child);
    } else {
      setKey(result, key, structuredClone(value));
    }
  }
}

/**
 * RFC 6902 JSON patch: applies `ops` in order to a copy of `target` and returns it; either every
 * operation applies or the target is left as it was. A body that is not an array of objects is a 400
 * BadRequest (the server cannot decode it); an operation that cannot apply (missing path, index out
 * of range, failed `test`, unknown `op`) is a 422 Invalid, as the API server answers.
 */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    throw new ApiError(400, 'BadRequest', `json: cannot unmarshal ${goTypeName(ops)} into Go value of type jsonpatch.Patch`);
  }
  let doc = structuredClone(target);
  for (const raw of ops) {
    if (!isObject(raw)) {
      throw new ApiError(400, 'BadRequest', `json: cannot unmarshal ${goTypeName(raw)} into Go value of type jsonpatch.Operation`);
    }
    doc = applyOperation(doc, raw);
  }
  return doc;
}

function goTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

function applyOperation(doc: unknown, op: JsonObject): unknown {
  const kind = op['op'];
  const path = stringField(op, 'path', kind);
  switch (kind) {
    case 'add':
      return addAt(doc, parsePointer(path), requireValue(op, kind));
    case 'remove':
      return removeAt(doc, parsePointer(path), 'remove').doc;
    case 'replace':
      return replaceAt(doc, parsePointer(path), requireValue(op, kind));
    case 'move': {
      const from = stringField(op, 'from', kind);
      if (path !== from && path.startsWith(`${from}/`)) throw unprocessable(`move operation does not apply: "${from}" is a prefix of "${path}"`);
      const removed = removeAt(doc, parsePointer(from), 'move');
      return addAt(removed.doc, parsePointer(path), removed.value);
    }
    case 'copy': {
      const from = stringField(op, 'from', kind);
      const value = valueAt(doc, parsePointer(from), `copy operation does not apply: doc is missing from path: ${from}`);
      return addAt(doc, parsePointer(path), structuredClone(value));
    }
    case 'test': {
      const actual = valueAt(doc, parsePointer(path), `testing value ${path} failed: test failed`);
      if (!jsonEqual(actual, requireValue(op, kind))) throw unprocessable(`testing value ${path} failed: test failed`);
      return doc;
    }
    default:
      throw unprocessable(`Unexpected kind: ${String(kind)}`);
  }
}

function stringField(op: JsonObject, name: 'path' | 'from', kind: unknown): string {
  const value = op[name];
  if (typeof value !== 'string') throw unprocessable(`${String(kind)} operation missing ${name} field`);
  return value;
}

function requireValue(op: JsonObject, kind: string): unknown {
  if (!('value' in op)) throw unprocessable(`${kind} operation missing value`);
  return structuredClone(op['value']);
}

/** RFC 6901: "" is the whole document; every other pointer starts with "/"; ~1 is "/", ~0 is "~". */
function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw unprocessable(`JSON pointer must be empty or start with a "/": ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, allowEnd: boolean): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw unprocessable(`Unable to access invalid index: ${token}: invalid index referenced`);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) {
    throw unprocessable(`Unable to access invalid index: ${index}: invalid index referenced`);
  }
  return index;
}

function childOf(node: unknown, token: string): unknown {
  if (Array.isArray(node)) return /^(0|[1-9][0-9]*)$/.test(token) ? node[Number(token)] : undefined;
  if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) return node[token];
  return undefined;
}

function valueAt(doc: unknown, tokens: readonly string[], missing: string): unknown {
  let node = doc;
  for (const token of tokens) {
    node = childOf(node, token);
    if (node === undefined) throw unprocessable(missing);
  }
  return node;
}

function parentOf(doc: unknown, tokens: readonly string[], missing: string): { parent: Container; last: string } {
  const last = tokens[tokens.length - 1];
  const parent = valueAt(doc, tokens.slice(0, -1), missing);
  if (last === undefined || !(Array.isArray(parent) || isObject(parent))) throw unprocessable(missing);
  return { parent, last };
}

function addAt(doc: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const missing = `add operation does not apply: doc is missing path: "/${tokens.join('/')}": missing value`;
  const { parent, last } = parentOf(doc, tokens, missing);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true), 0, value);
  else setKey(parent, last, value);
  return doc;
}

function replaceAt(doc: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const missing = `replace operation does not apply: doc is missing key: /${tokens.join('/')}: missing value`;
  valueAt(doc, tokens, missing);
  const { parent, last } = parentOf(doc, tokens, missing);
  if (Array.isArray(parent)) parent[arrayIndex(last, parent.length, false)] = value;
  else setKey(parent, last, value);
  return doc;
}

function removeAt(doc: unknown, tokens: readonly string[], kind: string): { doc: unknown; value: unknown } {
  const path = `/${tokens.join('/')}`;
  const missing = `${kind} operation does not apply: doc is missing path: "${path}": missing value`;
  if (tokens.length === 0) throw unprocessable(missing);
  const { parent, last } = parentOf(doc, tokens, missing);
  if (Array.isArray(parent)) {
    const [value] = parent.splice(arrayIndex(last, parent.length, false), 1);
    return { doc, value };
  }
  if (!Object.prototype.hasOwnProperty.call(parent, last)) throw unprocessable(`unable to remove nonexistent key: ${last}: missing value`);
  const value = parent[last];
  delete parent[last];
  return { doc, value };
}

/**
 * Applies a PATCH body by its Content-Type (parameters such as `; charset=utf-8` are ignored), as
 * the API server does for the kinds we serve. Merge and strategic bodies must be JSON objects (400
 * otherwise). A strategic merge patch against a custom resource (TidbCluster) is applied as a JSON
 * merge patch; the real server answers 415 there, but no client we drive sends one. Any other media
 * type is a 415 UnsupportedMediaType (server-side apply is answered before this, in apply-handler.ts).
 */
export function applyPatch(contentType: string, target: unknown, body: unknown): unknown {
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  switch (mediaType) {
    case 'application/json-patch+json':
      return applyJsonPatch(target, body);
    case 'application/merge-patch+json':
      return applyMergePatch(target, requireObjectBody(body));
    case 'application/strategic-merge-patch+json':
      return isCustomResource(target)
        ? applyMergePatch(target, requireObjectBody(body))
        : applyStrategicMergePatch(target, requireObjectBody(body));
    default:
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${PATCH_CONTENT_TYPES.join(', ')}`,
      );
  }
}

function requireObjectBody(body: unknown): JsonObject {
  if (!isObject(body)) throw new ApiError(400, 'BadRequest', 'Invalid JSON Patch');
  return body;
}

/** Built-in groups are the core group, dot-less groups (`apps`, `batch`) and `*.k8s.io`. */
function isCustomResource(target: unknown): boolean {
  const apiVersion = isObject(target) ? target['apiVersion'] : undefined;
  if (typeof apiVersion !== 'string' || !apiVersion.includes('/')) return false;
  const group = apiVersion.slice(0, apiVersion.indexOf('/'));
  return group.includes('.') && !group.endsWith('.k8s.io');
}
