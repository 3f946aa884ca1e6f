/**
 * Wall time per virtual hour of the simulated TiDB world: a 3 PD + 3 TiKV + 2 TiDB cluster is
 * brought up through the simulated API server, then one virtual hour runs twice — once with
 * nothing but the simulation's own timers, once with a client polling PD health, PD stores and
 * each TiDB's /status through the proxy every 30 s (a reconciler's resync rhythm).
 *
 *   npx tsx bench/tidb-sim.ts [--seed N]   (also part of npm run bench)
 */
import { VirtualClock } from '../lib/platform/clock.js';
import type { KubeObject } from '../lib/sim/object.js';
import { type HandCluster, componentObjects, discoveryObjects, tidbClusterObject } from '../lib/sim/tidb/manifests.js';
import { type TidbSimulation, startTidbWorld } from '../lib/sim/tidb/simulation.js';
import type { SimWorld } from '../lib/sim/world.js';
import { table } from './stats.js';

const HOUR_MS = 3_600_000;
const PATHS: Record<string, string> = {
  Namespace: '/api/v1/namespaces',
  ConfigMap: '/api/v1/namespaces/demo/configmaps',
  Service: '/api/v1/namespaces/demo/services',
  StatefulSet: '/apis/apps/v1/namespaces/demo/statefulsets',
  Deployment: '/apis/apps/v1/namespaces/demo/deployments',
  TidbCluster: '/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters',
};
const CLUSTER: HandCluster = { namespace: 'demo', name: 'basic', version: 'v7.5.0', replicas: { pd: 3, tikv: 3, tidb: 2 } };

type Bench = { clock: VirtualClock; world: SimWorld; sim: TidbSimulation; call(method: string, path: string, body?: unknown): Promise<number> };

function seedArg(): number {
  const at = process.argv.indexOf('--seed');
  return at >= 0 ? Number(process.argv[at + 1] ?? 1) : 1;
}

async function start(seed: number): Promise<Bench> {
  const clock = new VirtualClock();
  const { world, sim } = await startTidbWorld({ clock, seed });
  const call = async (method: string, path: string, body?: unknown): Promise<number> => {
    const res = await fetch(world.url + path, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    await res.text();
    return res.status;
  };
  return { clock, world, sim, call };
}

/** Creates every object as an operator would and waits for the second TiDB's /status; returns virtual ms. */
async function bringUp(b: Bench): Promise<number> {
  const objects: { kind: string; object: KubeObject }[] = [
    { kind: 'Namespace', object: { metadata: { name: 'demo' } } },
    { kind: 'TidbCluster', object: tidbClusterObject(CLUSTER) },
    ...discoveryObjects(CLUSTER),
    ...(['pd', 'tikv', 'tidb'] as const).flatMap((component) => componentObjects(CLUSTER, component)),
  ];
  const startMs = b.clock.nowMs();
  for (const o of objects) await b.call('POST', PATHS[o.kind] ?? '', o.object);
  while ((await b.call('GET', '/api/v1/namespaces/demo/pods/basic-tidb-1:10080/proxy/status')) !== 200) await b.clock.advance(1000);
  return b.clock.nowMs() - startMs;
}

/** One virtual hour with a client polling like a reconciler's resync. */
async function polledHour(b: Bench): Promise<void> {
  for (let t = 0; t < HOUR_MS; t += 30_000) {
    await b.call('GET', '/api/v1/namespaces/demo/services/basic-pd:2379/proxy/pd/api/v1/health');
    await b.call('GET', '/api/v1/namespaces/demo/services/basic-pd:2379/proxy/pd/api/v1/stores');
    for (const pod of ['basic-tidb-0', 'basic-tidb-1']) await b.call('GET', `/api/v1/namespaces/demo/pods/${pod}:10080/proxy/status`);
    await b.clock.advance(30_000);
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const startMs = performance.now();
  await fn();
  return performance.now() - startMs;
}

/** Runs the TiDB simulation benchmark and returns its Markdown section. */
export async function benchTidbSim(seed = 1): Promise<string> {
  const b = await start(seed);
  let upMs = 0;
  const bringUpWall = await timed(async () => (upMs = await bringUp(b)));
  const idleWall = await timed(() => b.clock.advance(HOUR_MS));
  const pollWall = await timed(() => polledHour(b));
  const snapshot = b.sim.snapshot('demo', 'basic');
  const violations = b.sim.invariants().flatMap((i) => i.violations);
  b.sim.stop();
  await b.world.stop();
  const processes = 3 + 3 + 2;
  return [
    `### Simulated TiDB processes (3 PD + 3 TiKV + 2 TiDB, seed ${seed})`,
    '',
    table(['phase', 'virtual time', 'wall ms', 'virtual s per wall s'], [
      ['bring-up by hand through the API server', `${(upMs / 1000).toFixed(0)} s`, bringUpWall.toFixed(0), (upMs / bringUpWall).toFixed(0)],
      ['one idle hour', '1 h', idleWall.toFixed(0), (HOUR_MS / idleWall).toFixed(0)],
      ['one hour polled every 30 s (PD health, stores, 2 × TiDB /status)', '1 h', pollWall.toFixed(0), (HOUR_MS / pollWall).toFixed(0)],
    ]),
    '',
    `Simulated processes × virtual seconds per wall second (polled hour): ${((processes * HOUR_MS) / pollWall).toFixed(0)}.`,
    `End state: ${snapshot.members.length} PD members, leader ${snapshot.leader ?? 'none'}, stores ${snapshot.stores.map((s) => `${s.id}:${s.state}/${s.leaderCount} leaders`).join(', ')}; ${violations.length} invariant violations.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchTidbSim(seedArg()));
}
