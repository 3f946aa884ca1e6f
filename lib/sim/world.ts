/**
 * The simulated world in one object: the object store, the controllers (StatefulSet, Deployment,
 * Endpoints, volumes, garbage collector), the kubelet, the proxy registry and the HTTP API server,
 * all on one clock. `sim serve`, `npm start`, the scenario runner and the tests all build it here.
 */
import type { Clock } from '../platform/clock.js';
import type { ErrorSink } from './controllers/base.js';
import { SimControllers } from './controllers/index.js';
import type { NodesSpec } from './nodes.js';
import type { StorageClassSim } from './storage-classes.js';
import { GarbageCollector } from './gc.js';
import { simKubeconfig } from './kubeconfig.js';
import { ProxyRegistry } from './proxy.js';
import type { ContainerRuntime } from './runtime.js';
import { SimApiServer, type RequestHook } from './server.js';
import { CLUSTER_ADMIN_USER, TokenRegistry } from './authn.js';
import { bootstrapRbacObjects } from './bootstrap-rbac.js';
import { ApiGate } from './gate.js';
import type { RbacUser } from './rbac.js';
import { ObjectStore } from './store.js';
import { CRD_KIND } from './crd/registry.js';
import { backupCrds } from './crd/backup.js';
import { tidbInitializerCrd } from './crd/tidbinitializer.js';
import { tidbMonitorCrd } from './crd/monitor.js';
import { dashboardCrds } from './crd/dashboard.js';
import { tidbClusterCrd } from './crd/tidbcluster.js';

/** Options of the world; each has a documented default. */
export type SimWorldOptions = {
  clock: Clock;
  /** Nodes node-0..node-N-1 over zones zone-a/b/c, or node pools (default 3). */
  nodes?: NodesSpec;
  /** Pending → Running+Ready for a healthy pod (default 5000 ms). */
  podStartupMs?: number;
  /** StorageClasses besides EKS's gp2 and gp3, with their static local volumes (default: none). */
  storageClasses?: Record<string, StorageClassSim>;
  /** Bearer token required on every request (default: none required; with `rbac`, the admin's token, default random). */
  token?: string;
  /**
   * Authenticate every request by bearer token and authorise it by RBAC (gate.ts; ADR 0017). The
   * default kubeconfig is then the cluster admin's (`system:masters`). Default false: every caller
   * acts as the cluster admin.
   */
  rbac?: boolean;
  /** Serve https with this certificate (PEM); kubeconfigs then carry it as the CA (default plain http). */
  tls?: { readonly certPem: string; readonly keyPem: string };
  /** Port of the HTTP server (default 0: a free port). */
  port?: number;
  /** Processes behind container images (the TiDB simulator plugs in here). */
  runtimes?: ContainerRuntime[];
  /** Source of randomness for uids and generated names (default Math.random). */
  random?: () => number;
  /** Source of randomness for the endpoint a service request reaches (default Math.random). */
  proxyRandom?: () => number;
  requestHook?: RequestHook;
  /** Where unexpected controller failures go (default: rethrown, which fails tests loudly). */
  onControllerError?: ErrorSink;
};

/** A running simulated world. */
export class SimWorld {
  private constructor(
    readonly clock: Clock,
    readonly store: ObjectStore,
    readonly gc: GarbageCollector,
    readonly controllers: SimControllers,
    readonly proxy: ProxyRegistry,
    readonly server: SimApiServer,
    readonly url: string,
    readonly token: string | undefined,
    /** Authentication and RBAC, when the world enforces them. */
    readonly gate: ApiGate | undefined,
    /** The CA to trust (base64 PEM), when the world serves https. */
    readonly caData: string | undefined,
  ) {}

  /** Builds the world, creates the default namespaces, the TidbCluster and backup CRDs and nodes, and starts serving. */
  static async start(opts: SimWorldOptions): Promise<SimWorld> {
    const store = new ObjectStore(opts.clock, { random: opts.random });
    for (const ns of ['default', 'kube-system', 'kube-public']) store.create('Namespace', { metadata: { name: ns } }, { keepStatus: false });
    store.create(CRD_KIND, tidbClusterCrd());
    for (const crd of backupCrds()) store.create(CRD_KIND, crd);
    store.create(CRD_KIND, tidbInitializerCrd());
    store.create(CRD_KIND, tidbMonitorCrd());
    for (const crd of dashboardCrds()) store.create(CRD_KIND, crd);
    for (const object of bootstrapRbacObjects()) store.create(String(object.kind), object);
    const gc = new GarbageCollector(store);
    const controllers = new SimControllers(store, {
      podStartupMs: opts.podStartupMs ?? 5000,
      nodes: opts.nodes ?? 3,
      ...(opts.storageClasses ? { storageClasses: opts.storageClasses } : {}),
      runtimes: opts.runtimes ?? [],
      // On the real clock a controller bug is reported, not a crash of the whole server.
      onError: opts.onControllerError,
    });
    controllers.start();
    const proxy = new ProxyRegistry(store, opts.proxyRandom);
    const gate = opts.rbac ? new ApiGate(new TokenRegistry(), store, () => opts.clock.nowMs()) : undefined;
    let token = opts.token;
    if (gate) {
      if (token === undefined) token = gate.tokens.issue(CLUSTER_ADMIN_USER);
      else gate.tokens.add(token, CLUSTER_ADMIN_USER);
    }
    const server = new SimApiServer(store, proxy, { token: opts.token, gate, requestHook: opts.requestHook, ...(opts.tls ? { tls: opts.tls } : {}) });
    const url = await server.listen(opts.port ?? 0);
    const caData = opts.tls ? Buffer.from(opts.tls.certPem).toString('base64') : undefined;
    return new SimWorld(opts.clock, store, gc, controllers, proxy, server, url, token, gate, caData);
  }

  /** A kubeconfig object for this world's server, as the cluster admin. */
  kubeconfig(namespace = 'default'): Record<string, unknown> {
    return simKubeconfig(this.url, this.token, namespace, this.caData);
  }

  /**
   * A kubeconfig authenticating as `user` (a new bearer token), as an EKS access entry or a
   * ServiceAccount token makes one; the admin's when the world does not enforce RBAC.
   */
  kubeconfigAs(user: RbacUser, namespace = 'default'): Record<string, unknown> {
    return simKubeconfig(this.url, this.gate ? this.gate.tokens.issue(user) : this.token, namespace, this.caData);
  }

  /** Stops serving and every controller. */
  async stop(): Promise<void> {
    await this.server.close();
    this.controllers.stop();
    this.gc.stop();
  }
}
