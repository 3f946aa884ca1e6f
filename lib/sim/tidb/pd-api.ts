/**
 * PD's HTTP API as one member's process serves it: the same paths, JSON bodies and status codes as
 * the real server. Requests other than the member-local ones pass PD's redirector, so without a
 * leader they fail with 503 "no leader" (which is what losing raft quorum looks like to a client);
 * store and scheduler routes pass the cluster middleware, so before the first TiKV store they fail
 * with 500 "TiKV cluster not bootstrapped, please start TiKV first".
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { goTime, json, notFoundPage, parseUint64, text, uint64 } from './http.js';
import { STORE_ROUTES } from './pd-api-stores.js';
import { CONFIG_ROUTES } from './pd-api-config.js';
import { ETCD_ROUTES } from './pd-api-etcd.js';
import { MS_ROUTES } from './pd-api-ms.js';
import type { PdCluster } from './pd-cluster.js';
import type { PdResult } from './pd-context.js';
import { type PdApiContext, type PdRoute, answer, recorded } from './pd-api-common.js';
import { healthJson, memberJson, membersJson } from './pd-json.js';
import type { PdMember } from './pd-members.js';
import { isAtLeast } from './version.js';

/** The request context, re-exported for callers of `handlePdRequest`. */
export type { PdApiContext } from './pd-api-common.js';

const NOT_BOOTSTRAPPED = '[PD:cluster:ErrNotBootstrapped]TiKV cluster not bootstrapped, please start TiKV first';

/**
 * As PD's `DeleteMemberByName` / `DeleteMemberByID` (server/api/member.go): a name no member has
 * is 404 (a member that never started has no name to find); an id goes straight to etcd's
 * RemoveMember, whose "member not found" is a 500.
 */
function deleteMember(ctx: PdApiContext, member: PdMember | undefined, label: string, args: Record<string, unknown>): ProxyResponse {
  if (!member) {
    const [status, message] = 'id' in args ? [500, 'etcdserver: member not found'] : [404, `not found, pd: ${label}`];
    ctx.record({ verb: 'pd.deleteMember', args, error: message });
    return json(status, message);
  }
  return answer(recorded(ctx, 'pd.deleteMember', args, ctx.cluster.members.remove(member)), `removed, pd: ${label}`);
}

const MEMBER_ROUTES: PdRoute[] = [
  { method: 'GET', path: /^\/pd\/api\/v1\/health$/, handle: (ctx) => json(200, ctx.cluster.members.list().map(healthJson)) },
  { method: 'GET', path: /^\/pd\/api\/v1\/members$/, handle: (ctx) => json(200, membersJson(ctx.cluster)) },
  {
    method: 'DELETE',
    path: /^\/pd\/api\/v1\/members\/name\/([^/]+)$/,
    handle: (ctx, _req, [name = '']) => deleteMember(ctx, ctx.cluster.members.get(name), name, { name }),
  },
  {
    method: 'DELETE',
    path: /^\/pd\/api\/v1\/members\/id\/([^/]+)$/,
    handle: (ctx, _req, [raw = '']) => {
      const parsed = parseUint64(raw);
      if ('error' in parsed) return json(400, parsed.error);
      const member = ctx.cluster.members.byIdOf(parsed.value);
      return deleteMember(ctx, member, parsed.value, { id: parsed.value });
    },
  },
  { method: 'GET', path: /^\/pd\/api\/v1\/leader$/, handle: (ctx) => json(200, memberJson(ctx.cluster.members.leader() ?? ctx.member)) },
  {
    method: 'POST',
    path: /^\/pd\/api\/v1\/leader\/transfer\/([^/]+)$/,
    handle: (ctx, _req, [to = '']) => {
      const leader = ctx.cluster.members.leader();
      const result: PdResult = leader?.name === to ? { ok: true } : ctx.cluster.members.transferLeader(to);
      return answer(recorded(ctx, 'pd.transferLeader', { to }, result), 'The transfer command is submitted.');
    },
  },
  { method: 'GET', path: /^\/pd\/api\/v1\/cluster$/, handle: (ctx) => json(200, { id: uint64(ctx.cluster.clusterId ?? '0'), max_peer_count: ctx.cluster.config.maxReplicas }) },
  { method: 'GET', path: /^\/pd\/api\/v1\/cluster\/status$/, handle: (ctx) => json(200, clusterStatus(ctx.cluster)) },
  { method: 'GET', path: /^\/pd\/api\/v1\/version$/, handle: (ctx) => json(200, { version: ctx.member.version }) },
  { method: 'GET', path: /^\/pd\/api\/v1\/admin\/cluster\/markers\/snapshot-recovering$/, handle: () => json(200, { marked: false }) },
  // Redirected like any path before v8.5.5 (see isServedWithoutLeader).
  { method: 'GET', path: /^\/pd\/api\/v1\/ping$/, handle: () => text(200, '', false) },
  { method: 'GET', path: /^\/pd\/api\/v2\/ready$/, local: true, handle: (ctx, req) => ready(ctx, req) },
];

