/**
 * Everything `simulate` runs, on one virtual clock: the simulated world (API server over HTTP,
 * controllers, kubelet, TiDB processes), an embedded DynamoDB, the in-process reconcile queue, the
 * real exporter core (fed in process from the object store), and the real Lambda handlers —
 * reconcile, sweep, admin — each on its own local runtime signed as its own role. Only the ends
 * differ from AWS, and they enforce the packaged template's IAM (lib/local/iam/).
 */
import type { SQSEvent } from 'aws-lambda';
import { simulatedContext } from './lambda-context.js';
import { createAdminHandler } from '../../functions/admin.js';
import { createReconcileHandler } from '../../functions/reconcile.js';
import { createSweepHandler } from '../../functions/sweep.js';
import { type AccessEntries, MemoryAccessEntries } from '../eks/port.js';
import { watchedResources } from '../exporter/resources.js';
import { VirtualClock } from '../platform/clock.js';
import { type Logger, StreamLogger, silentLogger } from '../platform/logger.js';
import { MemoryReconcileQueue, seededRandom } from '../queue/memory.js';
import { MemoryDeadLetterRedrive } from '../queue/memory-redrive.js';
import type { DeadLetterRedrive } from '../queue/redrive.js';
import type { OutgoingMessage, ReconcileQueue } from '../queue/port.js';
import { TidbSimulation } from '../sim/tidb/simulation.js';
import { SimWorld } from '../sim/world.js';
import { API_PROXY_RBAC_FILE, RECONCILER_RBAC_FILE, applyRbacObjects, functionUser, rbacObjectsOf } from './function-rbac.js';
import { namespacedRbac } from './namespaced-rbac.js';
import { DynamoStateStore } from '../state/dynamo.js';
import type { StateStore } from '../state/port.js';
import { MemoryScheduler } from '../timer/memory-scheduler.js';
import type { Runtime } from '../wiring/ports.js';
import type { LocalIam } from './iam/authority.js';
import { type AsyncFailure, AsyncInvoker } from './async-invocation.js';
import { type EmbeddedDynamo, startEmbeddedDynamo } from './dynalite.js';
import { operatorAccessEntry, operatorRbacObjects, SCENARIO_OPERATOR, sessionArnOf } from './admin-identity.js';
import { functionUrlEvent, urlResponseOf } from './function-url.js';
import { HandlerClock } from './handler-clock.js';
import { mortalRuntime } from './mortal.js';
import { InvocationCrashes } from './crash-plan.js';
import { StoreWatchSource } from './store-watch-source.js';
import { type SimFunction, simRuntimes } from './sim-runtimes.js';
import { type InvokeResult, VirtualEventSource } from './virtual-delivery.js';
import { simExporter, type SimExporter } from './exporter-sessions.js';
import { LAMBDA_MAX_SESSION_SECONDS } from '../exporter/config.js';
import { DEFAULT_LATENCY, type LatencyModel } from './latency.js';
import { RequestCounter } from './request-counts.js';
import { countApiRequests, countExchanges } from './request-boundaries.js';
import type { Scenario } from './scenario/types.js';
import { worldStorageClasses } from './scenario/storage-classes.js';
import { EksWorlds, namedRuntimes } from './eks-worlds.js';
import { eksClustersIam, SimEks } from './eks-describe.js';
import { startEc2Endpoint } from './ec2-endpoint.js';
import type { LoopbackServer } from './loopback.js';
import { SimEc2 } from '../sim/ec2-api.js';
import { volumeModifyingOf } from './sim-runtimes.js';

export { simulatedContext } from './lambda-context.js';

export type { CrashPlan } from './crash-plan.js';

/** The functions whose invocations can fail. */
export type { SimFunction } from './sim-runtimes.js';

/** One invocation that returned a function error; `retryInMs` when Lambda retries it (the sweep's async retries). */
export type InvocationError = { readonly fn: SimFunction; readonly error: string; readonly retryInMs?: number };

