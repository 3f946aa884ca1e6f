/**
 * The timeline verbs that change the world rather than the TidbCluster: `fault`, `heal` and
 * `world`. Each reader checks the exact fields its form allows, so a typo is a file error, not a
 * fault that silently never happens.
 */
import type { FieldPath, Mapping } from './reader.js';
import type { NameRules } from './names.js';
import { MAX_TIFLASH_REPLICAS } from './defaults.js';
import { readNode, readPod } from './names.js';
import {
  describeValue,
  expectMapping,
  FieldError,
  readDuration,
  readInteger,
  readJsonObject,
  readNumber,
  readOneOf,
  readString,
  rejectUnknownFields,
  required,
} from './reader.js';
import type { Fault, FaultKind, HealTarget, WorldChange } from './types.js';
import { FAULT_KINDS } from './types.js';

/** The fields each fault kind takes besides `kind`; all are required. */
export const FAULT_FIELDS: Readonly<Record<FaultKind, readonly string[]>> = {
  'pod-down': ['pod'],
  'pod-deleted': ['pod'],
  'node-down': ['node'],
  'image-broken': ['image'],
  'pd-api-down': ['for'],
  'pd-schedulers-lost': ['for'],
  'pd-join-interrupted': ['pod'],
  'kube-api-errors': ['rate', 'for'],
  'step-crash': ['afterActions', 'times'],
  'duplicate-delivery': ['factor', 'for'],
  's3-down': ['for'],
  'job-pod-killed': ['job'],
  'exporter-down': ['for'],
  'eks-api-down': ['eks', 'for'],
};

/** The largest `duplicate-delivery` factor (each message delivered at most this many times). */
export const MAX_DUPLICATE_FACTOR = 10;

/** Reads `fault: {kind, …}`: a known kind with exactly its fields, pods and nodes that exist. */
export function readFault(value: unknown, path: FieldPath, rules: NameRules): Fault {
  const map = expectMapping(value, path, 'a mapping {kind, …}');
  const kind = readOneOf(required(map, 'kind', path), [...path, 'kind'], FAULT_KINDS, 'fault kind');
  rejectUnknownFields(map, path, ['kind', ...FAULT_FIELDS[kind]], `for a ${kind} fault`);
  const field = (name: string): unknown => required(map, name, path);
  const at = (name: string): FieldPath => [...path, name];
  switch (kind) {
    case 'pod-down':
    case 'pod-deleted':
      return { kind, pod: readPod(field('pod'), at('pod'), rules) };
    case 'node-down':
      return { kind, node: readNode(field('node'), at('node'), rules) };
    case 'image-broken':
      return { kind, image: readImage(field('image'), at('image')) };
    case 'pd-api-down':
    case 'pd-schedulers-lost':
    case 's3-down':
    case 'exporter-down':
      return { kind, forMs: readDuration(field('for'), at('for'), true) };
    case 'job-pod-killed':
      return { kind, job: readString(field('job'), at('job')) };
    case 'eks-api-down':
      // Which EKS cluster: checked against sim.eksClusters once the whole file is read (eks-clusters.ts).
      return { kind, eks: readString(field('eks'), at('eks')), forMs: readDuration(field('for'), at('for'), true) };
    case 'pd-join-interrupted':
      return { kind, pod: readPod(field('pod'), at('pod'), rules, 'pd') };
    case 'kube-api-errors':
      return { kind, rate: readNumber(field('rate'), at('rate'), 0, 1), forMs: readDuration(field('for'), at('for'), true) };
    case 'step-crash':
      return { kind, afterActions: readInteger(field('afterActions'), at('afterActions'), 0), times: readInteger(field('times'), at('times'), 1) };
    case 'duplicate-delivery':
      return {
        kind,
        factor: readInteger(field('factor'), at('factor'), 2, MAX_DUPLICATE_FACTOR),
        forMs: readDuration(field('for'), at('for'), true),
      };
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/** Reads `heal: {pod}`, `{node}` or `{image}`: exactly one of them. */
export function readHeal(value: unknown, path: FieldPath, rules: NameRules): HealTarget {
  const map = expectMapping(value, path, 'a mapping {pod}, {node} or {image}');
  const key = onlyKey(map, path, ['pod', 'node', 'image']);
  const at: FieldPath = [...path, key];
  if (key === 'pod') return { kind: 'pod', pod: readPod(map[key], at, rules) };
  if (key === 'node') return { kind: 'node', node: readNode(map[key], at, rules) };
  return { kind: 'image', image: readImage(map[key], at) };
}

/** Reads `world: {pdLeader: <PD pod>}`, `{pdConfig: {…}}`, `{ticdcOwner: <TiCDC pod>}` or `{tiflashReplicas: N}`: exactly one of them. */
export function readWorld(value: unknown, path: FieldPath, rules: NameRules): WorldChange {
  const map = expectMapping(value, path, 'a mapping {pdLeader}, {pdConfig}, {ticdcOwner} or {tiflashReplicas}');
  const key = onlyKey(map, path, ['pdLeader', 'pdConfig', 'ticdcOwner', 'tiflashReplicas']);
  const at: FieldPath = [...path, key];
  if (key === 'tiflashReplicas') return { kind: 'tiflashReplicas', count: readInteger(map[key], at, 0, MAX_TIFLASH_REPLICAS) };
  if (key === 'pdLeader') return { kind: 'pdLeader', pod: readPod(map[key], at, rules, 'pd') };
  if (key === 'ticdcOwner') return { kind: 'ticdcOwner', pod: readPod(map[key], at, rules, 'ticdc') };
  const config = readJsonObject(map[key], at, 'a mapping of PD configuration, e.g. {replication: {max-replicas: 3}}');
  if (Object.keys(config).length === 0) throw new FieldError(at, 'must set at least one PD setting');
  return { kind: 'pdConfig', config };
}

/** The one key of `map`, which must be one of `allowed`. */
function onlyKey<T extends string>(map: Mapping, path: FieldPath, allowed: readonly T[]): T {
  rejectUnknownFields(map, path, allowed);
  const keys = allowed.filter((key) => key in map);
  const first = keys[0];
  if (first === undefined || keys.length > 1) {
    const got = keys.length === 0 ? 'none' : keys.join(' and ');
    throw new FieldError(path, `expected exactly one of ${allowed.join(', ')}, got ${got}`);
  }
  return first;
}

function readImage(value: unknown, path: FieldPath): string {
  if (typeof value !== 'string') throw new FieldError(path, `expected an image such as "pingcap/pd:v8.5.0", got ${describeValue(value)}`);
  const image = readString(value, path);
  if (/\s/.test(image)) throw new FieldError(path, `"${image}" is not an image reference (it contains spaces)`);
  return image;
}
