/**
 * The sections of a scenario file besides its timeline: `config:` (reconciler settings), `sim:`
 * (world settings) and `cluster:` (the TidbCluster manifest). Each setting left out takes its
 * default from `defaults.ts`; an unknown setting is an error, so a typo never silently runs with a
 * default.
 */
import { EXPORTER_AT_REST_MODES } from '../../exporter/at-rest.js';
import { readBuckets, readWorkload } from './backup-settings.js';
import { ConfigError, MAX_SWEEP_SPREAD_SECONDS, parseConfig } from '../../platform/config.js';
import { applyStructuralSchema } from '../../sim/crd/schema.js';
import { tidbClusterSchema } from '../../sim/crd/tidbcluster.js';
import { DEFAULT_CONFIG, DEFAULT_NAMESPACE, DEFAULT_SIM, MAX_REGIONS_PER_STORE, MAX_TIFLASH_REPLICAS, TIDB_CLUSTER_API_VERSION } from './defaults.js';
import { readNodes } from './node-pools.js';
import { readStorageClasses } from './storage-classes.js';
import { readLatency } from './latency.js';
import { readEksClusters } from './eks-clusters.js';
import type { FieldPath, Mapping } from './reader.js';
import {
  describeValue,
  expectMapping,
  FieldError,
  readBoolean,
  readDuration,
  readInteger,
  readJsonObject,
  readNumber,
  readOneOf,
  readString,
  rejectUnknownFields,
  required,
} from './reader.js';
import type { ScenarioConfig, SimSettings, TidbClusterManifest } from './types.js';

/** The settings `config:` accepts. */
export const CONFIG_FIELDS = [
  'autoFailover',
  'detectNodeFailure',
  'pdFailoverPeriod',
  'tikvFailoverPeriod',
  'tidbFailoverPeriod',
  'tiflashFailoverPeriod',
  'sweepInterval',
  'sweepSpread',
  'componentAccess',
  'watchNamespaces',
  'apiRequestsPerSecond',
  'exporterAtRest',
  'featureGates',
] as const;

/** The knobs `sim:` accepts. */
export const SIM_FIELDS = ['nodes', 'podStartup', 'storeRemoval', 'storeDrainRate', 'regionsPerStore', 'tiflashReplicas', 'leaderEviction', 'maxStoreDownTime', 'storageClasses', 'buckets', 'workload', 'latency', 'eksClusters', 'podIdentityAssociations'] as const;

/** Reads `config:`; missing or empty means every default. Failover periods may be 0; the sweep interval may not. */
export function readConfig(raw: unknown): ScenarioConfig {
  const map = section(raw, 'config');
  rejectUnknownFields(map, ['config'], CONFIG_FIELDS);
  const d = DEFAULT_CONFIG;
  const duration = (key: string, fallback: number, positive = false): number =>
    key in map ? readDuration(map[key], ['config', key], positive) : fallback;
  return {
    autoFailover: 'autoFailover' in map ? readBoolean(map['autoFailover'], ['config', 'autoFailover']) : d.autoFailover,
    detectNodeFailure: 'detectNodeFailure' in map ? readBoolean(map['detectNodeFailure'], ['config', 'detectNodeFailure']) : d.detectNodeFailure,
    failoverPeriodMs: {
      pd: duration('pdFailoverPeriod', d.failoverPeriodMs.pd),
      tikv: duration('tikvFailoverPeriod', d.failoverPeriodMs.tikv),
      tidb: duration('tidbFailoverPeriod', d.failoverPeriodMs.tidb),
      tiflash: duration('tiflashFailoverPeriod', d.failoverPeriodMs.tiflash),
    },
    sweepIntervalMs: duration('sweepInterval', d.sweepIntervalMs, true),
    ...('sweepSpread' in map ? { sweepSpreadMs: readSweepSpread(map['sweepSpread']) } : {}),
    componentAccess: 'componentAccess' in map ? readOneOf(map['componentAccess'], ['config', 'componentAccess'], ['direct', 'api-proxy'] as const, 'component access mode') : d.componentAccess,
    ...('watchNamespaces' in map ? { watchNamespaces: readWatchNamespaces(map['watchNamespaces']) } : {}),
    // As API_BUDGET_REQUESTS_PER_SECOND (docs/adr/0028): 0 turns the budget off.
    ...('apiRequestsPerSecond' in map ? { apiRequestsPerSecond: readInteger(map['apiRequestsPerSecond'], ['config', 'apiRequestsPerSecond'], 0, 100_000) } : {}),
    // As EXPORTER_AT_REST (docs/adr/0030).
    ...('exporterAtRest' in map ? { exporterAtRest: readOneOf(map['exporterAtRest'], ['config', 'exporterAtRest'], EXPORTER_AT_REST_MODES, 'exporter mode at rest') } : {}),
    ...('featureGates' in map ? { featureGates: readFeatureGates(map['featureGates']) } : {}),
  };
}

