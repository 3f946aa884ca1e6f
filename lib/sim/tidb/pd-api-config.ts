/**
 * PD's configuration routes: the whole config, the replication section, and their updates — the
 * replication update decodes as PD's Go structs do (`location-labels` a comma string, booleans as
 * `"true"`/`"false"`), so a client sending the wrong JSON types gets PD's 400.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json, objectBody, parseGoDuration } from './http.js';
import type { PdApiContext, PdRoute } from './pd-api-common.js';
import { applyReplicationJson } from './pd-config.js';
import type { PdCluster } from './pd-cluster.js';
import type { PdConfig } from './pd-config.js';
import { configJson, replicationJson } from './pd-json.js';

/**
 * What PD's `Server.SetReplicationConfig` (server/server.go, release-7.1 … v8.5) refuses beyond
 * decoding: turning placement rules on or off before the raft cluster is bootstrapped, and turning
 * them off while a TiFlash store that is not Tombstone exists. Undefined when it accepts.
 */
export function replicationRefusal(cluster: PdCluster, next: PdConfig): string | undefined {
  if (next.enablePlacementRules === cluster.config.enablePlacementRules) return undefined;
  if (!cluster.bootstrapped) return '[PD:cluster:ErrNotBootstrapped]TiKV cluster not bootstrapped, please start TiKV first';
  const tiflash = cluster.stores.list().some((s) => s.engine === 'tiflash' && s.meta !== 'Tombstone');
  return !next.enablePlacementRules && tiflash ? 'cannot disable placement rules with TiFlash nodes' : undefined;
}

const REPLICATION_KEYS = new Set(['max-replicas', 'location-labels', 'strictly-match-label', 'enable-placement-rules', 'isolation-level']);

function toPlain(value: unknown): unknown {
  return value !== null && typeof value === 'object' && 'isLosslessNumber' in value ? Number(String(value)) : value;
}

function updateReplication(ctx: PdApiContext, req: ProxyRequest): ProxyResponse {
  const body = objectBody(req);
  const args = { config: Object.fromEntries(Object.entries(body ?? {}).map(([k, v]) => [k, toPlain(v)])) };
  if (!body) {
    ctx.record({ verb: 'pd.updateReplicationConfig', args, error: 'invalid JSON' });
    return json(400, 'unexpected end of JSON input');
  }
  const result = applyReplicationJson(ctx.cluster.config, body);
  if ('error' in result) {
    ctx.record({ verb: 'pd.updateReplicationConfig', args, error: result.error });
    return json(400, result.error);
  }
  // The handler answers every SetReplicationConfig error with 500.
  const refusal = replicationRefusal(ctx.cluster, result.config);
  if (refusal !== undefined) {
    ctx.record({ verb: 'pd.updateReplicationConfig', args, error: refusal });
    return json(500, refusal);
  }
  ctx.cluster.config = result.config;
  ctx.cluster.changed();
  ctx.record({ verb: 'pd.updateReplicationConfig', args });
  return json(200, 'The config is updated.');
}

/** `POST /pd/api/v1/config` with item names (optionally `replication.` / `schedule.` prefixed). */
function updateConfig(ctx: PdApiContext, req: ProxyRequest): ProxyResponse {
  const body = objectBody(req);
  if (!body) return json(400, 'unexpected end of JSON input');
  let config = ctx.cluster.config;
  for (const [rawKey, value] of Object.entries(body)) {
    const key = rawKey.replace(/^(replication|schedule)\./, '');
    if (REPLICATION_KEYS.has(key)) {
      const result = applyReplicationJson(config, { [key]: value });
      if ('error' in result) return json(400, result.error);
      config = result.config;
    } else if (key === 'max-store-down-time') {
      const ms = typeof value === 'string' ? parseGoDuration(value) : undefined;
      if (ms === undefined) return json(400, `time: invalid duration ${JSON.stringify(value)}`);
      config = { ...config, maxStoreDownTimeMs: ms };
    } else {
      return json(400, `config item ${rawKey} not found`);
    }
  }
  // SetConfig answers every update error with 400.
  const refusal = replicationRefusal(ctx.cluster, config);
  if (refusal !== undefined) return json(400, refusal);
  ctx.cluster.config = config;
  ctx.cluster.changed();
  ctx.record({ verb: 'pd.updateConfig', args: { config: Object.fromEntries(Object.entries(body).map(([k, v]) => [k, toPlain(v)])) } });
  return json(200, 'The config is updated.');
}

/** The config routes. */
export const CONFIG_ROUTES: PdRoute[] = [
  { method: 'GET', path: /^\/pd\/api\/v1\/config$/, handle: (ctx) => json(200, configJson(ctx.cluster)) },
  { method: 'POST', path: /^\/pd\/api\/v1\/config$/, handle: updateConfig },
  { method: 'GET', path: /^\/pd\/api\/v1\/config\/replicate$/, handle: (ctx) => json(200, replicationJson(ctx.cluster)) },
  { method: 'POST', path: /^\/pd\/api\/v1\/config\/replicate$/, handle: updateReplication },
];
