/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`), as the API server's field manager
 * does it for the cases kubectl uses: the applied configuration merges into the live object (maps
 * merged; lists of objects merged by the merge key the built-in kinds name, every other list — and
 * every list of a custom resource without a list type — replaced), the fields a manager applied
 * before but omits now are removed, and ownership is recorded in `metadata.managedFields` with a
 * FieldsV1 set. A field another manager owns whose value the apply would change is a conflict (409
 * with the real server's message) unless the apply is forced, which takes the field over.
 *
 * The field set is simplified: it records leaves only (scalars, atomic lists, empty maps) under
 * `f:<field>` and `k:{"<key>":<value>}` keys, without the real server's `.` entries.
 */
import { ApiError } from './api-error.js';
import { jsonEqual } from './object.js';
import { listStrategyAt } from './strategic-merge.js';

type JsonObject = Record<string, unknown>;

/** One entry of `metadata.managedFields`. */
export type ManagedFieldsEntry = {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
};

/** What an apply needs besides the live object and the applied configuration. */
export type ApplyRequest = {
  manager: string;
  force: boolean;
  /** A custom resource's lists are atomic (no list type in its schema); a built-in kind's use the merge keys. */
  custom: boolean;
  apiVersion: string;
  /** RFC 3339 time recorded in the manager's entry. */
  now: string;
};

/** A field path: `f:<name>` and `k:{"<key>":<value>}` tokens from the object's root. */
type FieldPath = readonly string[];

// Metadata the server owns or that identifies the object; never part of a field set.
const UNTRACKED_META = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setKey(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The merge key of the list at `names` (field names from the root), or undefined when the list is atomic. */
function mergeKeyAt(custom: boolean, names: readonly string[]): string | undefined {
  if (custom) return undefined;
  const strategy = listStrategyAt(names);
  return strategy.type === 'merge' ? strategy.key : undefined;
}

function keyToken(key: string, value: unknown): string {
  return `k:${JSON.stringify({ [key]: value })}`;
}

/**
 * The leaf field paths an applied configuration sets: scalars, lists without a merge key and empty
 * maps are leaves; keyed list elements are addressed by their key. `apiVersion`, `kind`, status and
 * identifying metadata are not tracked, as the real server strips them.
 */
export function appliedFieldPaths(applied: JsonObject, custom: boolean): FieldPath[] {
  const out: FieldPath[] = [];
  for (const [key, value] of Object.entries(applied)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'status') continue;
    if (key === 'metadata' && isObject(value)) {
      const meta = Object.fromEntries(Object.entries(value).filter(([k]) => !UNTRACKED_META.has(k)));
      if (Object.keys(meta).length) walk(meta, ['f:metadata'], ['metadata'], custom, out);
      continue;
    }
    walkValue(value, [`f:${key}`], [key], custom, out);
  }
  return out;
}

function walk(obj: JsonObject, path: FieldPath, names: readonly string[], custom: boolean, out: FieldPath[]): void {
  for (const [key, value] of Object.entries(obj)) walkValue(value, [...path, `f:${key}`], [...names, key], custom, out);
}

function walkValue(value: unknown, path: FieldPath, names: readonly string[], custom: boolean, out: FieldPath[]): void {
  if (isObject(value) && Object.keys(value).length > 0) return walk(value, path, names, custom, out);
  const key = Array.isArray(value) ? mergeKeyAt(custom, names) : undefined;
  if (!Array.isArray(value) || key === undefined || !value.every((e) => isObject(e) && e[key] !== undefined)) {
    out.push(path);
    return;
  }
  for (const element of value as JsonObject[]) walk(element, [...path, keyToken(key, element[key])], names, custom, out);
}

/** A field set as FieldsV1: nested `{token: {...}}`, a leaf being `{}`. */
export function toFieldsV1(paths: readonly FieldPath[]): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const token of path) {
      if (!isObject(node[token])) setKey(node, token, {});
      node = node[token] as JsonObject;
    }
  }
  return root;
}

/** The leaf paths of a FieldsV1 set (`.` entries, which name a node itself, are left out). */
export function fromFieldsV1(fields: unknown, prefix: FieldPath = []): FieldPath[] {
  if (!isObject(fields)) return [];
  const children = Object.entries(fields).filter(([k]) => k !== '.');
  if (children.length === 0) return prefix.length ? [prefix] : [];
  return children.flatMap(([token, sub]) => fromFieldsV1(sub, [...prefix, token]));
}

/** The value at a field path, or undefined when the object has none there. */
export function valueAtPath(obj: unknown, path: FieldPath): unknown {
  let node = obj;
  for (const token of path) {
    if (token.startsWith('f:') && isObject(node)) node = node[token.slice(2)];
    else if (token.startsWith('k:') && Array.isArray(node)) node = node.find((e) => matchesKey(e, token));
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

function matchesKey(element: unknown, token: string): boolean {
  const key = JSON.parse(token.slice(2)) as JsonObject;
  return isObject(element) && Object.entries(key).every(([k, v]) => jsonEqual(element[k], v));
}

/** Removes the field at `path` from `obj` in place (a keyed element whose key field goes is removed too). */
function removePath(obj: JsonObject, path: FieldPath): void {
  const last = path[path.length - 1] ?? '';
  const parent = path[path.length - 2] ?? '';
  // The key field of a keyed element goes with the element itself.
  if (parent.startsWith('k:') && last.startsWith('f:') && Object.keys(JSON.parse(parent.slice(2)) as JsonObject).includes(last.slice(2))) {
    return removePath(obj, path.slice(0, -1));
  }
  let node: unknown = obj;
  for (let i = 0; i < path.length - 1; i += 1) node = valueAtPath(node, [path[i] ?? '']);
  if (isObject(node) && last.startsWith('f:')) delete node[last.slice(2)];
  else if (Array.isArray(node) && last.startsWith('k:')) {
    const index = node.findIndex((e) => matchesKey(e, last));
    if (index >= 0) node.splice(index, 1);
  }
}

/** `.spec.containers[name="app"].image`, as the real server prints a path in a conflict. */
export function printPath(path: FieldPath): string {
  return path
    .map((t) => {
      if (t.startsWith('f:')) return `.${t.slice(2)}`;
      const key = JSON.parse(t.slice(2)) as JsonObject;
      return `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    })
    .join('');
}

