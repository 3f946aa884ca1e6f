/**
 * Defaulting of a TidbCluster, as TiDB Operator v1's `SetTidbClusterDefault` (§1.2): applied in
 * memory before validation and before every rule that reads the spec — never written back to the
 * TidbCluster. Rules call `defaultTidbCluster(cluster)` themselves (a rule's input carries the
 * cluster as observed; the defaulted one is not passed between rules).
 */

import { parse as parseToml } from 'smol-toml';

import type { TidbCluster } from '../../model/kube.js';

/** As TiDB Operator: failover replaces at most 3 members or stores per component unless set. */
export const DEFAULT_MAX_FAILOVER_COUNT = 3;
/** As TiDB Operator: one spare PD/TiKV replica while a volume replacement is in progress. */
export const DEFAULT_SPARE_VOL_REPLACE_REPLICAS = 1;
/** As TiDB Operator: TiDB keeps 3 rotated log files (`log.file.max-backups`) when it has a config. */
export const DEFAULT_TIDB_LOG_MAX_BACKUPS = 3;

/** The base image of each component TiDB Operator defaults one for. */
export const DEFAULT_BASE_IMAGES = {
  pd: 'pingcap/pd',
  tikv: 'pingcap/tikv',
  tidb: 'pingcap/tidb',
  tiflash: 'pingcap/tiflash',
  ticdc: 'pingcap/ticdc',
  pump: 'pingcap/tidb-binlog',
  tiproxy: 'pingcap/tiproxy',
} as const;

/** The components with a default base image. */
export type ImageComponent = keyof typeof DEFAULT_BASE_IMAGES;

type Json = Record<string, unknown>;

const WITH_FAILOVER: ReadonlySet<ImageComponent> = new Set(['pd', 'tikv', 'tidb', 'tiflash']);
const WITH_SPARE: ReadonlySet<ImageComponent> = new Set(['pd', 'tikv']);

/** Whether `value` is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isUnset = (value: unknown): boolean => value === undefined || value === null || value === '';

/**
 * The TidbCluster with TiDB Operator's defaults filled in. Guarantees: the input is not modified;
 * only unset fields are set (a user's value always wins, even an invalid one, so validation still
 * sees it); parts of the spec that are not objects are left for validation to report; calling it
 * again on its own result changes nothing.
 */
export function defaultTidbCluster(tc: TidbCluster): TidbCluster {
  if (!isJsonObject(tc.spec)) return tc;
  const spec: Json = { ...tc.spec };
  if (isUnset(spec.imagePullPolicy)) spec.imagePullPolicy = 'IfNotPresent';
  if (isUnset(spec.tlsCluster)) spec.tlsCluster = { enabled: false };
  if (isUnset(spec.enablePVReclaim)) spec.enablePVReclaim = false;
  if (isUnset(spec.pvReclaimPolicy)) spec.pvReclaimPolicy = 'Retain';
  const clusterVersion = spec.version;
  for (const component of Object.keys(DEFAULT_BASE_IMAGES) as ImageComponent[]) {
    const current = spec[component];
    if (isJsonObject(current)) spec[component] = defaultComponent(component, current, clusterVersion);
  }
  return { ...tc, spec: spec as TidbCluster['spec'] };
}

function defaultComponent(component: ImageComponent, current: Json, clusterVersion: unknown): Json {
  const next: Json = { ...current };
  // As TiDB Operator: the base image is defaulted only when a version says which tag to use.
  const hasVersion = !isUnset(clusterVersion) || !isUnset(current.version);
  if (hasVersion && isUnset(next.baseImage)) next.baseImage = DEFAULT_BASE_IMAGES[component];
  if (WITH_FAILOVER.has(component) && isUnset(next.maxFailoverCount)) next.maxFailoverCount = DEFAULT_MAX_FAILOVER_COUNT;
  if (WITH_SPARE.has(component) && isUnset(next.spareVolReplaceReplicas)) {
    next.spareVolReplaceReplicas = DEFAULT_SPARE_VOL_REPLACE_REPLICAS;
  }
  if (component === 'tidb' && !isUnset(next.config)) next.config = defaultTidbConfig(next.config);
  return next;
}

/**
 * TiDB's `log.file.max-backups` default, in a config given as a map or as TOML text. A TOML text
 * keeps its formatting: the key is inserted under an existing `[log.file]` header or appended as a
 * new table, and the edit is kept only if the result parses with the key set; otherwise (the text
 * is invalid, or `log`/`log.file` is an inline table) the config is left as it is.
 */
export function defaultTidbConfig(config: unknown): unknown {
  if (typeof config === 'string') return defaultTidbConfigText(config);
  if (!isJsonObject(config)) return config;
  const log = config.log ?? {};
  if (!isJsonObject(log)) return config;
  const file = log.file ?? {};
  if (!isJsonObject(file) || file['max-backups'] !== undefined) return config;
  return { ...config, log: { ...log, file: { ...file, 'max-backups': DEFAULT_TIDB_LOG_MAX_BACKUPS } } };
}

function defaultTidbConfigText(text: string): string {
  const current = maxBackups(text);
  if (current !== 'absent') return text;
  const line = `max-backups = ${DEFAULT_TIDB_LOG_MAX_BACKUPS}`;
  const header = /^[ \t]*\[[ \t]*log[ \t]*\.[ \t]*file[ \t]*\][ \t]*(#.*)?$/m;
  const candidate = header.test(text)
    ? text.replace(header, (match) => `${match}\n${line}`)
    : `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}\n[log.file]\n${line}\n`;
  return maxBackups(candidate) === DEFAULT_TIDB_LOG_MAX_BACKUPS ? candidate : text;
}

/** The `log.file.max-backups` of a TOML text: its value, `absent`, or `invalid` when it does not parse. */
function maxBackups(text: string): unknown {
  try {
    const parsed: Json = parseToml(text);
    const log = parsed.log;
    const file = isJsonObject(log) ? log.file : undefined;
    return isJsonObject(file) && file['max-backups'] !== undefined ? file['max-backups'] : 'absent';
  } catch {
    return 'invalid';
  }
}