/** `config.featureGates`, checked as `FEATURE_GATES` is (a gate this reconciler does not have is refused). */
function readFeatureGates(raw: unknown): string {
  const value = readString(raw, ['config', 'featureGates']);
  try {
    parseConfig({ FEATURE_GATES: value });
  } catch (err) {
    if (err instanceof ConfigError) throw new FieldError(['config', 'featureGates'], err.problems.join('; '));
    throw err;
  }
  return value;
}

/** `config.sweepSpread`: as `SWEEP_SPREAD_SECONDS`, whole seconds from 0s to 15m (SQS's longest delay). */
function readSweepSpread(value: unknown): number {
  const path = ['config', 'sweepSpread'];
  const ms = readDuration(value, path);
  if (ms % 1000 !== 0 || ms > MAX_SWEEP_SPREAD_SECONDS * 1000) throw new FieldError(path, `expected whole seconds from 0s to 15m (SQS's longest delay), got ${describeValue(value)}`);
  return ms;
}

/** `config.watchNamespaces`: a non-empty list of namespace names, checked as `WATCH_NAMESPACES` is. */
function readWatchNamespaces(value: unknown): readonly string[] {
  const path = ['config', 'watchNamespaces'];
  if (!Array.isArray(value) || value.length === 0) throw new FieldError(path, `must be a non-empty list of namespace names, got ${describeValue(value)}`);
  const names = value.map((v: unknown, i) => readString(v, [...path, i]));
  try {
    return parseConfig({ WATCH_NAMESPACES: names.join(',') }).watchNamespaces ?? [];
  } catch (err) {
    if (err instanceof ConfigError) throw new FieldError(path, (err.problems[0] ?? '').replace(/^WATCH_NAMESPACES: /, ''));
    throw err;
  }
}

/**
 * Reads `sim:`; missing or empty means every default. `nodes` is 1 to `MAX_NODES`, or node pools
 * (see `node-pools.ts`); durations may be 0. The drain rate is `storeDrainRate` (replicas a minute)
 * or, in the older form, `storeRemoval`: the time a store holding `regionsPerStore` replicas takes
 * to drain — never both. `storageClasses` see `storage-classes.ts`.
 */
export function readSim(raw: unknown): SimSettings {
  const map = section(raw, 'sim');
  rejectUnknownFields(map, ['sim'], SIM_FIELDS);
  const d = DEFAULT_SIM;
  const duration = (key: string, fallback: number): number => (key in map ? readDuration(map[key], ['sim', key]) : fallback);
  const nodes = 'nodes' in map ? readNodes(map['nodes'], ['sim', 'nodes']) : { nodes: d.nodes };
  const regionsPerStore = 'regionsPerStore' in map ? readInteger(map['regionsPerStore'], ['sim', 'regionsPerStore'], 1, MAX_REGIONS_PER_STORE) : d.regionsPerStore;
  return {
    ...nodes,
    podStartupMs: duration('podStartup', d.podStartupMs),
    storeDrainPerMinute: readDrainRate(map, regionsPerStore),
    regionsPerStore,
    tiflashReplicas: 'tiflashReplicas' in map ? readInteger(map['tiflashReplicas'], ['sim', 'tiflashReplicas'], 0, MAX_TIFLASH_REPLICAS) : d.tiflashReplicas,
    leaderEvictionMs: duration('leaderEviction', d.leaderEvictionMs),
    maxStoreDownTimeMs: duration('maxStoreDownTime', d.maxStoreDownTimeMs),
    ...('storageClasses' in map ? { storageClasses: readStorageClasses(map['storageClasses'], ['sim', 'storageClasses'], nodes.nodePools) } : {}),
    ...('buckets' in map ? { buckets: readBuckets(map['buckets'], ['sim', 'buckets']) } : {}),
    ...('workload' in map ? { workload: readWorkload(map['workload'], ['sim', 'workload']) } : {}),
    latency: readLatency(map['latency']),
    ...('eksClusters' in map ? { eksClusters: readEksClusters(map['eksClusters'], ['sim', 'eksClusters']) } : {}),
  };
}

