/**
 * The PD answers that take time, in front of the immediate ones (pd-api.ts), on the simulator's
 * clock: a leader transfer to a member that is not serving blocks until etcd's MoveLeader gives up
 * (pkg/member/member.go `moveLeaderTimeout`, 5 s, release-7.1 … v8.5.5; knob
 * `pdMoveLeaderTimeoutMs`), then 500; and from v8.1.1, a redirected request to a member without a
 * leader waits up to 3 s for one (pkg/utils/apiutil/serverapi/middleware.go `waitForLeader`: 100 ms
 * doubling; knob `pdLeaderWaitMs`) before its 503.
 */
import { type Clock, VirtualClock } from '../../platform/clock.js';
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import { json } from './http.js';
import { handlePdRequest, isServedWithoutLeader, routeOf, waitsForLeader } from './pd-api.js';
import type { PdApiContext } from './pd-api-common.js';

/** PD's redirector: the first interval of its wait for a leader (doubling; the longest wait is the `pdLeaderWaitMs` knob). */
const LEADER_WAIT_FIRST_MS = 100;

const TRANSFER = /^\/pd\/api\/v1\/leader\/transfer\/([^/]+)\/?$/;

/**
 * Blocks the request for `ms` of the simulator's time. On the virtual clock the caller is waiting
 * for this answer, so nothing else would move time forward: time passes here (the world's timers
 * fire meanwhile, e.g. an election that gives PD a leader), as it would while a real request blocks.
 */
async function sleep(clock: Clock, ms: number): Promise<void> {
  if (clock instanceof VirtualClock) return clock.advance(ms);
  return new Promise((resolve) => clock.setTimer(resolve, ms));
}

/** As `waitForLeader`: polls at 100 ms, 200 ms, 400 ms, … until a leader exists or 3 s have passed. */
async function waitForLeader(ctx: PdApiContext, clock: Clock): Promise<void> {
  const maxMs = ctx.cluster.knobs.pdLeaderWaitMs;
  let waitedMs = 0;
  let intervalMs = Math.min(LEADER_WAIT_FIRST_MS, maxMs);
  while (!ctx.cluster.hasLeader() && waitedMs < maxMs) {
    await sleep(clock, intervalMs);
    waitedMs += intervalMs;
    intervalMs = Math.min(intervalMs * 2, maxMs - waitedMs);
  }
}

/**
 * As PD's TransferLeader → ResignEtcdLeader → MoveEtcdLeader: a member of that name that does not
 * serve cannot catch up, so etcd waits out the deadline and PD answers 500 (ErrEtcdMoveLeader). An
 * unknown name is refused at once (pd-api.ts), as is everything else.
 */
async function transferToStopped(ctx: PdApiContext, clock: Clock, to: string): Promise<ProxyResponse | undefined> {
  const target = ctx.cluster.members.get(to);
  if (!ctx.cluster.hasLeader() || !target || target.serving || ctx.cluster.members.leader() === target) return undefined;
  await sleep(clock, ctx.cluster.knobs.pdMoveLeaderTimeoutMs);
  if (target.serving) return undefined;
  const message = '[PD:etcd:ErrEtcdMoveLeader]etcdserver: request timed out, leader transfer took too long';
  ctx.record({ verb: 'pd.transferLeader', args: { to }, error: message });
  return json(500, message);
}

/** Serves one request to a PD member, waiting where PD waits (see the module comment). */
export async function servePdRequest(ctx: PdApiContext, clock: Clock, req: ProxyRequest): Promise<ProxyResponse> {
  const route = routeOf(req);
  if (route && !ctx.cluster.hasLeader() && !isServedWithoutLeader(ctx, route, req) && waitsForLeader(ctx)) await waitForLeader(ctx, clock);
  const transfer = req.method === 'POST' ? TRANSFER.exec(req.path) : null;
  if (transfer?.[1] !== undefined) {
    const refused = await transferToStopped(ctx, clock, decodeURIComponent(transfer[1]));
    if (refused) return refused;
  }
  return handlePdRequest(ctx, req);
}
