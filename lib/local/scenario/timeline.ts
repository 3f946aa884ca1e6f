/**
 * Reads `timeline:`: a list whose entries each hold exactly one verb (and, for `waitFor` only, a
 * `timeout`). Everything an entry names — components, pods, nodes, JSONPaths, durations — is
 * checked here, so the runner never meets a malformed entry.
 */
import { ADMIN_ACTIONS, ADMIN_COMPONENTS, MAX_HISTORY_LIMIT } from '../../platform/admin-request.js';
import { DEFAULT_WAIT_TIMEOUT_MS } from './defaults.js';
import { readFault, readHeal, readWorld } from './faults.js';
import { compileJsonPath } from './jsonpath.js';
import type { NameRules } from './names.js';
import { hasComponent } from './names.js';
import type { FieldPath } from './reader.js';
import {
  describeValue,
  expectMapping,
  FieldError,
  isMapping,
  readDuration,
  readInteger,
  readJson,
  readJsonObject,
  readOneOf,
  readString,
  rejectUnknownFields,
  required,
} from './reader.js';
import { readIamPrincipal } from './access-entries.js';
import { readManifest } from './objects.js';
import { withEntryEks } from './eks-entries.js';
import type { AdminStep, Expectation, JsonObject, ObjectRef, RefKind, TimelineEntry, Verb, WaitCondition } from './types.js';
import { COMPONENTS, PHASES, REF_KINDS, VERBS } from './types.js';

/** Where an entry starts in the file (1-based line), when known. */
export type LineOf = (path: FieldPath) => number | undefined;

// An entry without its position: the union member of its verb, field by field.
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type EntryBody = DistributiveOmit<TimelineEntry, 'index' | 'line'>;

const CONDITION_FORMS = 'ready, {component, phase} or {jsonpath, equals | notEquals | greaterThan, object?}';

/** Reads the whole timeline (missing means empty); throws `FieldError` at the first problem. */
export function readTimeline(raw: unknown, rules: NameRules, lineOf: LineOf, clusterNamespace = 'default', namespaceOfEks: (eks: string) => string = () => clusterNamespace): TimelineEntry[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new FieldError(['timeline'], `expected a list of entries, got ${describeValue(raw)}`);
  const marks = new Set<string>();
  return raw.map((item: unknown, index) => {
    const body = readEntry(item, ['timeline', index], rules, clusterNamespace, namespaceOfEks);
    if (body.verb === 'mark') marks.add(body.name);
    if (body.verb === 'expect' && !marks.has(body.expect.since)) {
      throw new FieldError(['timeline', index, 'expect', 'since'], `no earlier mark: ${JSON.stringify(body.expect.since)} (a mark: entry before this one names it)`);
    }
    const line = lineOf(['timeline', index]);
    return { index, ...(line === undefined ? {} : { line }), ...body } as TimelineEntry;
  });
}

function readEntry(raw: unknown, path: FieldPath, rules: NameRules, clusterNamespace: string, namespaceOfEks: (eks: string) => string): EntryBody {
  const map = expectMapping(raw, path, `a mapping with one verb (${VERBS.join(', ')})`);
  const keys = Object.keys(map);
  const unknown = keys.find((key) => key !== 'timeout' && key !== 'eks' && !isVerb(key));
  if (unknown !== undefined) {
    throw new FieldError(path, `unknown verb ${JSON.stringify(unknown)} (expected one of: ${VERBS.join(', ')})`, [...path, unknown]);
  }
  const verbs = keys.filter(isVerb);
  const verb = verbs[0];
  if (verb === undefined) throw new FieldError(path, `no verb (expected exactly one of: ${VERBS.join(', ')})`);
  if (verbs.length > 1) throw new FieldError(path, `more than one verb (${verbs.join(', ')}); an entry has exactly one`);
  if ('timeout' in map && verb !== 'waitFor') {
    throw new FieldError([...path, 'timeout'], `timeout is only allowed with waitFor, not with ${verb}`);
  }
  if (!('eks' in map)) return readVerb(verb, map[verb], [...path, verb], map['timeout'], rules, clusterNamespace);
  // An entry that names its EKS cluster defaults namespaces to that cluster's TidbCluster's.
  const eks = readString(map['eks'], [...path, 'eks']);
  return withEntryEks(readVerb(verb, map[verb], [...path, verb], map['timeout'], rules, namespaceOfEks(eks)), eks, [...path, 'eks']);
}

