/**
 * etcd's JSON gateway as PD serves it on its client port (PD's `enable-grpc-gateway`, default true,
 * server/config/config.go; exercised by tests/server/api/etcd_api_test.go in tikv/pd): `POST
 * /v3/kv/range` with a JSON RangeRequest whose `key` / `range_end` are base64, answered with the
 * RangeResponse as grpc-gateway marshals protobuf (proto field names, int64 and uint64 as decimal
 * strings, bytes as base64, zero values left out — so an empty value has no `value` field and an
 * empty result no `kvs` and no `count`). The gateway is etcd's, not PD's API: PD's redirector does
 * not apply; a linearizable read needs a raft leader, and without one etcd fails it with
 * "etcdserver: request timed out" (codes.Unavailable → 503; answered at once here, where etcd first
 * waits out its request timeout). Errors are grpc-gateway's body `{error, code, message}`.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { parse } from 'lossless-json';
import { json } from './http.js';
import type { PdApiContext, PdRoute } from './pd-api-common.js';
import type { EtcdKeyValue } from './pd-etcd.js';

/** gRPC status codes the gateway reports. */
const INVALID_ARGUMENT = 3;
const UNAVAILABLE = 14;

/** The RangeRequest fields the gateway accepts (etcdserverpb.RangeRequest). */
const RANGE_FIELDS = new Set(['key', 'range_end', 'limit', 'revision', 'sort_order', 'sort_target', 'serializable', 'keys_only', 'count_only', 'min_mod_revision', 'max_mod_revision', 'min_create_revision', 'max_create_revision']);

function grpcError(status: number, code: number, message: string): ProxyResponse {
  return json(status, { error: message, code, message });
}

/** A base64 field as bytes (protobuf JSON accepts standard and URL-safe alphabets), or an error text. */
function bytesField(body: Record<string, unknown>, field: string): Buffer | string {
  const raw = body[field];
  if (raw === undefined || raw === null) return Buffer.alloc(0);
  if (typeof raw !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(raw)) return `bad Base64 data in field ${field}`;
  return Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function kvJson(kv: EtcdKeyValue, keysOnly: boolean): Record<string, unknown> {
  const value = !keysOnly && kv.value.length > 0 ? { value: kv.value.toString('base64') } : {};
  return { key: kv.key.toString('base64'), create_revision: String(kv.createRevision), mod_revision: String(kv.modRevision), version: String(kv.version), ...value };
}

/** `POST /v3/kv/range`. */
function range(ctx: PdApiContext, req: ProxyRequest): ProxyResponse {
  let body: unknown;
  try {
    body = req.body.trim() === '' ? {} : parse(req.body);
  } catch (err) {
    return grpcError(400, INVALID_ARGUMENT, err instanceof Error ? err.message : String(err));
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return grpcError(400, INVALID_ARGUMENT, 'json: cannot unmarshal into Go value of type etcdserverpb.RangeRequest');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((f) => !RANGE_FIELDS.has(f));
  if (unknown !== undefined) return grpcError(400, INVALID_ARGUMENT, `unknown field "${unknown}" in etcdserverpb.RangeRequest`);
  const key = bytesField(fields, 'key');
  const end = bytesField(fields, 'range_end');
  if (typeof key === 'string') return grpcError(400, INVALID_ARGUMENT, key);
  if (typeof end === 'string') return grpcError(400, INVALID_ARGUMENT, end);
  if (key.length === 0) return grpcError(400, INVALID_ARGUMENT, 'etcdserver: key is not provided');
  if (!ctx.cluster.hasLeader()) return grpcError(503, UNAVAILABLE, 'etcdserver: request timed out');
  const kvs = ctx.cluster.etcd.range(key, end);
  const header = { cluster_id: String(ctx.cluster.clusterId ?? '0'), member_id: ctx.member.id, revision: String(ctx.cluster.etcd.revision), raft_term: '2' };
  const countOnly = fields['count_only'] === true;
  const keysOnly = fields['keys_only'] === true;
  return json(200, { header, ...(kvs.length > 0 && !countOnly ? { kvs: kvs.map((kv) => kvJson(kv, keysOnly)) } : {}), ...(kvs.length > 0 ? { count: String(kvs.length) } : {}) });
}

/** The gateway routes (local: etcd answers on every member; the leader check is etcd's own). */
export const ETCD_ROUTES: PdRoute[] = [{ method: 'POST', path: /^\/v3\/kv\/range$/, local: true, handle: (ctx, req) => range(ctx, req) }];
