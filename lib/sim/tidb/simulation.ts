/**
 * The simulated TiDB world on top of a SimWorld: the runtime that starts PD, TiKV, TiFlash, TiDB,
 * TiCDC, Pump and discovery processes in pods, the per-cluster state they share, the faults, and
 * the invariant monitors. Build it before the world (the kubelet takes its runtimes at
 * construction), pass `sim.runtime`, `sim.random` and `sim.proxyRandom` to `SimWorld.start`, then
 * `attach` the world — or let `startTidbWorld` do all three. Same seed, same inputs ⇒ same run.
 */
import type { Clock } from '../../platform/clock.js';
import { BackupSimulation } from '../backup/index.js';
import { InitializerRuntime } from '../initializer/runtime.js';
import type { ProxyRegistry } from '../proxy.js';
import type { RequestHook } from '../server.js';
import type { ObjectStore } from '../store.js';
import { SimWorld } from '../world.js';
import { type KubeletFaultHooks, TidbFaults } from './faults.js';
import { InvariantMonitor, type InvariantReport } from './invariants.js';
import { type TidbSimKnobs, resolveKnobs } from './knobs.js';
import { ClusterRegistry, type ClusterState } from './registry.js';
import { Rng } from './rng.js';
import { TidbRuntime } from './runtime.js';
import { ControllerManagerRuntime } from './controller-manager.js';
import type { ActionSink, SimContext } from './sim-context.js';
import { type PdSnapshot, pdSnapshot } from './snapshot.js';
import { movePdLeader, setPdConfig, setTiflashReplicas } from './verbs.js';

/** Options of the TiDB simulation. */
export type TidbSimulationOptions = {
  /** Seed of every random choice (default 1). */
  seed?: number;
  /** Knob overrides (knobs.ts documents the defaults). */
  knobs?: Partial<TidbSimKnobs>;
  /** Receives the mutating calls processes serve (default: dropped). */
  record?: ActionSink;
};

/** What `attach` needs of a world (SimWorld has all of it). */
export type AttachableWorld = {
  readonly store: ObjectStore;
  readonly proxy: ProxyRegistry;
  readonly clock: Clock;
  readonly server: { requestHook: RequestHook | undefined };
  readonly controllers: { readonly kubelet: KubeletFaultHooks };
};

type Attached = { clusters: ClusterRegistry; faults: TidbFaults; invariants: InvariantMonitor; unsubscribe: () => void };

/** The simulated TiDB processes of one world. */
export class TidbSimulation {
  readonly knobs: TidbSimKnobs;
  /** The world's S3, datasets and backup-manager (whose Job pods the runtime hands on). */
  readonly backups = new BackupSimulation();
  /** TiDB Operator's initializer Job pods (their mysql-client talks to the simulated TiDB). */
  readonly initializers = new InitializerRuntime(this.backups);
  /** TiDB Operator's controller managers (their leader election only), for migration stories. */
  readonly controllerManagers = new ControllerManagerRuntime(this.initializers);
  readonly runtime = new TidbRuntime(this.controllerManagers);
  /** Seeded randomness for the world's object store (uids, generated names). */
  readonly random: () => number;
  /** Seeded randomness for the world's service proxy (which ready endpoint a request reaches). */
  readonly proxyRandom: () => number;
  private readonly rng: Rng;
  private attached: Attached | undefined;
  private sink: ActionSink;

  constructor(opts: TidbSimulationOptions = {}) {
    this.knobs = resolveKnobs(opts.knobs);
    this.rng = new Rng(opts.seed ?? 1);
    const worldRng = this.rng.fork();
    // A stream of its own, so the number of proxied requests does not shift uids and names.
    const proxyRng = worldRng.fork();
    this.random = () => worldRng.next();
    this.proxyRandom = () => proxyRng.next();
    this.sink = opts.record ?? (() => undefined);
  }

