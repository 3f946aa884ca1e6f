/**
 * `sim.nodes` as a count or as node pools. A count `N` is nodes `node-0..node-(N-1)` over zones
 * zone-a/b/c; a list is node pools `{name, count, labels, taints, zones}` (nodes `<name>-<i>`,
 * zones round robin over `zones`, or zone-a/b/c), so a manifest's `nodeSelector`, tolerations and
 * anti-affinity schedule as on a cluster with those node groups. Every mistake names its field.
 */
import { MAX_NODES } from './defaults.js';
import type { FieldPath } from './reader.js';
import { describeValue, expectMapping, FieldError, readInteger, readOneOf, readString, rejectUnknownFields, required } from './reader.js';
import type { NodePoolSetting } from './types.js';

/** The fields a node pool accepts. */
export const NODE_POOL_FIELDS = ['name', 'count', 'labels', 'taints', 'zones'] as const;

/** The fields a pool's taint accepts. */
export const TAINT_FIELDS = ['key', 'value', 'effect'] as const;

/** The effects a taint may have. */
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

const POOL_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// A label key: an optional DNS-subdomain prefix and a name of letters, digits, '-', '_' and '.'.
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** `sim.nodes`: the total node count and, for the list form, the pools. */
export function readNodes(value: unknown, path: FieldPath): { nodes: number; nodePools?: readonly NodePoolSetting[] } {
  if (!Array.isArray(value)) {
    if (typeof value === 'number') return { nodes: readInteger(value, path, 1, MAX_NODES) };
    throw new FieldError(path, `expected a node count (1..${MAX_NODES}) or a list of node pools {name, count, labels, taints, zones}, got ${describeValue(value)}`);
  }
  if (value.length === 0) throw new FieldError(path, 'a list of node pools must have at least one pool');
  const pools = value.map((raw, i) => readPool(raw, [...path, i]));
  pools.forEach((pool, i) => {
    if (pools.findIndex((p) => p.name === pool.name) !== i) throw new FieldError([...path, i, 'name'], `duplicate pool name "${pool.name}"`);
  });
  const total = pools.reduce((sum, p) => sum + p.count, 0);
  if (total > MAX_NODES) throw new FieldError(path, `${total} nodes in all is out of range (at most ${MAX_NODES})`);
  return { nodes: total, nodePools: pools };
}

function readPool(raw: unknown, path: FieldPath): NodePoolSetting {
  const map = expectMapping(raw, path, 'a node pool {name, count, labels, taints, zones}');
  rejectUnknownFields(map, path, NODE_POOL_FIELDS);
  const name = readString(required(map, 'name', path), [...path, 'name']);
  if (name.length > 50 || !POOL_NAME.test(name)) throw new FieldError([...path, 'name'], `"${name}" is not a valid pool name (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 50 characters)`);
  const count = readInteger(required(map, 'count', path), [...path, 'count'], 1, MAX_NODES);
  const labels = 'labels' in map ? readLabels(map['labels'], [...path, 'labels']) : undefined;
  const taints = 'taints' in map ? readList(map['taints'], [...path, 'taints']).map((t, i) => readTaint(t, [...path, 'taints', i])) : undefined;
  const zones = 'zones' in map ? readList(map['zones'], [...path, 'zones']).map((z, i) => readLabelValue(z, [...path, 'zones', i])) : undefined;
  if (zones?.length === 0) throw new FieldError([...path, 'zones'], 'must name at least one zone (leave it out for zone-a/b/c)');
  return { name, count, ...(labels ? { labels } : {}), ...(taints ? { taints } : {}), ...(zones ? { zones } : {}) };
}

function readList(value: unknown, path: FieldPath): unknown[] {
  if (!Array.isArray(value)) throw new FieldError(path, `expected a list, got ${describeValue(value)}`);
  return value;
}

function readLabels(value: unknown, path: FieldPath): Record<string, string> {
  const map = expectMapping(value, path, 'a mapping of label keys to values');
  const labels: Record<string, string> = {};
  for (const [key, v] of Object.entries(map)) {
    if (key.length > 316 || !LABEL_KEY.test(key)) throw new FieldError([...path, key], `"${key}" is not a valid label key`);
    labels[key] = readLabelValue(v, [...path, key]);
  }
  return labels;
}

function readLabelValue(value: unknown, path: FieldPath): string {
  if (typeof value !== 'string') throw new FieldError(path, `expected a string (quote numbers and booleans), got ${describeValue(value)}`);
  if (value.length > 63 || !LABEL_VALUE.test(value)) throw new FieldError(path, `"${value}" is not a valid label value (letters, digits, "-", "_" and ".", at most 63 characters)`);
  return value;
}

function readTaint(raw: unknown, path: FieldPath): { key: string; value?: string; effect: (typeof TAINT_EFFECTS)[number] } {
  const map = expectMapping(raw, path, 'a taint {key, value, effect}');
  rejectUnknownFields(map, path, TAINT_FIELDS);
  const key = readString(required(map, 'key', path), [...path, 'key']);
  if (!LABEL_KEY.test(key)) throw new FieldError([...path, 'key'], `"${key}" is not a valid taint key`);
  const value = 'value' in map ? readLabelValue(map['value'], [...path, 'value']) : undefined;
  const effect = readOneOf(required(map, 'effect', path), [...path, 'effect'], TAINT_EFFECTS, 'taint effect');
  return { key, ...(value === undefined ? {} : { value }), effect };
}