/** The running stack. */
export class SimStack {
  /** Reconcile steps that claimed their lease (the report's `steps`). */
  steps = 0;
  /** Requests by target since the stack started (the report's `requests`; see request-boundaries.ts). */
  readonly requests: RequestCounter;
  /** Invocations that threw (the report's `invocationErrors`); the run goes on, as in Lambda. */
  invocationErrors = 0;
  /** Told of every invocation that threw, after it is counted. */
  onInvocationError: ((e: InvocationError) => void) | undefined;
  /** The sweep's scheduled events, invoked asynchronously with Lambda's retries. */
  readonly sweeps: AsyncInvoker;
  /** The running reconcile invocation, its writes and the `step-crash` plan (crash-plan.ts). */
  readonly crashes = new InvocationCrashes();
  duplicate: { factor: number; untilMs: number } | undefined;
  /** Every world of the run: the first and the further EKS clusters of `sim.eksClusters` (eks-worlds.ts). */
  readonly eks: EksWorlds;
  /** With `sim.eksClusters`, the world's EKS API the functions' cold starts ask DescribeCluster (eks-describe.ts). */
  eksApi: SimEks | undefined;
  private invocationSeq = 0;
  /**
   * When set, every reconcile invocation runs in a new execution environment: a runtime built afresh
   * (no observed index, no kept resolutions, no PD cluster ids from an earlier invocation), as on a
   * Lambda fleet whose consecutive invocations land in different containers (`everyInvocationCold`).
   */
  private freshRuntime: (() => Runtime) | undefined;
  private buildRuntime: (() => Runtime) | undefined;

  /**
   * From now on each reconcile invocation gets a runtime of its own, as if every one were a cold
   * start in another container: what a warm process keeps (docs/adr/0024) is never there. `change`
   * edits each such runtime (a test takes a port away to see what it saves).
   */
  everyInvocationCold(change: (runtime: Runtime) => Runtime = (runtime) => runtime): void {
    const build = this.buildRuntime;
    this.freshRuntime = build === undefined ? undefined : () => change(build());
  }

  /** The reconcile function's runtime. */
  get runtime(): Runtime {
    return this.runtimes.reconcile;
  }

  /** The local world's IAM: what each function was allowed, and every refusal. */
  get iam(): LocalIam {
    return this.dynamo.identities.iam;
  }

  /** The state table read as the deployer (diagnosis and tests), not as any function. */
  get inspector(): StateStore {
    return new DynamoStateStore(this.dynamo.client, { tableName: this.dynamo.tableName });
  }

  private constructor(
    readonly clock: VirtualClock,
    /** The handlers' clock: `clock`, with sleeps that let virtual time pass (see `HandlerClock`). */
    readonly handlerClock: HandlerClock,
    readonly scenario: Scenario,
    readonly sim: TidbSimulation,
    readonly world: SimWorld,
    readonly dynamo: EmbeddedDynamo,
    readonly queue: MemoryReconcileQueue,
    /** Each function's runtime: its own role, clients and caches (separate Lambda containers). */
    readonly runtimes: Readonly<Record<SimFunction, Runtime>>,
    readonly exporter: SimExporter,
    readonly delivery: VirtualEventSource,
    /** Every call IAM refused, stamped with virtual time (a scenario with any fails). */
    readonly denials: readonly { readonly atMs: number; readonly message: string }[],
    /** The simulated EKS cluster's access entries (the scenario operator's and the file's `accessEntries:`), as the admin role reads them. */
    readonly accessEntries: AccessEntries,
    requests: RequestCounter,
  ) {
    this.requests = requests;
    this.eks = new EksWorlds(scenario, { world, sim, exporter }, clock);
    this.sweeps = new AsyncInvoker(clock, () => this.invokeSweep(), (f: AsyncFailure) => this.invocationFailed({ fn: 'sweep', error: f.error, ...(f.retryInMs === undefined ? {} : { retryInMs: f.retryInMs }) }));
  }