function readVerb(verb: Verb, value: unknown, at: FieldPath, timeout: unknown, rules: NameRules, clusterNamespace: string): EntryBody {
  switch (verb) {
    case 'waitFor': {
      const timeoutPath = [...at.slice(0, -1), 'timeout'];
      const timeoutMs = timeout === undefined ? DEFAULT_WAIT_TIMEOUT_MS : readDuration(timeout, timeoutPath, true);
      return { verb, until: readCondition(value, at, rules), timeoutMs };
    }
    case 'patch':
      return { verb, patch: readPatch(value, at) };
    case 'annotate':
      return { verb, annotations: readAnnotations(value, at) };
    case 'fault':
      return { verb, fault: readFault(value, at, rules) };
    case 'heal':
      return { verb, heal: readHeal(value, at, rules) };
    case 'world':
      return { verb, change: readWorld(value, at, rules) };
    case 'admin':
      return { verb, admin: readAdmin(value, at) };
    case 'advance':
      return { verb, durationMs: readDuration(value, at) };
    case 'apply':
      return { verb, manifest: readManifest(value, at, clusterNamespace) };
    case 'deleteObject':
      return { verb, object: readDeleteObject(value, at) };
    case 'mark':
      return { verb, name: readMarkName(value, at) };
    case 'expect':
      return { verb, expect: readExpectation(value, at) };
    case 'delete':
      if (value !== true) throw new FieldError(at, `expected true, got ${describeValue(value)}`);
      return { verb };
    default: {
      const unreachable: never = verb;
      return unreachable;
    }
  }
}

/** An integer bound, written as a number or as a string of digits (a TSO exceeds 2^53), as decimal digits. */
function readIntegerBound(value: unknown, path: FieldPath): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return value;
  throw new FieldError(path, `expected an integer or a string of digits, got ${describeValue(value)}`);
}

function readCondition(value: unknown, path: FieldPath, rules: NameRules): WaitCondition {
  if (value === 'ready') return { kind: 'ready' };
  if (typeof value === 'string') throw new FieldError(path, `unknown condition ${JSON.stringify(value)} (expected ${CONDITION_FORMS})`);
  if (!isMapping(value) || !('jsonpath' in value || 'component' in value || 'phase' in value)) {
    throw new FieldError(path, `expected ${CONDITION_FORMS}, got ${describeValue(value)}`);
  }
  if ('jsonpath' in value) {
    rejectUnknownFields(value, path, ['jsonpath', 'equals', 'notEquals', 'greaterThan', 'object']);
    const source = readString(required(value, 'jsonpath', path), [...path, 'jsonpath']);
    const compiled = compileJsonPath(source);
    if (!compiled.ok) throw new FieldError([...path, 'jsonpath'], compiled.error);
    const object = 'object' in value ? { object: readObjectRef(value['object'], [...path, 'object']) } : {};
    if (['equals', 'notEquals', 'greaterThan'].filter((f) => f in value).length > 1) throw new FieldError(path, 'give one of equals, notEquals or greaterThan');
    if ('notEquals' in value) return { kind: 'jsonpath', path: compiled.path, notEquals: readJson(value['notEquals'], [...path, 'notEquals']), ...object };
    if ('greaterThan' in value) return { kind: 'jsonpath', path: compiled.path, greaterThan: readIntegerBound(value['greaterThan'], [...path, 'greaterThan']), ...object };
    const equals = readJson(required(value, 'equals', path), [...path, 'equals']);
    return { kind: 'jsonpath', path: compiled.path, equals, ...object };
  }
  rejectUnknownFields(value, path, ['component', 'phase']);
  const component = readOneOf(required(value, 'component', path), [...path, 'component'], COMPONENTS, 'component');
  if (!hasComponent(rules, component)) {
    throw new FieldError([...path, 'component'], `the cluster has no ${component} (neither spec.${component} nor a patch sets it)`);
  }
  const phase = readOneOf(required(value, 'phase', path), [...path, 'phase'], PHASES, 'phase');
  return { kind: 'phase', component, phase };
}

function readPatch(value: unknown, path: FieldPath): JsonObject {
  const patch = readJsonObject(value, path, 'a mapping (a JSON merge patch of the TidbCluster)');
  const metadata = patch['metadata'];
  const identity: FieldPath[] = [
    ...['apiVersion', 'kind'].filter((key) => key in patch).map((key) => [key]),
    ...(isMapping(metadata) ? ['name', 'namespace'].filter((key) => key in metadata).map((key) => ['metadata', key]) : []),
  ];
  const first = identity[0];
  if (first !== undefined) {
    throw new FieldError([...path, ...first], "a patch cannot change the TidbCluster's identity (apiVersion, kind, name, namespace)");
  }
  return patch;
}

// Kubernetes' qualified names: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters.
const ANNOTATION_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const ANNOTATION_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function readAnnotations(value: unknown, path: FieldPath): Record<string, string | null> {
  const map = expectMapping(value, path, 'a mapping of annotation → string (null removes)');
  const out: Record<string, string | null> = {};
  for (const [key, item] of Object.entries(map)) {
    const at: FieldPath = [...path, key];
    if (!isAnnotationKey(key)) throw new FieldError(at, 'invalid annotation key (expected [prefix/]name, e.g. tidb.pingcap.com/force-upgrade)');
    if (item !== null && typeof item !== 'string') {
      const hint = typeof item === 'boolean' || typeof item === 'number' ? ` (quote it: "${String(item)}")` : '';
      throw new FieldError(at, `expected a string or null, got ${describeValue(item)}${hint}`);
    }
    out[key] = item;
  }
  return out;
}

function isAnnotationKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !ANNOTATION_PREFIX.test(prefix))) return false;
  return name.length <= 63 && ANNOTATION_NAME.test(name);
}

