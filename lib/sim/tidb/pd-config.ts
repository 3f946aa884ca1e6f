/**
 * PD's replication and schedule configuration for one cluster, with the defaults PD uses, read from
 * the first member's pd.toml at bootstrap (later edits of the file do not apply: PD keeps its
 * configuration in etcd once initialised), and updated through the config API.
 */
import { isLosslessNumber } from 'lossless-json';
import { parseGoDuration } from './http.js';

/** The part of PD's configuration the simulator models. */
export type PdConfig = {
  maxReplicas: number;
  locationLabels: string[];
  enablePlacementRules: boolean;
  strictlyMatchLabel: boolean;
  isolationLevel: string;
  maxStoreDownTimeMs: number;
};

/** PD defaults (max-replicas 3, placement rules on since v5.0), max-store-down-time from the knobs. */
export function defaultPdConfig(maxStoreDownTimeMs: number): PdConfig {
  return { maxReplicas: 3, locationLabels: [], enablePlacementRules: true, strictlyMatchLabel: false, isolationLevel: '', maxStoreDownTimeMs };
}

function table(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Applies the `[replication]` and `[schedule]` tables of a parsed pd.toml. */
export function applyToml(config: PdConfig, toml: Record<string, unknown>): PdConfig {
  const next = { ...config };
  const replication = table(toml.replication);
  const schedule = table(toml.schedule);
  if (typeof replication['max-replicas'] === 'number' && replication['max-replicas'] > 0) next.maxReplicas = replication['max-replicas'];
  if (Array.isArray(replication['location-labels'])) next.locationLabels = replication['location-labels'].map(String);
  if (typeof replication['enable-placement-rules'] === 'boolean') next.enablePlacementRules = replication['enable-placement-rules'];
  if (typeof replication['isolation-level'] === 'string') next.isolationLevel = replication['isolation-level'];
  const downTime = typeof schedule['max-store-down-time'] === 'string' ? parseGoDuration(schedule['max-store-down-time']) : undefined;
  if (downTime !== undefined) next.maxStoreDownTimeMs = downTime;
  return next;
}

/**
 * Applies a replication update as PD's `POST /config/replicate` decodes it: `location-labels` is a
 * comma-separated string and booleans are strings (Go `,string` tags). Returns the Go decoding
 * error text for a value of the wrong type.
 */
export function applyReplicationJson(config: PdConfig, body: Record<string, unknown>): { config: PdConfig } | { error: string } {
  const next = { ...config };
  for (const [key, raw] of Object.entries(body)) {
    const value = isLosslessNumber(raw) ? Number(raw.value) : raw;
    const error = applyReplicationKey(next, key, value);
    if (error) return { error };
  }
  if (next.maxReplicas < 1) return { error: 'max-replicas should be greater than 0' };
  return { config: next };
}

function applyReplicationKey(config: PdConfig, key: string, value: unknown): string | undefined {
  switch (key) {
    case 'max-replicas':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `json: cannot unmarshal ${goType(value)} into Go struct field ReplicationConfig.max-replicas of type uint64`;
      config.maxReplicas = value;
      return undefined;
    case 'location-labels':
      if (typeof value !== 'string') return `json: cannot unmarshal ${goType(value)} into Go struct field ReplicationConfig.location-labels of type typeutil.StringSlice`;
      config.locationLabels = value === '' ? [] : value.split(',');
      return undefined;
    case 'enable-placement-rules':
    case 'strictly-match-label': {
      if (value !== 'true' && value !== 'false') return `json: invalid use of ,string struct tag, trying to unmarshal ${JSON.stringify(value)} into bool`;
      if (key === 'enable-placement-rules') config.enablePlacementRules = value === 'true';
      else config.strictlyMatchLabel = value === 'true';
      return undefined;
    }
    case 'isolation-level':
      if (typeof value !== 'string') return `json: cannot unmarshal ${goType(value)} into Go struct field ReplicationConfig.isolation-level of type string`;
      config.isolationLevel = value;
      return undefined;
    default:
      // As encoding/json: unknown fields are ignored.
      return undefined;
  }
}

function goType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}