  /**
   * Builds and starts the stack for `scenario` with `seed`. Every function runs as its own role of
   * the packaged template (`iam`, default `localIam()`): its own DynamoDB client behind the IAM
   * front, its own view of the queue and the scheduler; reconcile's role also plays the SQS event
   * source mapping that receives and deletes its batches.
   */
  static async start(scenario: Scenario, seed: number, options: { verbose?: boolean; iam?: LocalIam; rbacFile?: URL | string } = {}): Promise<SimStack> {
    const holder: { stack?: SimStack } = {};
    const clock = new VirtualClock();
    const logger: Logger = options.verbose ? new StreamLogger(() => clock.nowMs()) : silentLogger;
    // The pools shape the world's nodes; the TiDB simulation's knobs are the numbers.
    const { nodePools, storageClasses, buckets, workload, latency: _latency, eksClusters, podIdentityAssociations, ...knobs } = scenario.sim;
    const sim = new TidbSimulation({ seed, knobs });
    const classes = storageClasses ? { storageClasses: worldStorageClasses(storageClasses) } : {};
    const world = await SimWorld.start({ clock: clock, nodes: nodePools ?? scenario.sim.nodes, podStartupMs: scenario.sim.podStartupMs, ...classes, runtimes: [sim.runtime], random: sim.random, proxyRandom: sim.proxyRandom, rbac: true });
    sim.attach(world);
    for (const bucket of buckets ?? []) sim.backups.addBucket(bucket);
    for (const association of podIdentityAssociations ?? []) sim.backups.addPodIdentityAssociation(association);
    if (workload) sim.backups.datasets.setWorkload(scenario.cluster.metadata.namespace, String(scenario.cluster.metadata.name), workload.writesPerMinute);
    // The functions run under exactly infra/'s RBAC, applied from the file (ADR 0017); namespace-scoped,
    // under what scripts/gen-namespaced-rbac.ts derives from it for the watched namespaces.
    const rbacFiles = [options.rbacFile ?? RECONCILER_RBAC_FILE, ...(scenario.config.componentAccess === 'api-proxy' ? [API_PROXY_RBAC_FILE] : [])];
    const watched = scenario.config.watchNamespaces;
    const rbac = rbacFiles.flatMap((file) => rbacObjectsOf(file));
    applyRbacObjects(world, watched === undefined ? rbac : namespacedRbac(rbac, watched));
    const requests = new RequestCounter();
    // With a registry (sim.eksClusters), the template's IAM as packaged with it: DescribeCluster on exactly its clusters.
    const dynamo = await startEmbeddedDynamo(undefined, options.iam ?? (eksClusters === undefined ? undefined : eksClustersIam(eksClusters.map((e) => e.name))), { requests });
    const ids = dynamo.identities;
    const users = (fns: string[]): Set<string> => new Set(fns.filter((fn) => ids.iam.functionNames().includes(fn)).map((fn) => functionUser(ids, fn).name));
    const callers = { functions: users(['reconcile', 'sweep', 'timer', 'admin']), exporter: users(['exporter']) };
    countApiRequests(world.server, callers, requests);
    const denials: { atMs: number; message: string }[] = [];
    ids.iam.onDenial = (d) => denials.push({ atMs: clock.nowMs(), message: `${d.principal}: ${d.message}` });
    const queue = new MemoryReconcileQueue({ clock: clock, visibilityTimeoutSeconds: 370, maxReceiveCount: 5, random: seededRandom(seed) });
    const handlerClock = new HandlerClock(clock, () => holder.stack?.exporterIdle() ?? Promise.resolve());
    const scheduler = new MemoryScheduler({ clock: handlerClock, queue, deliverTo: ids.deliverTo(queue) });
    const sending: ReconcileQueue = {
      send: (m) => sendWithDuplicates(holder.stack, queue, m),
      receive: (max, waitMs, signal) => queue.receive(max, waitMs, signal),
      delete: (handles) => queue.delete(handles),
      changeVisibility: (handle, seconds) => queue.changeVisibility(handle, seconds),
    };
    // With the VolumeModifying gate, the functions reach the world's EC2 (its EBS volumes) as their roles.
    const ec2 = volumeModifyingOf(scenario) ? await startEc2Endpoint(new SimEc2(world.store, world.controllers.ebs, ids.iam.resolver), ids.iam) : undefined;
    const parts = { scenario, seed, world, dynamo, queue, sending, scheduler, clock: handlerClock, logger, countClaim: () => holder.stack && holder.stack.steps++, onExchange: countExchanges(world.store, requests), ...(ec2 ? { ec2Endpoint: ec2.endpoint } : {}) };
    // With sim.eksClusters, the first world is the first EKS cluster, named as the file names it, and
    // each function's cold start reads its endpoint and CA from the world's EKS (eks-describe.ts).
    const firstEks = eksClusters?.[0]?.name;
    const eksApi = new SimEks();
    // A cold start refused (no eks:DescribeCluster): nothing runs, so nothing is left open.
    const kubeconfigs = firstEks === undefined ? {} : { kubeconfigs: await eksApi.firstKubeconfigs(firstEks, world, ids, handlerClock, seed, async () => (sim.stop(), await Promise.all([world.stop(), dynamo.close()]))) };
    const runtimesOf = (): Record<SimFunction, Runtime> => (firstEks === undefined ? simRuntimes(parts) : namedRuntimes(simRuntimes({ ...parts, ...kubeconfigs }), firstEks));
    const runtimes = runtimesOf();
    const latency: LatencyModel = scenario.sim.latency ?? DEFAULT_LATENCY;
    const exporterDeps = { source: new StoreWatchSource(world.store, () => requests.count('exporter')), queue: ids.queue('exporter', sending), state: new DynamoStateStore(ids.dynamo('exporter'), { tableName: dynamo.tableName }), clock: clock, logger, random: seededRandom(seed + 1) };
    // As the Lambda mode reads its settings (lib/exporter/config.ts): a watch stays open for its whole session.
    const exporterOptions = { k8sCluster: runtimes.reconcile.k8sCluster, resources: watchedResources(scenario.config.watchNamespaces), flushWindowMs: 1000, watchTimeoutSeconds: LAMBDA_MAX_SESSION_SECONDS };
    const exporter = simExporter(exporterDeps, exporterOptions, latency, seed, scenario.config.exporterAtRest);
    // While an invocation is busy (its cold start, its steps' time), the world moves on: the handlers' clock drives time.
    const timing = { ...latency, visibleCount: () => queue.stats().visible, pass: (ms: number) => handlerClock.sleep(ms) };
    const delivery = new VirtualEventSource(ids.queue('reconcile', queue), (event) => holder.stack?.invokeReconcile(event) ?? Promise.resolve({ batchItemFailures: [] }), clock, ids.queueArn, timing);
    const entries = new MemoryAccessEntries([operatorAccessEntry(SCENARIO_OPERATOR), ...(scenario.accessEntries ?? [])]);
    // The operator is admin of every namespace, as an EKS cluster's platform team would set it up.
    applyRbacObjects(world, operatorRbacObjects(SCENARIO_OPERATOR));
    // The admin function reads them as its own role, as it calls EKS.
    const accessEntries = ids.accessEntries('admin', entries);
    const stack = new SimStack(clock, handlerClock, scenario, sim, world, dynamo, queue, runtimes, exporter, delivery, denials, accessEntries, requests);
    holder.stack = stack;
    stack.eksApi = firstEks === undefined ? undefined : eksApi;
    stack.ec2Endpoint = ec2;
    stack.buildRuntime = () => runtimesOf().reconcile;
    await stack.eks.startExtra({ eksApi, scenario, seed, clock, handlerClock, logger, dynamo, runtimeParts: parts, sending, requests, rbac: watched === undefined ? rbac : namespacedRbac(rbac, watched), callers });
    world.server.onWrite = () => stack.crashes.countWrite();
    const previousHook = world.server.requestHook;
    world.server.requestHook = (method, path) => stack.eks.firstApiDown() ?? stack.crashes.dieBeforeWrite(method) ?? previousHook?.(method, path);
    exporter.start();
    return stack;
  }

