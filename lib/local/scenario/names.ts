/**
 * Which pod and node names a timeline may name. Pods are `<tc>-<component>-<ordinal>` for a
 * component the cluster has (in its spec or added by a patch of the timeline), with an ordinal below
 * the most pods that component can reach: the largest `replicas` the spec or any patch sets, plus
 * the largest `maxFailoverCount` they set (a section without one counts as 3, TiDB Operator's
 * default; TiCDC and Pump have no failover, so 0), because failover adds ordinals past `replicas`.
 * Nodes are `node-0` … `node-<sim.nodes − 1>`, or `<pool>-<i>` when `sim.nodes` lists node pools.
 */
import { DEFAULT_MAX_FAILOVER_COUNT } from './defaults.js';
import type { FieldPath } from './reader.js';
import { describeValue, FieldError, isMapping } from './reader.js';
import type { Component, TidbClusterManifest } from './types.js';
import { COMPONENTS } from './types.js';

/** How many pods a component can reach: `maxReplicas + maxFailoverCount`. */
export type ComponentLimit = { readonly maxReplicas: number; readonly maxFailoverCount: number };

/** What the name checks know: the cluster's name, its components' limits, and the node count. */
export type NameRules = {
  readonly clusterName: string;
  readonly components: ReadonlyMap<Component, ComponentLimit>;
  readonly nodes: number;
  /** The node names when the world has node pools (else `node-0..node-(nodes-1)`). */
  readonly nodeNames?: readonly string[];
  /** The rules of the scenario's other clusters (`clusters:`), whose pods may be named too. */
  readonly others?: readonly NameRules[];
};

/**
 * The rules for `cluster` in a world of `nodes` nodes, taking into account every patch in
 * `rawTimeline` (the timeline as YAML gave it; entries that are not patches are ignored).
 */
export function buildNameRules(cluster: TidbClusterManifest, rawTimeline: unknown, nodes: number, nodeNames?: readonly string[]): NameRules {
  const specs = [cluster.spec, ...patchedSpecs(rawTimeline)];
  const components = new Map<Component, ComponentLimit>();
  for (const component of COMPONENTS) {
    const sections = specs.map((spec) => spec[component]).filter(isMapping);
    if (sections.length === 0) continue;
    const defaultFailover = DEFAULT_MAX_FAILOVER_COUNT[component] ?? 0;
    components.set(component, {
      maxReplicas: Math.max(...sections.map((s) => wholeNumber(s['replicas']) ?? 0)),
      maxFailoverCount: Math.max(...sections.map((s) => wholeNumber(s['maxFailoverCount']) ?? defaultFailover)),
    });
  }
  return { clusterName: cluster.metadata.name, components, nodes, ...(nodeNames ? { nodeNames } : {}) };
}

/** Whether the cluster has `component` at some point of the timeline. */
export function hasComponent(rules: NameRules, component: Component): boolean {
  return rules.components.has(component);
}

/** `value` as a pod name the cluster can have; of `component` when one is given. */
export function readPod(value: unknown, path: FieldPath, rules: NameRules, component?: Component): string {
  const owner = typeof value === 'string' ? ownerRules(value, rules) : undefined;
  if (owner !== undefined && owner !== rules) return readPod(value, path, owner, component);
  const tc = rules.clusterName;
  if (typeof value !== 'string') throw new FieldError(path, `expected a pod name such as ${tc}-pd-0, got ${describeValue(value)}`);
  const parsed = splitPodName(value, tc);
  if (parsed === undefined) {
    throw new FieldError(path, `unknown pod "${value}" (pods are named ${tc}-<component>-<ordinal>, e.g. ${tc}-pd-0)`);
  }
  if (component !== undefined && parsed.component !== component) {
    throw new FieldError(path, `"${value}" is not a ${component} pod (expected ${tc}-${component}-<ordinal>)`);
  }
  const limit = rules.components.get(parsed.component);
  if (limit === undefined) throw new FieldError(path, `unknown pod "${value}": the cluster has no ${parsed.component}`);
  const count = limit.maxReplicas + limit.maxFailoverCount;
  if (parsed.ordinal >= count) {
    const most = count === 0 ? `the cluster never has ${parsed.component} pods` : `${parsed.component} ordinals go up to ${count - 1}`;
    const why = `replicas up to ${limit.maxReplicas} + maxFailoverCount ${limit.maxFailoverCount}`;
    throw new FieldError(path, `unknown pod "${value}": ${most} (${why})`);
  }
  return value;
}

/**
 * The rules of the cluster a pod name belongs to: among `rules` and its others, the one with the
 * longest name whose `<tc>-<component>-<ordinal>` shape fits; undefined when none does.
 */
export function ownerRules(pod: string, rules: NameRules): NameRules | undefined {
  const fitting = [rules, ...(rules.others ?? [])].filter((r) => splitPodName(pod, r.clusterName) !== undefined);
  return fitting.sort((a, b) => b.clusterName.length - a.clusterName.length)[0];
}

/** `value` as the name of one of the world's nodes. */
export function readNode(value: unknown, path: FieldPath, rules: NameRules): string {
  if (rules.nodeNames) return readPoolNode(value, path, rules.nodeNames);
  const known = rules.nodes === 1 ? 'node-0' : `node-0..node-${rules.nodes - 1}`;
  if (typeof value !== 'string') throw new FieldError(path, `expected a node name such as node-0, got ${describeValue(value)}`);
  const m = /^node-(0|[1-9][0-9]*)$/.exec(value);
  if (!m || Number(m[1]) >= rules.nodes) {
    throw new FieldError(path, `unknown node "${value}" (the world has ${known}; sim.nodes sets how many)`);
  }
  return value;
}

function readPoolNode(value: unknown, path: FieldPath, names: readonly string[]): string {
  if (typeof value === 'string' && names.includes(value)) return value;
  const shown = typeof value === 'string' ? `unknown node "${value}"` : `expected a node name such as ${names[0] ?? ''}, got ${describeValue(value)}`;
  throw new FieldError(path, `${shown} (the world's node pools have ${poolRanges(names)}; sim.nodes sets them)`);
}

/** `a-0..a-2, b-0` for the names of pools a (3 nodes) and b (1). */
function poolRanges(names: readonly string[]): string {
  const pools = new Map<string, number>();
  for (const n of names) {
    const pool = n.slice(0, n.lastIndexOf('-'));
    pools.set(pool, (pools.get(pool) ?? 0) + 1);
  }
  return [...pools].map(([pool, count]) => (count === 1 ? `${pool}-0` : `${pool}-0..${pool}-${count - 1}`)).join(', ');
}

function splitPodName(pod: string, tc: string): { component: Component; ordinal: number } | undefined {
  if (!pod.startsWith(`${tc}-`)) return undefined;
  const m = /^([a-z]+)-(0|[1-9][0-9]*)$/.exec(pod.slice(tc.length + 1));
  const component = COMPONENTS.find((c) => c === m?.[1]);
  if (!m || component === undefined) return undefined;
  return { component, ordinal: Number(m[2]) };
}

function patchedSpecs(rawTimeline: unknown): Readonly<Record<string, unknown>>[] {
  if (!Array.isArray(rawTimeline)) return [];
  const specs: Readonly<Record<string, unknown>>[] = [];
  for (const entry of rawTimeline) {
    const patch: unknown = isMapping(entry) ? entry['patch'] : undefined;
    const spec: unknown = isMapping(patch) ? patch['spec'] : undefined;
    if (isMapping(spec)) specs.push(spec);
  }
  return specs;
}

function wholeNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
