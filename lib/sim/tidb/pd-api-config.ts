/**
 * PD's configuration routes: the whole config, the replication section, and their updates — the
 * replication update decodes as PD's Go structs do (`location-labels` a comma string, booleans as
 * `"true"`/`"false"`), so a client sending the wrong JSON types gets PD's 400.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json, objectBody, parseGoDuration } from './http.js';
import type { PdApiContext, PdRoute } from './pd-api-common.js';
import { applyReplicationJson } from './pd-config.js';
import { configJson, replicationJson } from './pd-json.js';

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
