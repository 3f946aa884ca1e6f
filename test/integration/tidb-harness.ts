/**
 * A simulated world with TiDB processes, driven over HTTP like an operator would: create objects
 * through the API server, call PD/TiKV/TiDB through the service and pod proxy paths, and let
 * virtual time pass until a condition holds.
 */
import { afterEach } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ComponentCaller } from '../../lib/components/caller.js';
import { SimComponentNetwork } from '../../lib/local/sim-network.js';
import { parse } from 'lossless-json';
import { VirtualClock } from '../../lib/platform/clock.js';
import { NO_RETRY } from '../../lib/platform/retry.js';
import type { KubeObject } from '../../lib/sim/object.js';
import type { TidbSimKnobs } from '../../lib/sim/tidb/knobs.js';
import { type HandCluster, type SetComponent, componentObjects, discoveryObjects, tidbClusterObject } from '../../lib/sim/tidb/manifests.js';
import type { ProcessAction } from '../../lib/sim/tidb/sim-context.js';
import { startTidbWorld } from '../../lib/sim/tidb/simulation.js';

/** An HTTP answer, JSON parsed losslessly when it is JSON. */
export type Answer = { status: number; text: string; json: any };

const COLLECTIONS: Record<string, string> = {
  Namespace: '/api/v1/namespaces',
  ConfigMap: '/api/v1/namespaces/{ns}/configmaps',
  Service: '/api/v1/namespaces/{ns}/services',
  Pod: '/api/v1/namespaces/{ns}/pods',
  PersistentVolumeClaim: '/api/v1/namespaces/{ns}/persistentvolumeclaims',
  StatefulSet: '/apis/apps/v1/namespaces/{ns}/statefulsets',
  Deployment: '/apis/apps/v1/namespaces/{ns}/deployments',
  TidbCluster: '/apis/pingcap.com/v1alpha1/namespaces/{ns}/tidbclusters',
};

/** The cluster the tests build by default: basic in demo, v7.5.0, 3 PD, 3 TiKV, 1 TiDB. */
export function handCluster(replicas: Partial<HandCluster['replicas']> = {}, extra: Partial<HandCluster> = {}): HandCluster {
  return { namespace: 'demo', name: 'basic', version: 'v7.5.0', replicas: { pd: 3, tikv: 3, tidb: 1, ...replicas }, ...extra };
}

