/**
 * The further EKS clusters of a simulated deployment (`sim.eksClusters`, docs/adr/0027): each is a
 * whole world of its own — API server, controllers, kubelet, TiDB processes — on the run's one
 * virtual clock, with the deployment's RBAC applied as on the first, the same functions (their own
 * runtimes and Kubernetes tokens for this API server, the run's one state table and queue) and an
 * exporter session of its own. The `eks-api-down` fault takes one such API server down: every
 * request is answered 503 and its exporter runs no session until the fault ends.
 */
import { watchedResources } from '../exporter/resources.js';
import type { Logger } from '../platform/logger.js';
import { seededRandom } from '../queue/memory.js';
import type { ReconcileQueue } from '../queue/port.js';
import { ApiError } from '../sim/api-error.js';
import { TidbSimulation } from '../sim/tidb/simulation.js';
import { SimWorld } from '../sim/world.js';
import { DynamoStateStore } from '../state/dynamo.js';
import type { Runtime } from '../wiring/ports.js';
import { type Fleet, fleetOf } from '../wiring/fleet.js';
import type { HandlerClock } from './handler-clock.js';
import type { VirtualClock } from '../platform/clock.js';
import { operatorRbacObjects, SCENARIO_OPERATOR } from './admin-identity.js';
import type { EmbeddedDynamo } from './dynalite.js';
import { simExporter, type SimExporter } from './exporter-sessions.js';
import { applyRbacObjects } from './function-rbac.js';
import { DEFAULT_LATENCY } from './latency.js';
import type { RequestCounter } from './request-counts.js';
import { countApiRequests } from './request-boundaries.js';
import type { Scenario } from './scenario/types.js';
import { worldStorageClasses } from './scenario/storage-classes.js';
import { type SimFunction, type SimRuntimeParts, simRuntimes } from './sim-runtimes.js';
import { StoreWatchSource } from './store-watch-source.js';
import type { KubeObject } from '../sim/object.js';
import type { SimEks } from './eks-describe.js';
import { eksClusterOf } from './scenario/eks-clusters.js';
import { scenarioClusters, type TidbClusterManifest } from './scenario/types.js';

/** One further simulated EKS cluster and what runs against it. */
export type ExtraEks = {
  readonly name: string;
  readonly world: SimWorld;
  readonly sim: TidbSimulation;
  /** The reconcile, sweep and admin functions' runtimes for this cluster (keys `<name>/…`). */
  readonly runtimes: Readonly<Record<SimFunction, Runtime>>;
  readonly exporter: SimExporter;
  /** The `eks-api-down` fault: every request to this API server is refused until then (virtual ms). */
  apiDownUntilMs: number;
};

/** What the first world's start-up already built, shared by every further one. */
export type ExtraEksParts = {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly clock: VirtualClock;
  readonly handlerClock: HandlerClock;
  readonly logger: Logger;
  readonly dynamo: EmbeddedDynamo;
  readonly runtimeParts: Omit<SimRuntimeParts, 'world' | 'kubeconfigs'>;
  /** The world's EKS, whose DescribeCluster each function's cold start asks (eks-describe.ts). */
  readonly eksApi: SimEks;
  readonly sending: ReconcileQueue;
  readonly requests: RequestCounter;
  /** The RBAC objects applied to the first world (infra/'s manifests, namespace-scoped when the scenario is). */
  readonly rbac: readonly KubeObject[];
  readonly callers: { readonly functions: ReadonlySet<string>; readonly exporter: ReadonlySet<string> };
};

/** Names a runtime for EKS cluster `name`: its keys start `<name>/`. */
export function namedRuntimes(runtimes: Record<SimFunction, Runtime>, name: string): Record<SimFunction, Runtime> {
  return { reconcile: { ...runtimes.reconcile, k8sCluster: name }, sweep: { ...runtimes.sweep, k8sCluster: name }, admin: { ...runtimes.admin, k8sCluster: name } };
}

