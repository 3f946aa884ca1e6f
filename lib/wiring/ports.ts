/**
 * The composition root: the one place adapters are chosen and connected. A `Runtime` is what one
 * process's handlers share (config, clock, logger, metrics, state, queue, timers, remote clients);
 * `stepPorts` narrows it to one invocation's `StepPorts`, every remote call bounded by that
 * invocation's deadline. Two ways to build a Runtime: `lambdaRuntime` from the environment (EKS,
 * DynamoDB, SQS, EventBridge Scheduler) and `localRuntime` from objects (a kubeconfig, a DynamoDB
 * endpoint, an in-process queue and a clock) for the local stack, the simulator and tests.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Context } from 'aws-lambda';

import { credentialsFromEnv, eksKubeConfig, EksTokenSource, kubeConfigFromFile } from '../kube/auth.js';
import { formatClusterKey, type ClusterKey } from '../model/key.js';
import { RealClock, type Clock } from '../platform/clock.js';
import { ConfigError, DEFAULT_BACKUP_SCHEDULE_TIMEZONE, parseConfig, type ReconcilerConfig } from '../platform/config.js';
import { isResolved, type ResolvedEksCluster } from '../platform/eks-clusters.js';
import { type ClusterDescriber, resolveEksClusters } from '../eks/cluster-access.js';
import { PowertoolsLogger, silentLogger, type Logger } from '../platform/logger.js';
import { PowertoolsMetrics, silentMetrics, type Metrics } from '../platform/metrics.js';
import type { ReconcileQueue } from '../queue/port.js';
import { withoutSdkLogging } from '../queue/aws-call.js';
import { SqsReconcileQueue } from '../queue/sqs.js';
import { DynamoApiBudget } from '../budget/dynamo.js';
import type { ApiBudget } from '../budget/port.js';
import { DynamoStateStore } from '../state/dynamo.js';
import { DynamoRestReads, type RestReadStore } from '../state/rest-reads.js';
import type { StateStore } from '../state/port.js';
import type { StepPorts } from '../step/ports.js';
import { EventBridgeScheduler } from '../timer/eventbridge.js';
import { MemoryScheduler } from '../timer/memory-scheduler.js';
import type { SchedulerPort, Timers } from '../timer/port.js';
import { QueueSchedulerTimers } from '../timer/timers.js';
import { NodeComponentNetwork } from '../components/node-network.js';
import { ApiServerClients, type ComponentAccess, type DeadlineClients, VIA_API_PROXY } from './clients.js';
import { LiveExecutor } from './executor.js';
import { lambdaSettings } from './lambda-env.js';
import { ObservedIndex } from './observed.js';
import { ClusterIdCache } from './pd-view.js';
import { LiveObserver } from './observer.js';
import { backupControllers } from './controllers.js';
import type { Ec2Volumes } from '../ec2/port.js';
import { Ec2QueryClient } from '../ec2/query-client.js';

/** What every handler of one process shares. `k8sCluster` is the first part of every cluster key. */
export type Runtime = {
  readonly k8sCluster: string;
  readonly config: ReconcilerConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly state: StateStore;
  readonly queue: Pick<ReconcileQueue, 'send' | 'changeVisibility'>;
  readonly timers: Timers;
  readonly clients: DeadlineClients;
  /** Shared by each step's observer and executor (identities of what was observed, per key). */
  readonly index: ObservedIndex;
  /**
   * The PD cluster ids this runtime's steps have read (bounded, keyed by the PD's member ids), so a
   * warm container reads each PD's id once, not on every step. The runtime's own: two runtimes (two
   * simulated worlds in one process) never share one.
   */
  readonly clusterIds: ClusterIdCache;
  /** Where steps keep their whole reads for health steps in other processes (docs/adr/0024); none kept without it. */
  readonly restReads?: RestReadStore;
  /** The per-EKS-cluster API request budget steps reserve from (docs/adr/0028); steps are not budgeted without it. */
  readonly apiBudget?: ApiBudget;
  /**
   * EventBridge Scheduler and where schedules deliver (the timers' queue, role and group): the
   * BackupSchedule controller keeps one recurring schedule per BackupSchedule there. Without it that
   * controller does not run.
   */
  readonly scheduling?: { readonly scheduler: SchedulerPort; readonly target: { readonly queueArn: string; readonly schedulerRoleArn: string; readonly groupName?: string } };
  /** Jitters the backoff (default Math.random); a simulation passes a seeded one. */
  readonly random?: () => number;
  /** Names each step (default a random UUID); a simulation passes a seeded one, so its reports repeat. */
  readonly newReconcileId?: () => string;
  /**
   * EC2 of the EKS cluster's region, for the `VolumeModifying` feature gate's EBS modifier (present
   * only when the gate is on: `FEATURE_GATES=VolumeModifying=true`).
   */
  readonly ec2?: Ec2Volumes;
};

