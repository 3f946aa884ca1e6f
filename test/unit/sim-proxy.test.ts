import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { ApiError } from '../../lib/sim/api-error.js';
import { ProxyRegistry, type ProxyRequest } from '../../lib/sim/proxy.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { Rng } from '../../lib/sim/tidb/rng.js';

const NS = 'demo';
const PORT = 2379;

type Backend = { name: string; ready: boolean; listening: boolean };

/**
 * A store with Service `svc` on port 2379 selecting `app=pd`, one pod per backend (Running; Ready as
 * given), and a proxy drawing from a seeded generator. A listening backend answers with its name; a
 * Ready one that does not listen refuses the connection, as a crash-looping process between restarts.
 */
function world(backends: Backend[], seed: number) {
  const store = new ObjectStore(new VirtualClock());
  store.create('Namespace', { metadata: { name: NS } });
  store.create('Service', { metadata: { name: 'svc', namespace: NS }, spec: { selector: { app: 'pd' }, ports: [{ name: 'client', port: PORT, targetPort: PORT }] } });
  const rng = new Rng(seed);
  const proxy = new ProxyRegistry(store, () => rng.next());
  backends.forEach((b, i) => {
    const conditions = [{ type: 'Ready', status: b.ready ? 'True' : 'False' }];
    store.create('Pod', {
      metadata: { name: b.name, namespace: NS, labels: { app: 'pd' } },
      spec: { containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }] },
      status: { phase: 'Running', podIP: `10.1.0.${i + 2}`, conditions },
    });
    if (b.listening) proxy.register(NS, b.name, PORT, () => ({ status: 200, body: b.name }));
  });
  return { store, proxy };
}

const REQUEST: ProxyRequest = { method: 'GET', path: '/pd/api/v1/members', query: new URLSearchParams(), body: '', headers: {} };

/** The backend a request through the Service reached, or `refused` when the pod did not listen. */
async function callService(proxy: ProxyRegistry): Promise<string> {
  try {
    return (await proxy.toService(NS, 'svc', String(PORT), REQUEST)).body;
  } catch (err) {
    if (err instanceof ApiError && err.code === 503 && err.message.includes('connection refused')) return 'refused';
    throw err;
  }
}

async function callMany(proxy: ProxyRegistry, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await callService(proxy));
  return out;
}

const serving = (name: string): Backend => ({ name, ready: true, listening: true });

describe('service proxy: endpoint choice', () => {
  it.each([
    { name: 'three ready endpoints share the requests, an unready one gets none', backends: [serving('pd-0'), serving('pd-1'), serving('pd-2'), { name: 'pd-3', ready: false, listening: true }], expected: ['pd-0', 'pd-1', 'pd-2'] },
    { name: 'a single ready endpoint gets every request', backends: [serving('pd-0'), { name: 'pd-1', ready: false, listening: true }], expected: ['pd-0'] },
  ])('$name', async ({ backends, expected }) => {
    // Prepare
    const { proxy } = world(backends, 7);

    // Act
    const reached = await callMany(proxy, 900);

    // Assess
    const counts = new Map<string, number>();
    for (const r of reached) counts.set(r, (counts.get(r) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(expected);
    // Each ready endpoint near its fair share (900 / n), far from all or nothing.
    for (const name of expected) expect(Math.abs((counts.get(name) ?? 0) - 900 / expected.length)).toBeLessThan(900 / expected.length / 4);
  });

  it('one seed picks the same endpoints every run; another seed picks others', async () => {
    // Prepare
    const backends = [serving('pd-0'), serving('pd-1'), serving('pd-2')];

    // Act
    const first = await callMany(world(backends, 14).proxy, 50);
    const again = await callMany(world(backends, 14).proxy, 50);
    const other = await callMany(world(backends, 15).proxy, 50);

    // Assess
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it.each([1, 2, 3, 14, 99])('a caller in step with another is not captured by refusing endpoints (seed %i)', async (seed) => {
    // Prepare: four Ready endpoints, the last two not listening (crash-looping between restarts).
    // Each round another caller makes two requests, then this caller makes two: a shared rotation
    // would hand this caller the two refusing endpoints in every round.
    const { proxy } = world([serving('pd-0'), serving('pd-1'), { name: 'pd-2', ready: true, listening: false }, { name: 'pd-3', ready: true, listening: false }], seed);

    // Act
    const mine: string[] = [];
    for (let round = 0; round < 30; round++) {
      await callMany(proxy, 2);
      mine.push(...(await callMany(proxy, 2)));
    }

    // Assess
    const answered = mine.filter((r) => r !== 'refused');
    expect(answered.length).toBeGreaterThan(10);
    expect(mine).toContain('refused');
  });
});