/** Starts EKS cluster number `index` (1-based among the further ones) named `name`. */
export async function startExtraEks(parts: ExtraEksParts, name: string, index: number): Promise<ExtraEks> {
  const { scenario, clock, logger } = parts;
  const { nodePools, storageClasses, buckets: _buckets, workload: _workload, latency: _latency, eksClusters: _eks, podIdentityAssociations: _associations, ...knobs } = scenario.sim;
  // Its own randomness, drawn from the run's seed: the same seed gives the same run.
  const seed = parts.seed + 1000 * index;
  const sim = new TidbSimulation({ seed, knobs });
  const classes = storageClasses ? { storageClasses: worldStorageClasses(storageClasses) } : {};
  const world = await SimWorld.start({ clock, nodes: nodePools ?? scenario.sim.nodes, podStartupMs: scenario.sim.podStartupMs, ...classes, runtimes: [sim.runtime], random: sim.random, proxyRandom: sim.proxyRandom, rbac: true });
  sim.attach(world);
  applyRbacObjects(world, parts.rbac);
  applyRbacObjects(world, operatorRbacObjects(SCENARIO_OPERATOR));
  countApiRequests(world.server, parts.callers, parts.requests);
  const ids = parts.dynamo.identities;
  parts.eksApi.add(name, world);
  // As deployed with a registry: each function's cold start reads this cluster's endpoint and CA from DescribeCluster.
  const { kubeconfigs: _first, ...runtimeParts } = parts.runtimeParts as SimRuntimeParts;
  const kubeconfigs = await parts.eksApi.kubeconfigs(name, world, ids, parts.handlerClock, seed);
  const runtimes = namedRuntimes(simRuntimes({ ...runtimeParts, world, kubeconfigs }), name);
  const latency = scenario.sim.latency ?? DEFAULT_LATENCY;
  const exporterDeps = { source: new StoreWatchSource(world.store, () => parts.requests.count('exporter')), queue: ids.queue('exporter', parts.sending), state: new DynamoStateStore(ids.dynamo('exporter'), { tableName: parts.dynamo.tableName }), clock, logger, random: seededRandom(seed + 1) };
  const exporterOptions = { k8sCluster: name, resources: watchedResources(scenario.config.watchNamespaces), flushWindowMs: 1000 };
  const exporter = simExporter(exporterDeps, exporterOptions, latency, seed, scenario.config.exporterAtRest);
  const eks: ExtraEks = { name, world, sim, runtimes, exporter, apiDownUntilMs: 0 };
  const previous = world.server.requestHook;
  // An API server that is down answers nothing useful: 503, as EKS's endpoint does while its control plane is unavailable.
  world.server.requestHook = (method, path) =>
    clock.nowMs() < eks.apiDownUntilMs ? new ApiError(503, 'ServiceUnavailable', `the API server of EKS cluster ${name} is unavailable`) : previous?.(method, path);
  exporter.start();
  return eks;
}

/** The `eks-api-down` fault on `eks`: its API server refuses every request, and its exporter runs no session, for `forMs`. */
export function takeApiServerDown(eks: ExtraEks, nowMs: number, forMs: number): void {
  eks.apiDownUntilMs = Math.max(eks.apiDownUntilMs, nowMs + forMs);
  eks.exporter.down(forMs);
}

/**
 * Stops one further EKS cluster: its exporter (time driven forward on `clock`, as `SimStack.stop`
 * does for the first, until its last checkpoint is written), its processes, its world.
 */
export async function stopExtraEks(eks: ExtraEks, clock: VirtualClock): Promise<void> {
  let ended = false;
  const ending = eks.exporter.stop().finally(() => (ended = true));
  for (let i = 0; i < 600 && !ended; i++) await clock.advance(1000);
  await ending;
  eks.sim.stop();
  await eks.world.stop();
}

/** A world of the run as a timeline entry reaches it: its objects, its processes, its exporter session. */
export type WorldParts = { readonly world: SimWorld; readonly sim: TidbSimulation; readonly exporter: SimExporter };

/**
 * One EKS cluster as a timeline entry names it (`eks:`): its world, and the TidbCluster its cluster
 * verbs act on — the first of `clusters:` placed in it (the first cluster, in the first world);
 * undefined when it holds none.
 */
export type EksPlace = WorldParts & { readonly name: string | undefined; readonly cluster: TidbClusterManifest | undefined };