/** One invocation: its id (lease owners, logs) and the time it has left (the Lambda context's). */
export type Invocation = { readonly invocationId: string; readonly remainingMs: () => number };

/** The invocation a Lambda context describes. */
export function invocationOf(context: Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>): Invocation {
  return { invocationId: context.awsRequestId, remainingMs: () => context.getRemainingTimeInMillis() };
}

/**
 * The step engine's ports for one invocation ending at `deadlineAtMs` (on the runtime's clock).
 * In-call retries of Kubernetes and PD calls give up by the end of the steps' work budget (the
 * deadline less the safety margin the engine keeps for its commit).
 */
export function stepPorts(runtime: Runtime, deadlineAtMs: number): StepPorts {
  const clients = runtime.clients.withDeadline(deadlineAtMs, deadlineAtMs - runtime.config.step.safetyMarginMs);
  const { state, timers, queue, clock, logger, metrics, index, clusterIds, random, newReconcileId, apiBudget } = runtime;
  const seeded = { ...(random ? { random } : {}), ...(newReconcileId ? { newReconcileId } : {}), ...(apiBudget ? { apiBudget } : {}) };
  const observerOptions = {
    detectNodeFailure: runtime.config.step.reconcile.detectNodeFailure === true,
    clusterIds,
    ...(runtime.config.watchNamespaces === undefined ? {} : { operatorScope: 'namespace' as const }),
    ...(runtime.restReads === undefined ? {} : { restReads: runtime.restReads }),
  };
  const scheduling = runtime.scheduling;
  const schedules = scheduling === undefined ? undefined : { ...scheduling, timeZone: runtime.config.backupScheduleTimeZone ?? DEFAULT_BACKUP_SCHEDULE_TIMEZONE };
  const controllers = clients.objects === undefined ? {} : { controllers: backupControllers(clients.objects, clients, schedules) };
  const executor = new LiveExecutor(clients, index, scheduling?.scheduler, runtime.ec2);
  const observer = new LiveObserver(clients, index, { ...observerOptions, ...(runtime.config.step.reconcile.volumeModifying === true ? { volumeModifying: runtime.ec2 ? { ec2: runtime.ec2 } : {} } : {}) });
  return { state, observer, executor, timers, queue, clock, logger, metrics, ...seeded, ...controllers };
}

/** The invocation's deadline on the runtime's clock. */
export function deadlineOf(runtime: Runtime, invocation: Invocation): number {
  return runtime.clock.nowMs() + invocation.remainingMs();
}

/** The key of a TidbCluster of this runtime's Kubernetes cluster. */
export function clusterKeyOf(runtime: Runtime, namespace: string, name: string): ClusterKey {
  return formatClusterKey({ k8sCluster: runtime.k8sCluster, namespace, name });
}

/**
 * The Lambda runtime from `env` (serverless.yml sets the variables; `lambda-env.ts` lists them).
 * Throws `ConfigError` naming every missing or invalid variable. AWS clients use the function's
 * role; the EKS token is minted from it and renewed well before it expires. Build it once per
 * process (the handlers do, on first use), so a warm container keeps clients, connections and token.
 * With several EKS clusters registered (`EKS_CLUSTERS`), the first one's: `lambdaRuntimes` has all.
 */
