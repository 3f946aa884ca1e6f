/**
 * PD's store and scheduler routes. Stores: list (default Up+Offline, `?state=` picks), one store,
 * DELETE (Offline), state Up (cancel), labels. Schedulers: the list of names, evict-leader add and
 * remove — in the merged form PD uses since v4.0 (one `evict-leader-scheduler` whose config lists
 * the stores, expanded by `scheduler-config/evict-leader-scheduler/list`), or one scheduler per
 * store (`evict-leader-scheduler-<id>`) for older versions.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json, notFoundPage, objectBody, parseUint64, uintDigits } from './http.js';
import { type PdApiContext, type PdRoute, answer, recorded } from './pd-api-common.js';
import { storeJson } from './pd-json.js';
import { type PdResult, refuse } from './pd-context.js';
import { STORE_STATE_NUMBER } from './pd-stores.js';
import { isAtLeast } from './version.js';

const EVICT = 'evict-leader-scheduler';
const LABEL_KEY = /^[$]?[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^[-A-Za-z0-9_./]*$/;

/** Merged evict-leader scheduler (PD ≥ v4.0): one scheduler, stores in its config. */
function isMerged(ctx: PdApiContext): boolean {
  return isAtLeast(ctx.cluster.members.leader()?.version ?? ctx.member.version, 'v4.0.0');
}

function listStores(ctx: PdApiContext, req: ProxyRequest): ProxyResponse {
  const raw = req.query.getAll('state');
  const states = raw.length > 0 ? raw.map(Number) : [STORE_STATE_NUMBER.Up, STORE_STATE_NUMBER.Offline];
  if (states.some((n) => !Number.isInteger(n))) return json(400, `strconv.ParseInt: parsing "${raw.join(',')}": invalid syntax`);
  const stores = ctx.cluster.stores.list().filter((s) => states.includes(STORE_STATE_NUMBER[s.meta]));
  return json(200, { count: stores.length, stores: stores.map((s) => storeJson(ctx.cluster, s)) });
}

function withStoreId(raw: string, fn: (id: string) => ProxyResponse): ProxyResponse {
  const parsed = parseUint64(raw);
  return 'error' in parsed ? json(400, parsed.error) : fn(parsed.value);
}

function getStore(ctx: PdApiContext, id: string): ProxyResponse {
  const store = ctx.cluster.stores.get(id);
  return store ? json(200, storeJson(ctx.cluster, store)) : json(404, `[PD:core:ErrStoreNotFound]store id ${id} not found`);
}

function setStoreState(ctx: PdApiContext, id: string, req: ProxyRequest): ProxyResponse {
  const state = req.query.get('state') ?? '';
  if (state === 'Up') return answer(recorded(ctx, 'pd.setStoreState', { id, state }, ctx.cluster.stores.setUp(id)), "The store's state is updated.");
  if (state === 'Offline') return answer(ctx.cluster.deleteStore(id), "The store's state is updated.");
  return json(400, `invalid state ${state}`);
}

function setLabels(ctx: PdApiContext, id: string, req: ProxyRequest): ProxyResponse {
  const body = objectBody(req);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(body ?? {})) if (typeof v === 'string') labels[k] = v;
  const args = { id, labels };
  if (!body || Object.keys(labels).length !== Object.keys(body).length) {
    return answer(recorded(ctx, 'pd.setStoreLabels', args, refuse(400, 'json: cannot unmarshal into Go value of type map[string]string')), null);
  }
  const badKey = Object.keys(labels).find((k) => !LABEL_KEY.test(k));
  const badValue = Object.values(labels).find((v) => !LABEL_VALUE.test(v));
  const checked: PdResult =
    badKey !== undefined ? refuse(400, `[PD:core:ErrInvalidLabelKey]invalid label key ${badKey}`) : badValue !== undefined ? refuse(400, `[PD:core:ErrInvalidLabelValue]invalid label value ${badValue}`) : ctx.cluster.stores.setLabels(id, labels);
  return answer(recorded(ctx, 'pd.setStoreLabels', args, checked), "The store's label is updated.");
}

function schedulerNames(ctx: PdApiContext): string[] {
  const evict = [...ctx.cluster.evicting.keys()];
  const evictNames = evict.length === 0 ? [] : isMerged(ctx) ? [EVICT] : evict.map((id) => `${EVICT}-${id}`);
  return [...ctx.cluster.builtinSchedulers, ...evictNames].sort();
}