/** Starts a world and returns the verbs a test drives it with. */
export async function startWorld(opts: { seed?: number; knobs?: Partial<TidbSimKnobs>; rbac?: boolean } = {}) {
  const clock = new VirtualClock();
  const actions: ProcessAction[] = [];
  // A test awaits each request before it advances the virtual clock, so PD's answers that wait on
  // that clock (a leader wait, a blocked leader transfer) answer at once here unless a test asks.
  const knobs: Partial<TidbSimKnobs> = { pdLeaderWaitMs: 0, pdMoveLeaderTimeoutMs: 0, ...opts.knobs };
  const { world, sim } = await startTidbWorld({ clock, seed: opts.seed ?? 1, knobs, record: (a) => actions.push(a), rbac: opts.rbac });
  const api = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    // As the cluster admin (the token is needed only when the world enforces RBAC).
    const auth: Record<string, string> = world.token ? { Authorization: `Bearer ${world.token}` } : {};
    const res = await fetch(world.url + path, { method, headers: { ...auth, 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: unknown;
    try {
      // PD bodies carry uint64s past 2^53: parse proxied answers losslessly, Kubernetes objects plainly.
      json = path.includes('/proxy/') ? parse(text) : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  };
  const collection = (kind: string, ns: string): string => (COLLECTIONS[kind] ?? '').replace('{ns}', ns);
  const create = async (kind: string, object: KubeObject): Promise<Answer> => {
    const res = await api('POST', collection(kind, object.metadata.namespace ?? 'demo'), object);
    if (res.status >= 300) throw new Error(`create ${kind} ${object.metadata.name ?? ''}: ${res.status} ${res.text}`);
    return res;
  };
  const object = (kind: string, name: string, ns = 'demo') => api('GET', `${collection(kind, ns)}/${name}`);
  const remove = (kind: string, name: string, ns = 'demo') => api('DELETE', `${collection(kind, ns)}/${name}`);
  const patch = (kind: string, name: string, body: unknown, ns = 'demo') => api('PATCH', `${collection(kind, ns)}/${name}`, body);
  /** Reads an object, changes it with `edit`, and writes it back (PUT with its resourceVersion). */
  const edit = async (kind: string, name: string, change: (o: any) => void, ns = 'demo'): Promise<Answer> => {
    const current = (await object(kind, name, ns)).json;
    change(current);
    const res = await api('PUT', `${collection(kind, ns)}/${name}`, current);
    if (res.status >= 300) throw new Error(`update ${kind} ${name}: ${res.status} ${res.text}`);
    return res;
  };
  const pd = (path: string, method = 'GET', body?: unknown, c = 'basic', ns = 'demo') => api(method, `/api/v1/namespaces/${ns}/services/${c}-pd:2379/proxy${path}`, body);
  const podProxy = (pod: string, port: number, path: string, method = 'GET', body?: unknown, ns = 'demo') => api(method, `/api/v1/namespaces/${ns}/pods/${pod}:${port}/proxy${path}`, body);
  /** Advances time in `stepMs` steps until `check` holds; throws after `timeoutMs`. */
  const waitFor = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10 * 60_000, stepMs = 1000): Promise<number> => {
    const start = clock.nowMs();
    for (;;) {
      if (await check()) return clock.nowMs() - start;
      if (clock.nowMs() - start >= timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await clock.advance(stepMs);
    }
  };
  const deploy = async (c: HandCluster, components: (SetComponent | 'discovery' | 'tidbcluster')[]): Promise<void> => {
    if ((await object('Namespace', c.namespace, '')).status === 404) await create('Namespace', { metadata: { name: c.namespace } });
    for (const component of components) {
      const objects = component === 'tidbcluster' ? [{ kind: 'TidbCluster', object: tidbClusterObject(c) }] : component === 'discovery' ? discoveryObjects(c) : componentObjects(c, component);
      for (const o of objects) await create(o.kind, o.object);
    }
  };
  const stop = async (): Promise<void> => {
    sim.stop();
    await world.stop();
  };
  return { clock, world, sim, actions, api, create, object, remove, patch, edit, pd, podProxy, waitFor, deploy, stop };
}

/** The world verbs a test gets. */
export type World = Awaited<ReturnType<typeof startWorld>>;

/**
 * A component caller as a function attached to the cluster's VPC has it (`inVpc`, the default) or
 * one outside it: straight to the pods, names resolved through the API server, the cluster client
 * certificate presented under TLS.
 */
export function directCaller(w: World, inVpc = true, timeoutMs = 2000): ComponentCaller {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(JSON.stringify(w.world.kubeconfig()));
  // No in-call retries: their waits run on the virtual clock, which only the test advances.
  return ComponentCaller.direct(kubeConfig, new SimComponentNetwork(w.world.proxy, { inVpc }), { timeoutMs, retry: NO_RETRY });
}

/** Waits for PD to list `count` healthy members through the `<tc>-pd` service. */
export async function waitForHealthyPd(w: World, count: number, timeoutMs = 5 * 60_000): Promise<number> {
  return w.waitFor(`${count} healthy PD members`, async () => {
    const res = await w.pd('/pd/api/v1/health');
    return res.status === 200 && res.json.length === count && res.json.every((m: { health: boolean }) => m.health);
  }, timeoutMs);
}

/** Waits for PD to list `count` stores in state Up. */
export async function waitForUpStores(w: World, count: number, timeoutMs = 5 * 60_000): Promise<number> {
  return w.waitFor(`${count} Up stores`, async () => {
    const res = await w.pd('/pd/api/v1/stores');
    return res.status === 200 && res.json.stores.filter((s: any) => s.store.state_name === 'Up').length === count;
  }, timeoutMs);
}

/**
 * One world per test, stopped after it (registers the `afterEach`; call it at a test file's top
 * level): `begin` starts a world with a hand-made cluster of `replicas` and `components` and waits
 * for PD; `track` hands a world the test started itself over to the same clean-up.
 */
export function worldPerTest(): {
  begin: (replicas: Parameters<typeof handCluster>[0], components: Parameters<World['deploy']>[1]) => Promise<World>;
  track: (w: World) => World;
} {
  let world: World | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });
  const track = (w: World): World => (world = w);
  const begin = async (replicas: Parameters<typeof handCluster>[0], components: Parameters<World['deploy']>[1]): Promise<World> => {
    const w = track(await startWorld());
    await w.deploy(handCluster(replicas), ['tidbcluster', 'discovery', 'pd', ...components]);
    await waitForHealthyPd(w, handCluster(replicas).replicas.pd);
    return w;
  };
  return { begin, track };
}