export function lambdaRuntime(env: NodeJS.ProcessEnv = process.env): Runtime {
  const [first] = lambdaRuntimes(env);
  if (first === undefined) throw new TypeError('a registry has at least one EKS cluster');
  return first;
}

/**
 * One runtime per registered EKS cluster (docs/adr/0027), in registry order: each with its own
 * Kubernetes and component clients, EKS token, observed index and PD cluster ids; the AWS clients,
 * configuration, clock, logger and metrics are one set shared by all.
 */
export function lambdaRuntimes(env: NodeJS.ProcessEnv = process.env, resolved?: readonly ResolvedEksCluster[]): Runtime[] {
  const config = parseConfig(env);
  const s = lambdaSettings(env);
  const clusters = resolved ?? s.eksClusters.map((eks, i) => (isResolved(eks) ? eks : unresolved(i, eks.name)));
  const clock = new RealClock();
  const queue = new SqsReconcileQueue({ client: withoutSdkLogging(new SQSClient({ region: s.region })), queueUrl: s.queueUrl });
  const scheduler = new EventBridgeScheduler({ client: withoutSdkLogging(new SchedulerClient({ region: s.region })) });
  const dynamo = withoutSdkLogging(new DynamoDBClient({ region: s.region }));
  const target = { queueArn: s.queueArn, schedulerRoleArn: s.schedulerRoleArn, ...(s.schedulerGroup ? { groupName: s.schedulerGroup } : {}) };
  const shared = {
    config,
    clock,
    logger: new PowertoolsLogger(),
    metrics: new PowertoolsMetrics(),
    state: new DynamoStateStore(dynamo, { tableName: s.stateTable }),
    restReads: new DynamoRestReads(dynamo, s.stateTable),
    apiBudget: new DynamoApiBudget(dynamo, s.stateTable),
    queue,
    timers: new QueueSchedulerTimers({ queue, scheduler, ...target }),
    scheduling: { scheduler, target },
  };
  return clusters.map((eks) => {
    const tokens = new EksTokenSource({ clusterName: eks.name, region: eks.region, credentials: () => credentialsFromEnv(env), clock });
    const kubeConfig = eksKubeConfig({ endpoint: eks.endpoint, caData: eks.caData, tokens, clusterName: eks.name });
    // EC2 in the EKS cluster's region (its EBS volumes), signed as the function's role.
    const ec2 = config.step.reconcile.volumeModifying === true ? { ec2: new Ec2QueryClient({ region: eks.region, credentials: async () => credentialsFromEnv(env), clock }) } : {};
    return {
      ...shared,
      ...ec2,
      k8sCluster: eks.name,
      clients: ApiServerClients.fromKubeConfig(kubeConfig, clock, {}, s.componentAccess === 'direct' ? { mode: 'direct', network: new NodeComponentNetwork() } : VIA_API_PROXY),
      index: new ObservedIndex(config.step.observedClusters),
      clusterIds: new ClusterIdCache(),
    };
  });
}

/**
 * `lambdaRuntimes` after reading, from EKS DescribeCluster, the endpoint and CA of every registry
 * entry that leaves them out (`lib/eks/cluster-access.ts`), once per process (the handlers keep the
 * fleet). Throws `ConfigError` for a bad environment, and the resolver's typed error naming the
 * entry when DescribeCluster fails (`TerminalError` for a missing `eks:DescribeCluster`).
 */
export async function resolvedLambdaRuntimes(env: NodeJS.ProcessEnv = process.env, describer?: ClusterDescriber): Promise<Runtime[]> {
  const s = lambdaSettings(env);
  if (s.eksClusters.every(isResolved)) return lambdaRuntimes(env);
  const eks = describer ?? new (await import('../eks/describe-cluster.js')).EksClusterDescriber();
  const clusters = await resolveEksClusters(s.eksClusters, { describer: eks, clock: new RealClock() });
  return lambdaRuntimes(env, clusters);
}

function unresolved(index: number, name: string): never {
  throw new ConfigError([`EKS_CLUSTERS[${index}] (${name}): no endpoint and caData; build the runtimes with resolvedLambdaRuntimes, which reads them from DescribeCluster`]);
}

