/**
 * Strategic merge patch, as `kubectl apply`, `kubectl set image` and `kubectl edit` send it for the
 * built-in kinds we serve. The real server reads each list's patch strategy from the Go struct tags;
 * here a small table keyed by field path stands in for them. Maps merge as in a JSON merge patch,
 * lists with a merge key merge element by element, set lists take the union, and every other list is
 * replaced. Directives: `$patch` (replace / delete / merge, on maps and list elements),
 * `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` (honoured: it orders the merged list)
 * and `$retainKeys`.
 */
import { ApiError } from './api-error.js';
import { jsonEqual } from './object.js';

/** How a list field is patched: merged by a key field, merged as a set of primitives, or replaced. */
export type ListStrategy = { type: 'merge'; key: string } | { type: 'set' } | { type: 'replace' };

type JsonObject = Record<string, unknown>;

type StrategyRule = {
  /** Field names from the root (list indices left out) that the path must end with. */
  readonly suffix: readonly string[];
  /** When true the path must equal `suffix` exactly (a Service's `spec.ports`, not any `ports`). */
  readonly anchored?: boolean;
  readonly strategy: ListStrategy;
};

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

const byKey = (key: string): ListStrategy => ({ type: 'merge', key });

// The patchStrategy/patchMergeKey tags of k8s.io/api for the lists our kinds carry. First match wins.
// Lists not listed here (tolerations, volumeClaimTemplates, args, envFrom, ...) are replaced.
const RULES: readonly StrategyRule[] = [
  ...CONTAINER_LISTS.flatMap((c): StrategyRule[] => [
    { suffix: [c], strategy: byKey('name') },
    { suffix: [c, 'ports'], strategy: byKey('containerPort') },
    { suffix: [c, 'env'], strategy: byKey('name') },
    { suffix: [c, 'volumeMounts'], strategy: byKey('mountPath') },
    { suffix: [c, 'volumeDevices'], strategy: byKey('devicePath') },
  ]),
  { suffix: ['spec', 'ports'], anchored: true, strategy: byKey('port') },
  { suffix: ['volumes'], strategy: byKey('name') },
  { suffix: ['imagePullSecrets'], strategy: byKey('name') },
  { suffix: ['hostAliases'], strategy: byKey('ip') },
  { suffix: ['topologySpreadConstraints'], strategy: byKey('topologyKey') },
  { suffix: ['schedulingGates'], strategy: byKey('name') },
  { suffix: ['metadata', 'ownerReferences'], strategy: byKey('uid') },
  { suffix: ['metadata', 'finalizers'], strategy: { type: 'set' } },
  { suffix: ['status', 'conditions'], strategy: byKey('type') },
  { suffix: ['status', 'podIPs'], strategy: byKey('ip') },
  { suffix: ['status', 'hostIPs'], strategy: byKey('ip') },
  { suffix: ['status', 'addresses'], strategy: byKey('type') },
];

const DIRECTIVE = '$patch';
const DELETE_FROM = '$deleteFromPrimitiveList/';
const SET_ORDER = '$setElementOrder/';
const RETAIN_KEYS = '$retainKeys';

/** Marks "remove this field" when a map patch says `$patch: delete`. */
const DELETED = Symbol('deleted');

/**
 * The patch strategy of the list at `path` (field names from the object root, list indices left
 * out), e.g. `['spec', 'template', 'spec', 'containers']` → merge by `name`. The field name and the
 * end of its parent path decide, so every `containers` list merges by name wherever it sits.
 */
export function listStrategyAt(path: readonly string[]): ListStrategy {
  for (const rule of RULES) {
    if (rule.anchored ? pathEquals(path, rule.suffix) : pathEndsWith(path, rule.suffix)) return rule.strategy;
  }
  return { type: 'replace' };
}

function pathEquals(path: readonly string[], other: readonly string[]): boolean {
  return path.length === other.length && pathEndsWith(path, other);
}

function pathEndsWith(path: readonly string[], suffix: readonly string[]): boolean {
  const offset = path.length - suffix.length;
  return offset >= 0 && suffix.every((name, i) => path[offset + i] === name);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setKey(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/**
 * Applies a strategic merge patch to a copy of `target` and returns it. `null` deletes a key, maps
 * merge, lists follow `listStrategyAt`, and directives are obeyed and never stored. A malformed
 * directive (unknown `$patch` value, a keyed list element without its key, a directive that is not
 * a list, a patch key missing from `$retainKeys`) is a 400 BadRequest.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown): JsonObject {
  if (!isObject(patch)) throw badRequest('invalid JSON document');
  const original = isObject(target) ? structuredClone(target) : {};
  const merged = mergeMap(original, patch, []);
  return merged === DELETED ? {} : merged;
}

/** Merges `patch` into `original` (already a private copy, so it is changed in place). */
function mergeMap(original: JsonObject | undefined, patch: JsonObject, path: readonly string[]): JsonObject | typeof DELETED {
  const directive = patch[DIRECTIVE];
  if (directive === 'delete') return DELETED;
  if (directive === 'replace') return mergeMap(undefined, omitKey(patch, DIRECTIVE), path);
  if (directive !== undefined && directive !== 'merge') {
    throw badRequest(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  }
  const result = original ?? {};
  retainKeys(result, patch);
  for (const [key, values] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM)) deleteFromPrimitiveList(result, key.slice(DELETE_FROM.length), values);
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(DELETE_FROM) || key.startsWith(SET_ORDER)) continue;
    mergeField(result, key, value, [...path, key]);
  }
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const field = key.slice(SET_ORDER.length);
    if (!Array.isArray(order)) throw badRequest('invalid patch format of setElementOrder list');
    const list = result[field];
    if (Array.isArray(list)) setKey(result, field, orderList(list, order, listStrategyAt([...path, field])));
  }
  return result;
}

