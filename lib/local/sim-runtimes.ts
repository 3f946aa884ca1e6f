/**
 * The runtimes of a simulated stack's functions (reconcile, sweep, admin): one per function, as
 * separate Lambda containers have, each with its own DynamoDB client signed as its role, its own
 * views of the queue and the scheduler checked as its role (lib/local/iam/), and its own caches;
 * what a scenario fixes (settings, seeded randomness, step ids) is shared, so a seed repeats.
 */
import type { DialTarget } from '../components/network.js';
import { DEFAULT_STEP_CONFIG, MAX_SWEEP_SPREAD_SECONDS, parseConfig, type ReconcilerConfig } from '../platform/config.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import { type MemoryReconcileQueue, seededRandom } from '../queue/memory.js';
import type { ReconcileQueue } from '../queue/port.js';
import type { SimWorld } from '../sim/world.js';
import type { SchedulerPort } from '../timer/port.js';
import { type ComponentAccess, VIA_API_PROXY } from '../wiring/clients.js';
import { type Runtime, localRuntime } from '../wiring/ports.js';
import { SimComponentNetwork } from './sim-network.js';
import { Ec2QueryClient } from '../ec2/query-client.js';
import type { EmbeddedDynamo } from './dynalite.js';
import { functionKubeconfig } from './function-rbac.js';
import type { Scenario } from './scenario/types.js';

/** The functions a simulated stack invokes. */
export type SimFunction = 'reconcile' | 'sweep' | 'admin';

/** What the runtimes are built on. `sending` is what handlers send through; timers arm on `queue`. */
export type SimRuntimeParts = {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly world: SimWorld;
  readonly dynamo: EmbeddedDynamo;
  readonly queue: MemoryReconcileQueue;
  readonly sending: ReconcileQueue;
  readonly scheduler: SchedulerPort;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told of every successful claim (one claim is one step). */
  readonly countClaim: () => unknown;
  /** Told of every exchange a function has with a component over the VPC (`componentAccess: direct`). */
  readonly onExchange?: (target: DialTarget) => void;
  /** Each function's kubeconfig when its cold start resolved it (DescribeCluster, eks-describe.ts); absent, the world's for its access entry. */
  readonly kubeconfigs?: Readonly<Record<SimFunction, Record<string, unknown>>>;
  /** The world's EC2 endpoint (lib/local/ec2-endpoint.ts), when the scenario turns the VolumeModifying gate on. */
  readonly ec2Endpoint?: string;
};

/** Each function's runtime (see the module comment). */
export function simRuntimes(p: SimRuntimeParts): Record<SimFunction, Runtime> {
  const ids = p.dynamo.identities;
  const shared = { config: reconcilerConfig(p.scenario), clientRandom: seededRandom(p.seed + 3), random: seededRandom(p.seed + 2), newReconcileId: seededIds(seededRandom(p.seed + 4)) };
  const runtimeOf = (fn: SimFunction): Runtime => {
    const base = localRuntime({
      // Its own token, authenticating as its EKS access entry (function-rbac.ts).
      kubeConfig: p.kubeconfigs?.[fn] ?? functionKubeconfig(p.world, ids, fn),
      dynamo: ids.dynamo(fn),
      tableName: p.dynamo.tableName,
      queue: ids.queue(fn, p.queue),
      clock: p.clock,
      config: shared.config,
      logger: p.logger,
      clientRandom: shared.clientRandom,
      scheduler: ids.scheduler(fn, p.scheduler),
      timerTarget: ids.timerTarget,
      componentAccess: componentAccessOf(p.scenario, p.world, p.onExchange),
      // Signed as the function's role: the endpoint's IAM decides as EC2's would.
      ...(p.ec2Endpoint ? { ec2: new Ec2QueryClient({ region: ids.iam.resolver.region, endpoint: p.ec2Endpoint, credentials: ids.iam.credentialsOf(fn), clock: p.clock, random: shared.clientRandom }) } : {}),
    });
    return { ...base, random: shared.random, newReconcileId: shared.newReconcileId, state: countingClaims(base, p.countClaim), queue: ids.queue(fn, p.sending) };
  };
  return { reconcile: runtimeOf('reconcile'), sweep: runtimeOf('sweep'), admin: runtimeOf('admin') };
}

/**
 * How a scenario's functions reach the components: `direct` places them in the cluster's VPC and
 * gives them the world's network; `api-proxy` places them outside it, where only the API endpoint
 * answers.
 */
function componentAccessOf(scenario: Scenario, world: SimWorld, onExchange?: (target: DialTarget) => void): ComponentAccess {
  if (scenario.config.componentAccess === 'api-proxy') return VIA_API_PROXY;
  return { mode: 'direct', network: new SimComponentNetwork(world.proxy, { inVpc: true }, onExchange) };
}

/** The reconciler settings a scenario's `config:` section gives (the rest as deployed). */
function reconcilerConfig(scenario: Scenario): ReconcilerConfig {
  const base = parseConfig(scenario.config.featureGates === undefined ? {} : { FEATURE_GATES: scenario.config.featureGates });
  const d = DEFAULT_STEP_CONFIG.reconcile;
  const scope = scenario.config.watchNamespaces;
  const rate = scenario.config.apiRequestsPerSecond;
  const apiBudget = base.step.apiBudget === undefined || rate === undefined ? base.step.apiBudget : { ...base.step.apiBudget, requestsPerSecond: rate };
  return {
    ...base,
    ...(scope === undefined ? {} : { watchNamespaces: scope }),
    // As deployed, the sweep spreads its messages over its own interval (at most SQS's 900 s).
    sweep: { ...base.sweep, ...(apiBudget ? { apiBudget } : {}), spreadSeconds: Math.min(Math.floor((scenario.config.sweepSpreadMs ?? scenario.config.sweepIntervalMs) / 1000), MAX_SWEEP_SPREAD_SECONDS) },
    step: {
      ...base.step,
      ...(apiBudget ? { apiBudget } : {}),
      reconcile: { ...d, ...base.step.reconcile, autoFailover: scenario.config.autoFailover, detectNodeFailure: scenario.config.detectNodeFailure, failoverPeriodMs: scenario.config.failoverPeriodMs },
    },
  };
}

/** Whether the scenario turns TiDB Operator's `VolumeModifying` feature gate on (`config.featureGates`). */
export function volumeModifyingOf(scenario: Scenario): boolean {
  return reconcilerConfig(scenario).step.reconcile.volumeModifying === true;
}

/** Step ids shaped as random (v4) UUIDs, drawn from `random`: the same seed names the steps alike. */
function seededIds(random: () => number): () => string {
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  return () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(random() * 4)] ?? '8'}${hex(3)}-${hex(12)}`;
}

/** The state store with successful claims counted (one claim is one step). */
function countingClaims(runtime: Runtime, count: () => unknown): Runtime['state'] {
  const state = runtime.state;
  return new Proxy(state, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (prop !== 'claim' || typeof value !== 'function') return typeof value === 'function' ? value.bind(t) : value;
      return async (...args: unknown[]) => {
        const result = (await (value as (...a: unknown[]) => Promise<{ claimed: boolean }>).apply(t, args)) as { claimed: boolean };
        if (result.claimed) count();
        return result;
      };
    },
  });
}