/** Where a local runtime's Kubernetes API is: a KubeConfig, a kubeconfig document, or a file path. */
export type KubeConfigSource = KubeConfig | Record<string, unknown> | string;

/**
 * A local runtime's parts. The state table must exist (`ensureTable`). Without a `scheduler`, long
 * timers go to an in-process scheduler on `clock` that delivers to `queue`.
 */
export type LocalRuntimeOptions = {
  readonly kubeConfig: KubeConfigSource;
  readonly dynamo: DynamoDBClient | { readonly endpoint: string; readonly region?: string; readonly credentials?: LocalCredentials };
  readonly tableName: string;
  readonly queue: ReconcileQueue;
  readonly clock: Clock;
  readonly k8sCluster?: string;
  readonly scheduler?: SchedulerPort;
  readonly config?: ReconcilerConfig;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** Jitters the remote clients' in-call retries (default Math.random); a simulation passes a seeded one. */
  readonly clientRandom?: () => number;
  /**
   * Where long timers' schedules go and deliver, as serverless.yml sets RECONCILE_QUEUE_ARN,
   * SCHEDULER_ROLE_ARN and SCHEDULER_GROUP (default: placeholders in the `default` group, for a
   * scheduler that enforces no IAM).
   */
  readonly timerTarget?: { readonly queueArn: string; readonly schedulerRoleArn: string; readonly groupName?: string };
  /**
   * How the functions reach the components: the simulated world gives functions it places in the
   * cluster's VPC its network (`direct`). Default `api-proxy`: a runtime on a laptop's kubeconfig is
   * outside the VPC.
   */
  readonly componentAccess?: ComponentAccess;
  /** EC2 for the `VolumeModifying` gate (the world's endpoint); without it the gate's EBS modifier cannot call EC2. */
  readonly ec2?: Ec2Volumes;
};

/** Static credentials of a local client (the local world maps the access key id to a function's role). */
export type LocalCredentials = { readonly accessKeyId: string; readonly secretAccessKey: string };

/** A runtime on local ends: the same adapters as Lambda except where the options replace them. */
export function localRuntime(options: LocalRuntimeOptions): Runtime {
  const { clock, queue } = options;
  const scheduler = options.scheduler ?? new MemoryScheduler({ clock, queue });
  const dynamo = options.dynamo instanceof DynamoDBClient ? options.dynamo : localDynamo(options.dynamo);
  const timerTarget = options.timerTarget ?? { queueArn: 'arn:aws:sqs:local:000000000000:reconcile', schedulerRoleArn: 'arn:aws:iam::000000000000:role/local' };
  const config = options.config ?? parseConfig({});
  return {
    k8sCluster: options.k8sCluster ?? 'local',
    config,
    clock,
    logger: options.logger ?? silentLogger,
    metrics: options.metrics ?? silentMetrics,
    state: new DynamoStateStore(dynamo, { tableName: options.tableName }),
    restReads: new DynamoRestReads(dynamo, options.tableName),
    apiBudget: new DynamoApiBudget(dynamo, options.tableName),
    queue,
    timers: new QueueSchedulerTimers({ queue, scheduler, ...timerTarget }),
    scheduling: { scheduler, target: timerTarget },
    clients: ApiServerClients.fromKubeConfig(toKubeConfig(options.kubeConfig), clock, options.clientRandom ? { random: options.clientRandom } : {}, options.componentAccess ?? VIA_API_PROXY),
    index: new ObservedIndex(config.step.observedClusters),
    clusterIds: new ClusterIdCache(),
    ...(options.ec2 ? { ec2: options.ec2 } : {}),
  };
}

function localDynamo(where: { readonly endpoint: string; readonly region?: string; readonly credentials?: LocalCredentials }): DynamoDBClient {
  return withoutSdkLogging(
    new DynamoDBClient({
      endpoint: where.endpoint,
      region: where.region ?? 'us-east-1',
      credentials: where.credentials ?? { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
}

function toKubeConfig(source: KubeConfigSource): KubeConfig {
  if (source instanceof KubeConfig) return source;
  if (typeof source === 'string') return kubeConfigFromFile(source);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(JSON.stringify(source));
  return kubeConfig;
}