function addScheduler(ctx: PdApiContext, req: ProxyRequest): ProxyResponse {
  const body = objectBody(req);
  const name = body?.name;
  if (typeof name !== 'string') return json(400, '[PD:scheduler:ErrSchedulerNotFound]scheduler not found');
  if (name !== EVICT) {
    if (ctx.cluster.builtinSchedulers.has(name)) return json(500, '[PD:scheduler:ErrSchedulerExisted]scheduler existed');
    ctx.cluster.builtinSchedulers.add(name);
    return json(200, 'The scheduler is created.');
  }
  const storeId = uintDigits(body?.store_id);
  if (storeId === undefined) return json(400, 'missing store id');
  const exists = ctx.cluster.evicting.has(storeId);
  // Before the merge each store had its own scheduler, and adding it twice failed.
  const result: PdResult = exists && !isMerged(ctx) ? refuse(500, '[PD:scheduler:ErrSchedulerExisted]scheduler existed') : ctx.cluster.addEvictLeader(storeId);
  return answer(recorded(ctx, 'pd.addEvictLeaderScheduler', { storeId }, result), 'The scheduler is created.');
}

function deleteScheduler(ctx: PdApiContext, name: string): ProxyResponse {
  const perStore = new RegExp(`^${EVICT}-(\\d+)$`).exec(name);
  if (perStore?.[1] !== undefined) {
    const storeId = perStore[1];
    const result = recorded(ctx, 'pd.removeEvictLeaderScheduler', { storeId }, ctx.cluster.removeEvictLeader(storeId));
    return answer(result, isMerged(ctx) ? null : 'The scheduler is removed.');
  }
  if (name === EVICT && ctx.cluster.evicting.size > 0) {
    for (const id of [...ctx.cluster.evicting.keys()]) recorded(ctx, 'pd.removeEvictLeaderScheduler', { storeId: id }, ctx.cluster.removeEvictLeader(id));
    return json(200, 'The scheduler is removed.');
  }
  if (ctx.cluster.builtinSchedulers.delete(name)) return json(200, 'The scheduler is removed.');
  return json(404, '[PD:scheduler:ErrSchedulerNotFound]scheduler not found');
}

function evictLeaderConfig(ctx: PdApiContext): ProxyResponse {
  if (ctx.cluster.evicting.size === 0 || !isMerged(ctx)) return notFoundPage();
  const ranges = Object.fromEntries([...ctx.cluster.evicting.keys()].map((id) => [id, [{ 'start-key': '', 'end-key': '' }]]));
  return json(200, { 'store-id-ranges': ranges, batch: 3 });
}

/** The store and scheduler routes. */
export const STORE_ROUTES: PdRoute[] = [
  { method: 'GET', path: /^\/pd\/api\/v1\/stores$/, bootstrap: true, handle: listStores },
  { method: 'GET', path: /^\/pd\/api\/v1\/store\/([^/]+)$/, bootstrap: true, handle: (ctx, _r, [id = '']) => withStoreId(id, (sid) => getStore(ctx, sid)) },
  {
    method: 'DELETE',
    path: /^\/pd\/api\/v1\/store\/([^/]+)$/,
    bootstrap: true,
    handle: (ctx, _r, [id = '']) => withStoreId(id, (sid) => answer(recorded(ctx, 'pd.deleteStore', { id: sid }, ctx.cluster.deleteStore(sid)), "The store is set as Offline.")),
  },
  { method: 'POST', path: /^\/pd\/api\/v1\/store\/([^/]+)\/state$/, bootstrap: true, handle: (ctx, req, [id = '']) => withStoreId(id, (sid) => setStoreState(ctx, sid, req)) },
  { method: 'POST', path: /^\/pd\/api\/v1\/store\/([^/]+)\/label$/, bootstrap: true, handle: (ctx, req, [id = '']) => withStoreId(id, (sid) => setLabels(ctx, sid, req)) },
  { method: 'GET', path: /^\/pd\/api\/v1\/schedulers$/, bootstrap: true, handle: (ctx) => json(200, schedulerNames(ctx)) },
  { method: 'POST', path: /^\/pd\/api\/v1\/schedulers$/, bootstrap: true, handle: addScheduler },
  { method: 'DELETE', path: /^\/pd\/api\/v1\/schedulers\/([^/]+)$/, bootstrap: true, handle: (ctx, _r, [name = '']) => deleteScheduler(ctx, name) },
  { method: 'GET', path: /^\/pd\/api\/v1\/scheduler-config\/evict-leader-scheduler\/list$/, bootstrap: true, handle: (ctx) => evictLeaderConfig(ctx) },
];