  /**
   * Invokes the real reconcile handler on one batch; a planned crash kills it after N writes. A
   * handler that throws is a function error: counted, and its whole batch comes back later.
   */
  async invokeReconcile(event: SQSEvent): Promise<InvokeResult> {
    const mortal = mortalRuntime(this.freshRuntime?.() ?? this.runtime);
    this.crashes.begin(mortal);
    const handler = createReconcileHandler(this.eks.handlerOptions(mortal.runtime, 'reconcile'));
    try {
      const context = simulatedContext(`sim-${++this.invocationSeq}`);
      const run = mortal.run(() => handler(event, context)) as Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
      const result = await Promise.race([run, mortal.died]);
      return result === 'crashed' ? 'crashed' : { batchItemFailures: result.batchItemFailures };
    } catch (err) {
      this.invocationFailed({ fn: 'reconcile', error: errorMessage(err) });
      return 'failed';
    } finally {
      this.crashes.begin(undefined);
    }
  }

  /** The dead-letter redrive of the in-memory queue, as the admin role may use it (one per stack: its tasks are kept). */
  private adminRedrive(): DeadLetterRedrive {
    const ids = this.dynamo.identities;
    this.redrive ??= ids.redrive('admin', new MemoryDeadLetterRedrive(this.queue, this.clock, ids.deadLetterQueueArn, ids.queueArn));
    return this.redrive;
  }

