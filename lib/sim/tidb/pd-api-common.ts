/**
 * The pieces every PD route file shares: the request context, the route shape, and how a model
 * result becomes PD's answer and a recorded action.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json } from './http.js';
import type { PdCluster } from './pd-cluster.js';
import type { PdResult } from './pd-context.js';
import type { PdMember } from './pd-members.js';
import type { ActionSink } from './sim-context.js';

/** What a request is served with: the cluster, the member whose process answers, the action sink. */
export type PdApiContext = { cluster: PdCluster; member: PdMember; record: ActionSink };

/** One route: method, path pattern (groups are parameters), and which middlewares apply. */
export type PdRoute = {
  method: string;
  path: RegExp;
  /** Served by the member itself, without redirecting to the leader. */
  local?: true;
  /** Needs the raft cluster bootstrapped (PD's cluster middleware). */
  bootstrap?: true;
  handle(ctx: PdApiContext, req: ProxyRequest, params: string[]): ProxyResponse;
};

/** Answers `result` with `okBody`, or the refusal as PD renders errors (a JSON string). */
export function answer(result: PdResult<unknown>, okBody: unknown, okStatus = 200): ProxyResponse {
  return 'ok' in result ? json(okStatus, okBody) : json(result.refused.status, result.refused.message);
}

/** Records a mutating call, with the refusal as `error`. */
export function recorded<T>(ctx: PdApiContext, verb: string, args: Record<string, unknown>, result: PdResult<T>): PdResult<T> {
  ctx.record({ verb, args, ...('refused' in result ? { error: result.refused.message } : {}) });
  return result;
}

