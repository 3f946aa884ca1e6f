/**
 * `additionalContainers` as TiDB Operator v1 applies them (`MergePatchContainers`): an entry named
 * like a container the reconciler builds is a strategic merge patch onto that container (so
 * `{name: <component>, env: [...]}` adds environment to the component's own container instead of
 * declaring a second one); every other entry is appended, in the user's order.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';

type Json = Record<string, unknown>;

// The patchMergeKey tags of k8s.io/api's Container lists; every other list is replaced.
const MERGE_KEYS: Readonly<Record<string, string>> = { ports: 'containerPort', env: 'name', volumeMounts: 'mountPath', volumeDevices: 'devicePath' };

const isMap = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `base` with each of `patches` merged into the container of the same name, then the patches that
 * name no base container appended. Pure: neither input is changed.
 */
export function mergeContainers(base: readonly IContainer[], patches: readonly IContainer[]): IContainer[] {
  const byName = new Map(patches.map((p) => [p.name, p]));
  const merged = base.map((container) => {
    const patch = byName.get(container.name);
    return patch === undefined ? container : (mergeMap(container as unknown as Json, patch as unknown as Json) as unknown as IContainer);
  });
  const baseNames = new Set(base.map((c) => c.name));
  return [...merged, ...patches.filter((p) => !baseNames.has(p.name))];
}

/** A strategic merge of `patch` into a copy of `original`: maps merge, `null` removes, keyed lists merge by key. */
function mergeMap(original: Json, patch: Json, listKeys: Readonly<Record<string, string>> = MERGE_KEYS): Json {
  const result: Json = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    const current = result[key];
    const mergeKey = listKeys[key];
    if (value === null) delete result[key];
    else if (isMap(value) && isMap(current)) result[key] = mergeMap(current, value, {});
    else if (Array.isArray(value) && Array.isArray(current) && mergeKey !== undefined) result[key] = mergeList(current, value, mergeKey);
    else result[key] = value;
  }
  return result;
}

/** Elements with the same key merge in place; new ones are appended in the patch's order. */
function mergeList(original: readonly unknown[], patch: readonly unknown[], key: string): unknown[] {
  const result = [...original];
  for (const element of patch) {
    const index = isMap(element) ? result.findIndex((e) => isMap(e) && e[key] === element[key]) : -1;
    const current = result[index];
    if (isMap(element) && isMap(current)) result[index] = mergeMap(current, element, {});
    else result.push(element);
  }
  return result;
}
