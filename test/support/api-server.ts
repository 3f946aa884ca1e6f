/**
 * A bare simulated API server for tests of API semantics: store, garbage collector and HTTP front
 * end on a virtual clock, without controllers, plus a tiny JSON client.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { VirtualClock } from '../../lib/platform/clock.js';
import { GarbageCollector } from '../../lib/sim/gc.js';
import { ProxyRegistry } from '../../lib/sim/proxy.js';
import { SimApiServer } from '../../lib/sim/server.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { CRD_KIND } from '../../lib/sim/crd/registry.js';
import { backupCrds } from '../../lib/sim/crd/backup.js';
import { tidbMonitorCrd } from '../../lib/sim/crd/monitor.js';
import { tidbInitializerCrd } from '../../lib/sim/crd/tidbinitializer.js';
import { dashboardCrds } from '../../lib/sim/crd/dashboard.js';
import { tidbClusterCrd } from '../../lib/sim/crd/tidbcluster.js';
import { applyRbacFile } from '../../lib/local/function-rbac.js';
import { CLUSTER_ADMIN_USER, TokenRegistry } from '../../lib/sim/authn.js';
import { bootstrapRbacObjects } from '../../lib/sim/bootstrap-rbac.js';
import { ApiGate } from '../../lib/sim/gate.js';
import type { RbacUser } from '../../lib/sim/rbac.js';

/** A running bare server and what tests need to drive it. */
export type BareServer = {
  clock: VirtualClock;
  store: ObjectStore;
  gc: GarbageCollector;
  proxy: ProxyRegistry;
  server: SimApiServer;
  /** Authentication and RBAC, with `as`. */
  gate: ApiGate | undefined;
  url: string;
  kubeConfig: KubeConfig;
  call: (method: string, path: string, body?: unknown, contentType?: string) => Promise<{ status: number; body: any }>;
  close: () => Promise<void>;
};

/**
 * Starts a bare server with namespaces `default` and `demo` and the TidbCluster CRD. With `as`, the
 * server enforces RBAC (infra/k8s/reconciler-rbac.yaml applied): `kubeConfig` authenticates as that
 * user, `call` as the cluster admin.
 */
export async function startBareServer(opts: { historyLimit?: number; token?: string; as?: RbacUser } = {}): Promise<BareServer> {
  const clock = new VirtualClock();
  const store = new ObjectStore(clock, { historyLimit: opts.historyLimit });
  for (const name of ['default', 'demo']) store.create('Namespace', { metadata: { name } });
  store.create(CRD_KIND, tidbClusterCrd());
  // As every world: the backup controllers' CRDs beside the TidbCluster's.
  for (const crd of backupCrds()) store.create(CRD_KIND, crd);
  store.create(CRD_KIND, tidbInitializerCrd());
  store.create(CRD_KIND, tidbMonitorCrd());
  for (const crd of dashboardCrds()) store.create(CRD_KIND, crd);
  const gc = new GarbageCollector(store);
  const proxy = new ProxyRegistry(store);
  const gate = opts.as ? new ApiGate(new TokenRegistry(), store, () => clock.nowMs()) : undefined;
  if (gate) {
    for (const object of bootstrapRbacObjects()) store.create(String(object.kind), object);
    applyRbacFile({ store });
  }
  const server = new SimApiServer(store, proxy, { token: opts.token, bookmarkIntervalMs: 1000, gate });
  const url = await server.listen(0);
  const adminToken = gate ? gate.tokens.issue(CLUSTER_ADMIN_USER) : (opts.token ?? 'any');
  const token = gate && opts.as ? gate.tokens.issue(opts.as) : adminToken;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'sim', server: url, skipTLSVerify: true }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'sim', cluster: 'sim', user: 'u' }],
    currentContext: 'sim',
  });
  const call = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(url + path, {
      method,
      headers: { 'Content-Type': contentType, Authorization: `Bearer ${adminToken}` },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as any };
  };
  const close = async () => {
    gc.stop();
    await server.close();
  };
  return { clock, store, gc, proxy, server, gate, url, kubeConfig, call, close };
}

/** A minimal valid ConfigMap body. */
export function configMap(name: string, data: Record<string, string> = { a: '1' }, labels: Record<string, string> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}