/** `sim.storeDrainRate` (replicas a minute, > 0), or the rate `sim.storeRemoval` implies for `regionsPerStore` replicas. */
function readDrainRate(map: Mapping, regionsPerStore: number): number {
  if ('storeDrainRate' in map && 'storeRemoval' in map) throw new FieldError(['sim', 'storeRemoval'], 'give storeDrainRate or storeRemoval, not both');
  if ('storeDrainRate' in map) {
    const rate = readNumber(map['storeDrainRate'], ['sim', 'storeDrainRate'], 0, Number.MAX_SAFE_INTEGER);
    if (rate <= 0) throw new FieldError(['sim', 'storeDrainRate'], `must be above 0 (region replicas a minute), got ${rate}`);
    return rate;
  }
  if (!('storeRemoval' in map)) return DEFAULT_SIM.storeDrainPerMinute;
  // A removal of 0 is as fast as the world goes: every replica within a millisecond.
  const removalMs = Math.max(1, readDuration(map['storeRemoval'], ['sim', 'storeRemoval']));
  return (regionsPerStore * 60_000) / removalMs;
}

/**
 * Reads `cluster:`: a TidbCluster manifest whose `kind` and `apiVersion`, when given, are
 * `TidbCluster` and `pingcap.com/v1alpha1` (when left out they are filled in), with
 * `metadata.name` (a DNS-1123 label), `metadata.namespace` (default `default`) and a `spec`
 * mapping. The spec is judged only as the API server judges it, by the TidbCluster CRD's schema
 * (types, enums, no unknown fields, as kubectl's Strict apply); what the schema allows but the
 * reconciler refuses (`replicas: -1`) is the reconciler's to report.
 */
export function readCluster(raw: unknown, path: FieldPath = ['cluster']): TidbClusterManifest {
  const manifest = readJsonObject(raw, path, 'a TidbCluster manifest (a mapping)');
  expectConstant(manifest, 'apiVersion', TIDB_CLUSTER_API_VERSION, path);
  expectConstant(manifest, 'kind', 'TidbCluster', path);
  const metadataPath: FieldPath = [...path, 'metadata'];
  const metadata = readJsonObject(required(manifest, 'metadata', path), metadataPath);
  const name = readDnsLabel(required(metadata, 'name', metadataPath), [...metadataPath, 'name']);
  const namespace = 'namespace' in metadata ? readDnsLabel(metadata['namespace'], [...metadataPath, 'namespace']) : DEFAULT_NAMESPACE;
  const spec = readJsonObject(required(manifest, 'spec', path), [...path, 'spec']);
  checkAgainstCrd({ ...manifest, spec }, path);
  return {
    apiVersion: TIDB_CLUSTER_API_VERSION,
    kind: 'TidbCluster',
    ...manifest,
    metadata: { ...metadata, name, namespace },
    spec,
  } as TidbClusterManifest;
}

/** The first field the TidbCluster CRD's schema does not know or refuses, as a FieldError. */
function checkAgainstCrd(manifest: Record<string, unknown>, path: FieldPath): void {
  const { unknownFields, causes } = applyStructuralSchema(tidbClusterSchema(), manifest);
  const [unknown] = unknownFields;
  if (unknown !== undefined) throw new FieldError([...path, ...schemaPath(unknown)], 'unknown field (the TidbCluster CRD has no such field)');
  const [cause] = causes;
  if (cause) throw new FieldError([...path, ...schemaPath(cause.field)], cause.message);
}

/**
 * Reads `clusters:`: a non-empty list of TidbCluster manifests, each read as `cluster:` is; no two
 * with the same namespace and name.
 */
export function readClusters(raw: unknown): TidbClusterManifest[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new FieldError(['clusters'], `expected a non-empty list of TidbCluster manifests, got ${describeValue(raw)}`);
  const clusters = raw.map((item, i) => readCluster(item, ['clusters', i]));
  clusters.forEach((c, i) => {
    const same = clusters.findIndex((o) => o.metadata.namespace === c.metadata.namespace && o.metadata.name === c.metadata.name);
    if (same !== i) throw new FieldError(['clusters', i, 'metadata', 'name'], `TidbCluster ${c.metadata.namespace}/${c.metadata.name} is listed twice (also clusters[${same}])`);
  });
  return clusters;
}

/** `spec.pd.env[0].name` as a field path: ['spec', 'pd', 'env', 0, 'name']. */
function schemaPath(field: string): FieldPath {
  return field.split('.').flatMap((part) => {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    const indexes = [...(m?.[2] ?? '').matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]));
    return [m?.[1] ?? part, ...indexes];
  });
}

function section(raw: unknown, key: string): Mapping {
  return raw === undefined || raw === null ? {} : expectMapping(raw, [key]);
}

function expectConstant(manifest: Mapping, key: string, expected: string, path: FieldPath): void {
  if (!(key in manifest) || manifest[key] === expected) return;
  throw new FieldError([...path, key], `expected ${expected}, got ${describeValue(manifest[key])}`);
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function readDnsLabel(value: unknown, path: FieldPath): string {
  if (typeof value === 'string' && value.length <= 63 && DNS1123_LABEL.test(value)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value) : describeValue(value);
  throw new FieldError(path, `${shown} is not a valid name (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters)`);
}