/** Merges `applied` into a copy of `live`: maps merged, keyed lists merged by key, other lists and scalars replaced. */
export function mergeApplied(live: unknown, applied: unknown, custom: boolean, names: readonly string[] = []): unknown {
  if (isObject(applied)) {
    const result: JsonObject = isObject(live) ? structuredClone(live) : {};
    for (const [key, value] of Object.entries(applied)) setKey(result, key, mergeApplied(result[key], value, custom, [...names, key]));
    return result;
  }
  const key = Array.isArray(applied) ? mergeKeyAt(custom, names) : undefined;
  if (!Array.isArray(applied) || !Array.isArray(live) || key === undefined) return structuredClone(applied);
  const result = structuredClone(live) as unknown[];
  for (const element of applied) {
    const index = isObject(element) ? result.findIndex((e) => isObject(e) && jsonEqual(e[key], element[key])) : -1;
    if (index >= 0) result[index] = mergeApplied(result[index], element, custom, names);
    else result.push(structuredClone(element));
  }
  return result;
}

const samePath = (a: FieldPath, b: FieldPath) => a.length === b.length && a.every((t, i) => t === b[i]);

function withoutManagedFields(obj: unknown): unknown {
  if (!isObject(obj) || !isObject(obj['metadata'])) return obj;
  const { managedFields: _ignored, ...meta } = obj['metadata'];
  return { ...obj, metadata: meta };
}

/** As the real server names a manager in a conflict: an Update's with its apiVersion and time. */
function printManager(entry: ManagedFieldsEntry): string {
  const name = JSON.stringify(entry.manager) + (entry.subresource ? ` with subresource ${JSON.stringify(entry.subresource)}` : '');
  return entry.operation === 'Update' ? `${name} using ${entry.apiVersion} at ${entry.time}` : name;
}

function conflictError(conflicts: { entry: ManagedFieldsEntry; path: FieldPath }[]): ApiError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: printPath(c.path) }));
  const first = conflicts[0];
  if (conflicts.length === 1 && first) {
    return new ApiError(409, 'Conflict', `Apply failed with 1 conflict: conflict with ${printManager(first.entry)}: ${printPath(first.path)}`, { causes });
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(printManager(c.entry), [...(byManager.get(printManager(c.entry)) ?? []), `- ${printPath(c.path)}`]);
  const lines = [...byManager.keys()].sort().flatMap((m) => [`conflicts with ${m}:`, ...(byManager.get(m) ?? [])]);
  return new ApiError(409, 'Conflict', `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`, { causes });
}