function readAdmin(value: unknown, path: FieldPath): AdminStep {
  const map = expectMapping(value, path, 'a mapping {action, component?, limit?, as?, expect?}');
  rejectUnknownFields(map, path, ['action', 'component', 'limit', 'as', 'expect']);
  const caller = {
    ...('as' in map ? { as: readIamPrincipal(map['as'], [...path, 'as']) } : {}),
    ...('expect' in map ? { expect: readOneOf(map['expect'], [...path, 'expect'], ['forbidden'] as const, 'expected answer') } : {}),
  };
  return { ...readAdminAction(map, path), ...caller };
}

function readAdminAction(map: Record<string, unknown>, path: FieldPath): AdminStep {
  const action = readOneOf(required(map, 'action', path), [...path, 'action'], ADMIN_ACTIONS, 'admin action');
  if ('limit' in map && action !== 'history') throw new FieldError([...path, 'limit'], `limit is only allowed with history, not with ${action}`);
  if (action === 'history') return 'limit' in map ? { action, limit: readInteger(map['limit'], [...path, 'limit'], 1, MAX_HISTORY_LIMIT) } : { action };
  if (action !== 'force-upgrade') {
    if ('component' in map) throw new FieldError([...path, 'component'], `component is only allowed with force-upgrade, not with ${action}`);
    return { action };
  }
  const component = readOneOf(required(map, 'component', path), [...path, 'component'], ADMIN_COMPONENTS, 'component');
  return { action, component };
}

/** `Kind/name` or `Kind/namespace/name` (the namespace defaults to the cluster's when the entry runs). */
function readObjectRef(value: unknown, path: FieldPath): ObjectRef {
  const text = readString(value, path);
  const parts = text.split('/');
  const [kind, a, b] = parts;
  if (parts.length < 2 || parts.length > 3 || kind === undefined || a === undefined || parts.some((p) => p === '')) {
    throw new FieldError(path, `expected Kind/name or Kind/namespace/name, got ${JSON.stringify(text)}`);
  }
  if (!(REF_KINDS as readonly string[]).includes(kind)) throw new FieldError(path, `unknown kind ${JSON.stringify(kind)} (expected one of: ${REF_KINDS.join(', ')})`);
  return b === undefined ? { kind: kind as RefKind, name: a } : { kind: kind as RefKind, namespace: a, name: b };
}

/** `deleteObject: {kind, name, namespace?}`. */
function readDeleteObject(value: unknown, path: FieldPath): ObjectRef {
  const map = expectMapping(value, path, 'a mapping {kind, name, namespace?}');
  rejectUnknownFields(map, path, ['kind', 'name', 'namespace']);
  const kind = readOneOf(required(map, 'kind', path), [...path, 'kind'], REF_KINDS, 'kind');
  const name = readString(required(map, 'name', path), [...path, 'name']);
  return 'namespace' in map ? { kind, name, namespace: readString(map['namespace'], [...path, 'namespace']) } : { kind, name };
}

const MARK_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `mark: NAME` (lower-case letters, digits and dashes). */
function readMarkName(value: unknown, path: FieldPath): string {
  const name = readString(value, path);
  if (!MARK_NAME.test(name)) throw new FieldError(path, `expected a name of lower-case letters, digits and dashes, got ${JSON.stringify(name)}`);
  return name;
}

/** `expect: {since, podsKept?, reconcilerWrites?}`: at least one check. */
function readExpectation(value: unknown, path: FieldPath): Expectation {
  const map = expectMapping(value, path, 'a mapping {since, podsKept?, reconcilerWrites?}');
  rejectUnknownFields(map, path, ['since', 'podsKept', 'reconcilerWrites']);
  const since = readMarkName(required(map, 'since', path), [...path, 'since']);
  if (!('podsKept' in map) && !('reconcilerWrites' in map)) throw new FieldError(path, 'expected at least one of podsKept, reconcilerWrites');
  if ('podsKept' in map && map['podsKept'] !== true) throw new FieldError([...path, 'podsKept'], `expected true, got ${describeValue(map['podsKept'])}`);
  let writes: string[] | undefined;
  if ('reconcilerWrites' in map) {
    const raw = map['reconcilerWrites'];
    if (!Array.isArray(raw)) throw new FieldError([...path, 'reconcilerWrites'], `expected a list of kinds (Kind or Kind/status), got ${describeValue(raw)}`);
    writes = raw.map((w, i) => {
      const text = readString(w, [...path, 'reconcilerWrites', i]);
      if (!/^[A-Z][A-Za-z]*(\/status)?$/.test(text)) throw new FieldError([...path, 'reconcilerWrites', i], `expected Kind or Kind/status, got ${JSON.stringify(text)}`);
      return text;
    });
  }
  return { since, ...('podsKept' in map ? { podsKept: true as const } : {}), ...(writes === undefined ? {} : { reconcilerWrites: writes }) };
}

function isVerb(key: string): key is Verb {
  return (VERBS as readonly string[]).includes(key);
}