function mergeField(result: JsonObject, key: string, value: unknown, path: readonly string[]): void {
  if (value === null) {
    delete result[key];
    return;
  }
  const current = result[key];
  let next: unknown;
  if (isObject(value)) next = mergeMap(isObject(current) ? current : undefined, value, path);
  else if (Array.isArray(value)) next = mergeList(Array.isArray(current) ? current : undefined, value, path);
  else next = value;
  if (next === DELETED) delete result[key];
  else setKey(result, key, next);
}

function omitKey(obj: JsonObject, key: string): JsonObject {
  const copy: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (k !== key) setKey(copy, k, v);
  return copy;
}

/** `$retainKeys`: fields of the original not named in the list are cleared before merging. */
function retainKeys(result: JsonObject, patch: JsonObject): void {
  const keys = patch[RETAIN_KEYS];
  if (keys === undefined) return;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) throw badRequest('invalid patch format of retainKeys');
  for (const [key, value] of Object.entries(patch)) {
    // As the real server: a null (a field being cleared) need not be listed.
    if (value !== null && !key.startsWith('$') && !keys.includes(key)) throw badRequest('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(result)) if (!keys.includes(key)) delete result[key];
}

/** `$deleteFromPrimitiveList/<field>`: drops those values; an emptied list is removed, as Go omits it. */
function deleteFromPrimitiveList(result: JsonObject, field: string, values: unknown): void {
  if (!Array.isArray(values)) throw badRequest('invalid patch format of primitive list');
  const list = result[field];
  if (!Array.isArray(list)) return;
  const kept = list.filter((item) => !values.some((v) => jsonEqual(v, item)));
  if (kept.length === 0) delete result[field];
  else setKey(result, field, kept);
}

function mergeList(original: unknown[] | undefined, patch: readonly unknown[], path: readonly string[]): unknown[] {
  const strategy = listStrategyAt(path);
  // A `{$patch: replace}` element replaces the whole list with the other elements, whatever the strategy.
  if (patch.some((el) => isObject(el) && el[DIRECTIVE] === 'replace')) {
    return cleanElements(patch.filter((el) => !(isObject(el) && DIRECTIVE in el)), path);
  }
  switch (strategy.type) {
    case 'replace':
      return cleanElements(patch.filter((el) => !(isObject(el) && el[DIRECTIVE] === 'delete')), path);
    case 'set': {
      const result = [...(original ?? [])];
      for (const item of patch) if (!result.some((r) => jsonEqual(r, item))) result.push(structuredClone(item));
      return result;
    }
    case 'merge':
      return mergeKeyedList(original ?? [], patch, strategy.key, path);
    default: {
      const unreachable: never = strategy;
      return unreachable;
    }
  }
}

/** Copies list elements, dropping directives and nulls from maps (new elements carry none). */
function cleanElements(elements: readonly unknown[], path: readonly string[]): unknown[] {
  return elements.map((el) => {
    if (!isObject(el)) return structuredClone(el);
    const cleaned = mergeMap(undefined, el, path);
    return cleaned === DELETED ? {} : cleaned;
  });
}

function mergeKeyedList(original: unknown[], patch: readonly unknown[], key: string, path: readonly string[]): unknown[] {
  const result = [...original];
  for (const element of patch) {
    if (!isObject(element)) throw badRequest(`the list ${path.join('.')} is merged by ${key} but has an element that is not a map`);
    const keyValue = element[key];
    if (keyValue === undefined) throw badRequest(`map: ${JSON.stringify(element)} does not contain declared merge key: ${key}`);
    const matches = (item: unknown): boolean => isObject(item) && jsonEqual(item[key], keyValue);
    const directive = element[DIRECTIVE];
    if (directive === 'delete') {
      // As the real server: every element with that key goes, and deleting a missing one is fine.
      for (let i = result.length - 1; i >= 0; i--) if (matches(result[i])) result.splice(i, 1);
      continue;
    }
    const index = result.findIndex(matches);
    const current = index >= 0 ? result[index] : undefined;
    const merged = mergeMap(isObject(current) ? current : undefined, element, path);
    if (merged === DELETED) continue;
    if (index >= 0) result[index] = merged;
    else result.push(merged);
  }
  return result;
}

/**
 * `$setElementOrder/<field>`: the elements named in `order` take the positions those elements hold
 * in the merged list, sorted as `order` lists them; elements it does not name (present only on the
 * server) keep their positions. Replaced lists are left as they are.
 */
function orderList(list: readonly unknown[], order: readonly unknown[], strategy: ListStrategy): unknown[] {
  if (strategy.type === 'replace') return [...list];
  const identity = (item: unknown): unknown => (strategy.type === 'merge' && isObject(item) ? item[strategy.key] : item);
  const rank = (item: unknown): number => order.findIndex((o) => jsonEqual(identity(o), identity(item)));
  const slots = list.map((item, i) => ({ item, i, rank: rank(item) })).filter((s) => s.rank >= 0);
  const sorted = [...slots].sort((a, b) => a.rank - b.rank);
  const result = [...list];
  slots.forEach((slot, n) => {
    const moved = sorted[n];
    if (moved) result[slot.i] = moved.item;
  });
  return result;
}
