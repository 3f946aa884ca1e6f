/**
 * PD's microservice routes (tikv/pd `server/apiv2/handlers/micro_service.go`), through the
 * redirector like every v2 route: `GET /pd/api/v2/ms/members/<svc>` lists the registered servers of
 * a service (Go's nil slice, `null`, when none is), `GET /pd/api/v2/ms/primary/<svc>` the primary's
 * address as a JSON string (`""` when there is none). Both answer 404 "not support micro service"
 * unless PD runs as the API service (its leader started with `services api`); an unknown service
 * name is a 500 for members.
 */
import type { ProxyResponse } from '../proxy.js';
import { json } from './http.js';
import type { PdApiContext, PdRoute } from './pd-api-common.js';

/** The services PD's discovery knows (`GetMSMembers`). */
const KNOWN_SERVICES = new Set(['tso', 'scheduling', 'resource_manager']);

function apiServiceOnly(ctx: PdApiContext, answer: () => ProxyResponse): ProxyResponse {
  const serving = ctx.cluster.members.leader() ?? ctx.member;
  if (serving.apiService !== true) return json(404, 'not support micro service');
  return answer();
}

/** The microservice routes. */
export const MS_ROUTES: PdRoute[] = [
  {
    method: 'GET',
    path: /^\/pd\/api\/v2\/ms\/members\/([^/]+)$/,
    handle: (ctx, _req, [service = '']) =>
      apiServiceOnly(ctx, () => {
        if (!KNOWN_SERVICES.has(service)) return json(500, `unknown service name ${service}`);
        const entries = ctx.cluster.microservices.members(service);
        const body = entries.map((e) => ({ name: e.name, 'service-addr': e.serviceAddr, version: e.version, 'git-hash': '', 'deploy-path': '/', 'start-timestamp': e.startTimestamp }));
        return json(200, body.length === 0 ? null : body);
      }),
  },
  {
    method: 'GET',
    path: /^\/pd\/api\/v2\/ms\/primary\/([^/]+)$/,
    handle: (ctx, _req, [service = '']) => apiServiceOnly(ctx, () => json(200, ctx.cluster.microservices.primary(service)?.serviceAddr ?? '')),
  },
];