  /** Connects to the world: processes can start, faults and monitors are live. */
  attach(world: AttachableWorld): void {
    if (this.attached) throw new Error('the TiDB simulation is already attached to a world');
    const clusters = new ClusterRegistry({ clock: world.clock, rng: this.rng.fork(), knobs: this.knobs });
    const sim: SimContext = { store: world.store, proxy: world.proxy, clock: world.clock, rng: this.rng.fork(), knobs: this.knobs, clusters, record: (a) => this.sink(a), hasData: (ns, name) => this.backups.datasets.hasData(ns, name) };
    const faults = new TidbFaults({ kubelet: world.controllers.kubelet, server: world.server, store: world.store, clusters, clock: world.clock, rng: this.rng.fork() });
    const invariants = new InvariantMonitor({ store: world.store, clusters, clock: world.clock, knobs: this.knobs, isFaulted: (pod) => faults.isFaulted(pod) });
    invariants.start();
    // A deleted volume (or an unbound claim) takes its data with it: the member or store on it has
    // lost its data. A Released volume that is retained keeps it.
    const unsubscribe = world.store.subscribe((ev) => {
      if ((ev.kind !== 'PersistentVolumeClaim' && ev.kind !== 'PersistentVolume') || ev.type !== 'DELETED') return;
      for (const c of clusters.all()) {
        c.pd.members.dataDeleted(ev.object.metadata.uid ?? '');
        c.pd.stores.dataDeleted(ev.object.metadata.uid ?? '');
      }
    });
    this.runtime.attach(sim);
    this.controllerManagers.attach(world.store, world.clock);
    this.backups.attach({ store: world.store, clock: world.clock, proxy: world.proxy, clusterState: (ns, name) => clusters.find(ns, name) });
    this.initializers.attach({ store: world.store, clock: world.clock, proxy: world.proxy });
    this.attached = { clusters, faults, invariants, unsubscribe };
  }

  /** Where mutating calls are reported from now on. */
  set record(sink: ActionSink) {
    this.sink = sink;
  }

  /** The per-cluster state. */
  get clusters(): ClusterRegistry {
    return this.mustAttached().clusters;
  }

  /** The fault injector. */
  get faults(): TidbFaults {
    return this.mustAttached().faults;
  }

  /** The invariant monitors' findings so far. */
  invariants(): InvariantReport[] {
    return [...this.mustAttached().invariants.report(), ...this.backups.invariants()];
  }

  /** A cluster's state, if any pod of it ever started. */
  cluster(namespace: string, name: string): ClusterState | undefined {
    return this.attached?.clusters.find(namespace, name);
  }

  /** `final.pd` for one cluster (empty when it never started). */
  snapshot(namespace: string, name: string): PdSnapshot {
    const c = this.cluster(namespace, name);
    return c ? pdSnapshot(c) : { members: [], leader: undefined, stores: [], schedulers: [] };
  }

  /** The `world: {pdLeader}` verb: makes `member` PD's leader now (throws when it cannot lead). */
  movePdLeader(namespace: string, cluster: string, member: string): void {
    movePdLeader(this.mustCluster(namespace, cluster).pd, member);
  }

  /** The `world: {ticdcOwner}` verb: the capture of `pod` becomes the TiCDC owner now (throws when it has none). */
  moveTicdcOwner(namespace: string, cluster: string, pod: string): void {
    this.mustCluster(namespace, cluster).captures.moveOwner(pod);
  }

  /** The `world: {pdConfig}` verb: sets PD configuration in pd.toml's shape. */
  setPdConfig(namespace: string, cluster: string, config: Record<string, unknown>): void {
    setPdConfig(this.mustCluster(namespace, cluster).pd, config);
  }

  /** The `world: {tiflashReplicas}` verb: the tables' largest TiFlash replica count is now `count` (throws when TiDB would refuse it). */
  setTiflashReplicas(namespace: string, cluster: string, count: number): void {
    setTiflashReplicas(this.mustCluster(namespace, cluster).pd, count);
  }

  /** Stops timers, monitors and the fault hooks. */
  stop(): void {
    const a = this.attached;
    if (!a) return;
    a.unsubscribe();
    a.invariants.stop();
    a.faults.stop();
    a.clusters.stop();
    this.backups.stop();
  }

  private mustCluster(namespace: string, name: string): ClusterState {
    const c = this.cluster(namespace, name);
    if (!c) throw new Error(`no simulated TiDB cluster ${namespace}/${name}`);
    return c;
  }

  private mustAttached(): Attached {
    if (!this.attached) throw new Error('the TiDB simulation is not attached to a world yet');
    return this.attached;
  }
}

/** Options of `startTidbWorld`: the simulation's plus the world's serving options. */
export type TidbWorldOptions = TidbSimulationOptions & { clock: Clock; token?: string; port?: number; rbac?: boolean };

/** Starts a SimWorld whose pods run simulated TiDB processes, with nodes and pod start-up from the knobs. */
export async function startTidbWorld(opts: TidbWorldOptions): Promise<{ world: SimWorld; sim: TidbSimulation }> {
  const sim = new TidbSimulation(opts);
  const world = await SimWorld.start({ clock: opts.clock, token: opts.token, port: opts.port, rbac: opts.rbac, nodes: sim.knobs.nodes, podStartupMs: sim.knobs.podStartupMs, runtimes: [sim.runtime], random: sim.random, proxyRandom: sim.proxyRandom });
  sim.attach(world);
  return { world, sim };
}