/**
 * Applies `applied` to `live` (undefined when the object does not exist yet) for `req.manager` and
 * returns the object to store, its managedFields updated. Throws the 409 conflict when another
 * manager owns a field the apply would change and `force` is not set.
 */
export function serverSideApply(live: JsonObject | undefined, applied: JsonObject, req: ApplyRequest): JsonObject {
  const meta = isObject(applied['metadata']) ? applied['metadata'] : {};
  if (meta['managedFields'] !== undefined) throw new ApiError(400, 'BadRequest', 'metadata.managedFields must be nil');
  const paths = appliedFieldPaths(applied, req.custom);
  const liveMeta = isObject(live?.['metadata']) ? live['metadata'] : {};
  const entries = (Array.isArray(liveMeta['managedFields']) ? liveMeta['managedFields'] : []) as ManagedFieldsEntry[];
  const owned = entries.map((entry) => ({ entry, paths: fromFieldsV1(entry.fieldsV1) }));
  const mine = owned.find((o) => o.entry.manager === req.manager && o.entry.operation === 'Apply' && !o.entry.subresource);
  const others = owned.filter((o) => o !== mine);
  const conflicts = others.flatMap((o) =>
    o.paths.filter((p) => paths.some((q) => samePath(p, q)) && !jsonEqual(valueAtPath(live, p), valueAtPath(applied, p))).map((path) => ({ entry: o.entry, path })),
  );
  if (conflicts.length && !req.force) throw conflictError(conflicts);
  // A forced apply takes the conflicting fields over; a manager left with nothing drops out.
  const kept = others
    .map((o) => ({ entry: o.entry, paths: o.paths.filter((p) => !conflicts.some((c) => c.entry === o.entry && samePath(c.path, p))) }))
    .filter((o) => o.paths.length > 0);
  const merged = mergeApplied(live ?? {}, applied, req.custom) as JsonObject;
  // Fields this manager applied before, omits now and nobody else owns are removed.
  for (const p of mine?.paths ?? []) {
    if (!paths.some((q) => samePath(p, q)) && !kept.some((o) => o.paths.some((q) => samePath(p, q)))) removePath(merged, p);
  }
  const fieldsV1 = toFieldsV1(paths);
  // As the real server: an apply that changes neither the object nor the field set keeps the entry's time, so it writes nothing.
  const unchanged = mine && mine.entry.apiVersion === req.apiVersion && jsonEqual(mine.entry.fieldsV1, fieldsV1) && jsonEqual(withoutManagedFields(merged), withoutManagedFields(live));
  const own: ManagedFieldsEntry = { manager: req.manager, operation: 'Apply', apiVersion: req.apiVersion, time: unchanged ? mine.entry.time : req.now, fieldsType: 'FieldsV1', fieldsV1 };
  const managedFields = kept.map((o) => (o.paths.length === fromFieldsV1(o.entry.fieldsV1).length ? o.entry : { ...o.entry, fieldsV1: toFieldsV1(o.paths) }));
  const at = mine ? entries.indexOf(mine.entry) : managedFields.length;
  managedFields.splice(Math.min(at, managedFields.length), 0, own);
  const mergedMeta = isObject(merged['metadata']) ? merged['metadata'] : {};
  return { ...merged, metadata: { ...mergedMeta, managedFields } };
}

/**
 * The object to store with `manager`'s Apply entry narrowed to the fields `admitted` (the same
 * object after admission pruned unknown fields) still has: a pruned field is owned by no one.
 */
export function ownOnlyAdmitted(obj: JsonObject, admitted: unknown, manager: string): JsonObject {
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  const entries = (Array.isArray(meta['managedFields']) ? meta['managedFields'] : []) as ManagedFieldsEntry[];
  const managedFields = entries.map((e) => {
    if (e.manager !== manager || e.operation !== 'Apply' || e.subresource) return e;
    const paths = fromFieldsV1(e.fieldsV1);
    const kept = paths.filter((p) => valueAtPath(admitted, p) !== undefined);
    return kept.length === paths.length ? e : { ...e, fieldsV1: toFieldsV1(kept) };
  });
  return { ...obj, metadata: { ...meta, managedFields } };
}