/**
 * Every world of a run: the first (the one EKS cluster, or the first of `sim.eksClusters`) and the
 * further ones. Finds the world of a TidbCluster or a pod, the place an entry's `eks:` names, and
 * takes an EKS cluster's API server down (`eks-api-down`).
 */
export class EksWorlds {
  /** The further EKS clusters of `sim.eksClusters` (none without it), each its own world. */
  readonly extra: ExtraEks[] = [];
  /** The `eks-api-down` fault on the first EKS cluster: its API server refuses every request until then. */
  private firstApiDownUntilMs = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly first: WorldParts,
    private readonly clock: VirtualClock,
  ) {}

  /**
   * The `eks-api-down` fault: EKS cluster `eks` (of `sim.eksClusters`) has its API server refuse
   * every request and its exporter run no session for `forMs`. False when no such cluster runs.
   */
  apiDown(eks: string, forMs: number): boolean {
    const now = this.clock.nowMs();
    const extra = this.extra.find((e) => e.name === eks);
    if (extra !== undefined) {
      takeApiServerDown(extra, now, forMs);
      return true;
    }
    if (this.scenario.sim.eksClusters?.[0]?.name !== eks) return false;
    this.firstApiDownUntilMs = Math.max(this.firstApiDownUntilMs, now + forMs);
    this.first.exporter.down(forMs);
    return true;
  }

  /** The error the first API server answers while its `eks-api-down` fault lasts, else undefined. */
  firstApiDown(): ApiError | undefined {
    if (this.clock.nowMs() >= this.firstApiDownUntilMs) return undefined;
    return new ApiError(503, 'ServiceUnavailable', `the API server of EKS cluster ${this.scenario.sim.eksClusters?.[0]?.name ?? 'local'} is unavailable`);
  }

  /** The world TidbCluster `namespace/name` is in: the further EKS cluster `sim.eksClusters` places it in, else the first. */
  worldOf(namespace: string, name: string): SimWorld {
    const eks = eksClusterOf(this.scenario.sim.eksClusters, namespace, name);
    return this.extra.find((e) => e.name === eks)?.world ?? this.first.world;
  }

  /** The world and processes pod `namespace/pod` runs in (the first world's when it has it), or undefined when none has it. */
  podWorld(namespace: string, pod: string): WorldParts | undefined {
    return [this.first, ...this.extra].find((w) => w.world.store.get('Pod', namespace, pod) !== undefined);
  }

  /** The EKS cluster `eks` names (undefined or the first's name: the first world); undefined when none runs by that name. */
  place(eks?: string): EksPlace | undefined {
    const clusters = scenarioClusters(this.scenario);
    if (eks === undefined || eks === this.scenario.sim.eksClusters?.[0]?.name) return { ...this.first, name: eks, cluster: this.scenario.cluster };
    const extra = this.extra.find((e) => e.name === eks);
    if (extra === undefined) return undefined;
    const cluster = clusters.find((c) => eksClusterOf(this.scenario.sim.eksClusters, c.metadata.namespace, c.metadata.name) === eks);
    return { world: extra.world, sim: extra.sim, exporter: extra.exporter, name: eks, cluster };
  }

  /** Starts the further EKS clusters of `sim.eksClusters` (its entries after the first), in order. */
  async startExtra(parts: ExtraEksParts): Promise<void> {
    for (const [i, eks] of (this.scenario.sim.eksClusters ?? []).slice(1).entries()) this.extra.push(await startExtraEks(parts, eks.name, i + 1));
  }

  /**
   * The handler options of function `fn` whose first-world runtime is `first`: that runtime alone,
   * or with further EKS clusters the fleet of every world's runtime of `fn`.
   */
  handlerOptions(first: Runtime, fn: SimFunction): { runtime: () => Runtime } | { fleet: () => Fleet } {
    if (this.extra.length === 0) return { runtime: () => first };
    return { fleet: () => fleetOf([first, ...this.extra.map((e) => e.runtimes[fn])]) };
  }

  /** Whether every further world's exporter is idle (see `SimStack.exporterIdle`). */
  extraIdle(): boolean {
    return this.extra.every((e) => e.exporter.isIdle());
  }

  /** Stops every further world (see `stopExtraEks`). */
  async stopExtra(): Promise<void> {
    for (const eks of this.extra) await stopExtraEks(eks, this.clock);
  }
}
