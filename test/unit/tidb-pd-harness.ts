/**
 * A PD cluster model with stand-in processes for the unit tests: members bootstrapped and joined
 * by hand, TiKV stores registered and heartbeating on a virtual clock, and a `call` that serves one
 * HTTP request through the PD API as a member's process would.
 */
import { parse } from 'lossless-json';
import { VirtualClock } from '../../lib/platform/clock.js';
import { type TidbSimKnobs, resolveKnobs } from '../../lib/sim/tidb/knobs.js';
import { handlePdRequest } from '../../lib/sim/tidb/pd-api.js';
import { PdCluster } from '../../lib/sim/tidb/pd-cluster.js';
import type { PdMember } from '../../lib/sim/tidb/pd-members.js';
import type { PdStore } from '../../lib/sim/tidb/pd-stores.js';
import { Rng } from '../../lib/sim/tidb/rng.js';
import type { ProcessAction } from '../../lib/sim/tidb/sim-context.js';

/** How long PD takes to drain `replicas` region replicas off a removing store at the knobs' drain rate. */
export function drainMs(knobs: TidbSimKnobs, replicas: number): number {
  return Math.ceil((replicas * 60_000) / knobs.storeDrainPerMinute);
}

/** An answer with its JSON parsed losslessly. */
export type Reply = { status: number; body: string; json: any };

/** A PD cluster of `members` serving members and `stores` heartbeating TiKV stores. */
export async function startCluster(opts: { members?: number; stores?: number; tiflash?: number; version?: string; knobs?: Partial<TidbSimKnobs> } = {}) {
  const clock = new VirtualClock();
  const knobs = resolveKnobs(opts.knobs);
  const pd = new PdCluster('demo', 'basic', { clock, rng: new Rng(7), knobs });
  const actions: ProcessAction[] = [];
  const members: PdMember[] = [];
  const stores: PdStore[] = [];
  const info = (i: number) => {
    const host = `basic-pd-${i}.basic-pd-peer.demo.svc`;
    return { name: `basic-pd-${i}`, dataUid: `pvc-pd-${i}`, peerUrl: `http://${host}:2380`, clientUrl: `http://${host}:2379`, version: opts.version ?? 'v7.5.0' };
  };
  for (let i = 0; i < (opts.members ?? 3); i++) {
    const joined = i === 0 ? { ok: pd.bootstrapMember(info(0), {}) } : pd.members.join(info(i));
    if (!('ok' in joined)) throw new Error(joined.refused.message);
    pd.members.setServing(joined.ok, true);
    members.push(joined.ok);
    if (i === 0) await clock.advance(knobs.pdElectionMs);
  }
  const addStore = (i: number, engine: 'tikv' | 'tiflash' = 'tikv'): PdStore => {
    const address = `basic-${engine}-${i}.basic-${engine}-peer.demo.svc:${engine === 'tikv' ? 20160 : 3930}`;
    const labels = engine === 'tiflash' ? [{ key: 'engine', value: 'tiflash' }] : [];
    const result = pd.registerStore({ dataUid: `pvc-${engine}-${i}`, podName: `basic-${engine}-${i}`, address, statusAddress: `${address.split(':')[0] ?? ''}:20180`, version: '7.5.0', engine, labels, capacityBytes: 2 ** 34 });
    if (!('ok' in result)) throw new Error(result.refused.message);
    if (engine === 'tikv') stores.push(result.ok);
    return result.ok;
  };
  for (let i = 0; i < (opts.stores ?? 0); i++) addStore(i);
  const tiflash: PdStore[] = [];
  for (let i = 0; i < (opts.tiflash ?? 0); i++) tiflash.push(addStore(i, 'tiflash'));
  const alive = new Set([...stores, ...tiflash]);
  const beat = (): void => {
    for (const s of alive) pd.stores.heartbeat(s);
    clock.setTimer(beat, knobs.storeHeartbeatMs);
  };
  beat();
  await clock.advance(knobs.pdTickMs);
  const call = (method: string, path: string, body?: unknown, member = members[0]): Reply => {
    const url = new URL(path, 'http://pd');
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    if (!member) throw new Error('no member');
    const res = handlePdRequest({ cluster: pd, member, record: (a) => actions.push(a) }, { method, path: url.pathname, query: url.searchParams, body: text, headers: {} });
    let json: unknown;
    try {
      json = parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.status, body: res.body, json };
  };
  const stopStore = (s: PdStore) => {
    alive.delete(s);
    pd.stores.setAlive(s, false);
  };
  return { clock, knobs, pd, members, stores, tiflash, actions, call, info, addStore, stopStore, keepAlive: (s: PdStore) => alive.add(s) };
}