function clusterStatus(cluster: PdCluster): Record<string, unknown> {
  const full = cluster.book.all().every((r) => r.peers.length >= cluster.config.maxReplicas);
  return { ...(cluster.bootstrapped ? { raft_bootstrap_time: goTime(cluster.stores.list()[0]?.startMs ?? 0) } : {}), is_initialized: cluster.bootstrapped && full, replication_status: '' };
}

/**
 * `/pd/api/v2/ready` exists from PD v8.5.2: 200 once the member has loaded its regions, 500
 * before. Older versions answer 404 (which TiDB Operator reads as ready).
 */
function ready(ctx: PdApiContext, req: ProxyRequest): ProxyResponse {
  if (!isAtLeast(ctx.member.version, 'v8.5.2')) return notFoundPage();
  const loaded = ctx.member.serving && ctx.cluster.clock.nowMs() - ctx.member.servingSinceMs >= ctx.cluster.knobs.pdRegionLoadMs;
  if (req.query.has('verbose')) return json(loaded ? 200 : 500, { region_loaded: loaded });
  return text(loaded ? 200 : 500, '', false);
}

const ROUTES: PdRoute[] = [...MEMBER_ROUTES, ...CONFIG_ROUTES, ...STORE_ROUTES, ...ETCD_ROUTES, ...MS_ROUTES];

/**
 * The paths PD ≥ v8.5.5 serves on the member itself, leader or not (pkg/utils/apiutil/serverapi/
 * middleware.go `localOnlyPaths`, and GET /config); older versions redirect them to the leader.
 */
const LOCAL_ONLY_FROM_V855 = ['/pd/api/v1/admin/log', '/pd/api/v1/status', '/pd/api/v1/health', '/pd/api/v1/ping', '/pd/api/v1/version', '/pd/api/v1/debug/pprof'];

/** Whether the member answers `route` itself while PD has no leader (PD's redirector). */
export function isServedWithoutLeader(ctx: PdApiContext, route: Pick<PdRoute, 'local'>, req: Pick<ProxyRequest, 'method' | 'path'>): boolean {
  if (route.local) return true;
  if (!isAtLeast(ctx.member.version, 'v8.5.5')) return false;
  if (req.path === '/pd/api/v1/config' && req.method === 'GET') return true;
  return LOCAL_ONLY_FROM_V855.some((p) => req.path.startsWith(p));
}

/** Whether this member's redirector waits up to 3 s for a leader before answering 503 (PD ≥ v8.1.1). */
export function waitsForLeader(ctx: PdApiContext): boolean {
  return isAtLeast(ctx.member.version, 'v8.1.1');
}

/**
 * PD's redirector without a leader: 503 "no leader" before v8.1.1; from v8.1.1 (after waiting for
 * one, `waitForLeader`) 503 with ErrRedirectNoLeader.
 */
function noLeader(ctx: PdApiContext): ProxyResponse {
  return waitsForLeader(ctx) ? text(503, '[PD:apiutil:ErrRedirectNoLeader]redirect finds no leader') : text(503, 'no leader');
}

/** The route `req` goes to, if any (for callers that decide before serving, like the leader wait). */
export function routeOf(req: Pick<ProxyRequest, 'method' | 'path'>): PdRoute | undefined {
  const path = req.path.replace(/\/+$/, '') || '/';
  return ROUTES.find((r) => r.method === req.method && r.path.test(path));
}

/** Serves one request to a PD member. */
export function handlePdRequest(ctx: PdApiContext, req: ProxyRequest): ProxyResponse {
  const path = req.path.replace(/\/+$/, '') || '/';
  let pathMatched = false;
  for (const route of ROUTES) {
    const match = route.path.exec(path);
    if (!match) continue;
    pathMatched = true;
    if (route.method !== req.method) continue;
    if (!ctx.cluster.hasLeader() && !isServedWithoutLeader(ctx, route, req)) return noLeader(ctx);
    if (route.bootstrap && !ctx.cluster.bootstrapped) return json(500, NOT_BOOTSTRAPPED);
    return route.handle(ctx, req, match.slice(1).map(decodeURIComponent));
  }
  return pathMatched ? text(405, '', false) : notFoundPage();
}
