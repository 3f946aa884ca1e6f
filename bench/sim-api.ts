/**
 * Round trips to the simulated API server over loopback HTTP, and how fast a watch delivers a burst
 * of events — the budget the scenario runner works within.
 *
 *   npx tsx bench/sim-api.ts
 */
import { RealClock } from '../lib/platform/clock.js';
import { ProxyRegistry } from '../lib/sim/proxy.js';
import { SimApiServer } from '../lib/sim/server.js';
import { ObjectStore } from '../lib/sim/store.js';
import { type Stats, stats, table } from './stats.js';

const NS = 'bench';

type Rig = { store: ObjectStore; server: SimApiServer; url: string };

async function rig(): Promise<Rig> {
  const store = new ObjectStore(new RealClock(), { historyLimit: 100_000 });
  store.create('Namespace', { metadata: { name: NS } });
  for (let i = 0; i < 100; i++) {
    store.create('Pod', {
      metadata: { name: `pod-${i}`, namespace: NS, labels: { app: 'bench', ordinal: String(i) } },
      spec: { containers: [{ name: 'main', image: 'pingcap/tikv:v8.5.0', ports: [{ containerPort: 20160 }] }] },
    });
  }
  store.create('ConfigMap', { metadata: { name: 'cfg', namespace: NS }, data: { n: '0' } });
  const server = new SimApiServer(store, new ProxyRegistry(store));
  return { store, server, url: await server.listen(0) };
}

async function timed(n: number, fn: (i: number) => Promise<void>): Promise<Stats> {
  for (let i = 0; i < Math.min(50, n); i++) await fn(i); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

async function json(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: HTTP ${res.status}`);
  return res.json();
}

/** Milliseconds from the first of `count` writes until a watch has received all of them. */
async function watchBurst(r: Rig, count: number): Promise<number> {
  const res = await fetch(`${r.url}/api/v1/namespaces/${NS}/configmaps?watch=true&resourceVersion=${r.store.currentResourceVersion()}`);
  const reader = res.body?.getReader();
  if (!reader) throw new Error('watch has no body');
  const t0 = performance.now();
  for (let i = 0; i < count; i++) r.store.create('ConfigMap', { metadata: { name: `w-${i}`, namespace: NS } });
  let seen = 0;
  let tail = '';
  while (seen < count) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`watch ended after ${seen} events`);
    const text = tail + Buffer.from(value).toString('utf8');
    const lines = text.split('\n');
    tail = lines.pop() ?? '';
    seen += lines.length;
  }
  const ms = performance.now() - t0;
  await reader.cancel();
  return ms;
}

/** Runs the API server benchmark and returns its Markdown section. */
export async function benchSimApi(): Promise<string> {
  const r = await rig();
  try {
    const base = `${r.url}/api/v1/namespaces/${NS}`;
    const get = await timed(500, async () => void (await json(`${base}/pods/pod-7`)));
    const list = await timed(200, async () => {
      const body = await json(`${base}/pods?labelSelector=app%3Dbench`);
      if (body.items.length !== 100) throw new Error(`listed ${body.items.length} pods`);
    });
    let current = await json(`${base}/configmaps/cfg`);
    const update = await timed(500, async (i) => {
      current = await json(`${base}/configmaps/cfg`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...current, data: { n: String(i) } }) });
    });
    const watchMs = await watchBurst(r, 1000);
    return [
      '### Simulated API server (loopback HTTP, keep-alive fetch)',
      '',
      table(['operation', 'n', 'median ms', 'p95 ms', 'mean ms'], [
        ['GET one pod', get.n, get.median, get.p95, get.mean],
        ['LIST 100 pods (label selector)', list.n, list.median, list.p95, list.mean],
        ['UPDATE a ConfigMap (with resourceVersion)', update.n, update.median, update.p95, update.mean],
      ]),
      '',
      `Watch: 1000 events (ConfigMap creates) delivered to one HTTP watch in **${watchMs.toFixed(1)} ms** ` +
        `(${((1000 / watchMs) * 1000).toFixed(0)} events/s).`,
    ].join('\n');
  } finally {
    await r.server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchSimApi());
}