  private redrive: DeadLetterRedrive | undefined;

  /**
   * Invokes the real admin handler through its function URL, as `callerArn` (an IAM role, whose
   * session `simulate` signs, or an IAM user; default the scenario operator): the URL event Lambda
   * builds once it verified the signature, answered with the body of the URL response. Synchronous:
   * nobody retries. A handler that throws is counted and answered as the CLI shows a function error.
   */
  async invokeAdmin(payload: unknown, callerArn: string = SCENARIO_OPERATOR.roleArn): Promise<unknown> {
    const id = `admin-${++this.invocationSeq}`;
    const arn = callerArn.includes(':role/') ? sessionArnOf(callerArn, 'simulate') : callerArn;
    const event = functionUrlEvent(JSON.stringify(payload), { arn, accountId: arn.split(':')[4] ?? '' }, id);
    try {
      const response = urlResponseOf(await createAdminHandler({ ...this.eks.handlerOptions(this.runtimes.admin, 'admin'), accessEntries: () => this.accessEntries, redrive: () => this.adminRedrive() })(event, simulatedContext(id)));
      return JSON.parse(response.body) as unknown;
    } catch (err) {
      this.invocationFailed({ fn: 'admin', error: errorMessage(err) });
      return { ok: false, error: `function error: ${errorMessage(err)}` };
    }
  }

  /**
   * Invokes the real sweep handler as its rate schedule does (Scheduler assumes the schedule's role,
   * which must be allowed to invoke it); throws what it throws (see `sweeps`).
   */
  async invokeSweep(): Promise<void> {
    this.iam.authorizeScheduledInvoke('sweep');
    await createSweepHandler(this.eks.handlerOptions(this.runtimes.sweep, 'sweep'))({} as never, simulatedContext(`sweep-${++this.invocationSeq}`));
  }

  /**
   * Resolves once the exporter is idle (every watch loop waiting for events or for its backoff, no
   * flush in flight): its start-up reads, sends and checkpoint writes are real I/O, and virtual time
   * must not run ahead of them. A stuck exporter is waited for at most `maxWallMs`.
   */
  async exporterIdle(maxWallMs = 30_000): Promise<void> {
    const until = Date.now() + maxWallMs;
    while (!(this.exporter.isIdle() && this.eks.extraIdle()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  /**
   * Stops everything. The exporter's waits (backoff, flush window) are on the virtual clock, so time
   * is driven forward until it has stopped and written its last checkpoint — before DynamoDB closes.
   */
  async stop(): Promise<void> {
    let stopped = false;
    const stopping = this.exporter.stop().finally(() => (stopped = true));
    for (let i = 0; i < 600 && !stopped; i++) await this.clock.advance(1000);
    await stopping;
    await this.eks.stopExtra();
    this.sim.stop();
    await this.world.stop();
    await this.ec2Endpoint?.close();
    await this.dynamo.close();
  }

  /** The world's EC2 endpoint, when the scenario turns the VolumeModifying gate on. */
  ec2Endpoint: LoopbackServer | undefined;

  private invocationFailed(e: InvocationError): void {
    this.invocationErrors++;
    this.onInvocationError?.(e);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Sends, repeating each message `factor` times while a duplicate-delivery fault is on. */
async function sendWithDuplicates(stack: SimStack | undefined, queue: MemoryReconcileQueue, messages: readonly OutgoingMessage[]): Promise<void> {
  const dup = stack?.duplicate;
  const factor = dup && stack.clock.nowMs() < dup.untilMs ? dup.factor : 1;
  await queue.send(messages.flatMap((m) => Array.from({ length: factor }, () => m)));
}
