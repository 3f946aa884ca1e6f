/**
 * The local stack (`npm start`) on the real clock: the simulated world (or a real cluster from a
 * kubeconfig), an embedded DynamoDB, a local SQS server with a dead-letter queue, the real exporter
 * watching the API server over HTTP, a poller feeding the reconcile handler exactly as Lambda's SQS
 * event source mapping does (batches, visibility timeout, partial failures), the sweep on its
 * schedule and the timers. The handlers are the ones Lambda runs; only the ends are local, and they
 * enforce each function's role of the packaged template (lib/local/iam/, ADR 0014).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { KubeConfig } from '@kubernetes/client-node';
import { createSqsServer } from 'local-aws-sqs';
import { createAdminHandler } from '../../functions/admin.js';
import { createReconcileHandler } from '../../functions/reconcile.js';
import { createSweepHandler } from '../../functions/sweep.js';
import { KubeWatchSource } from '../exporter/kube-source.js';
import { watchedResources } from '../exporter/resources.js';
import { LAMBDA_MAX_SESSION_SECONDS } from '../exporter/config.js';
import { kubeConfigFromFile } from '../kube/auth.js';
import { RealClock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import { SqsPoller } from '../queue/poller.js';
import { SqsReconcileQueue } from '../queue/sqs.js';
import { SqsDeadLetterRedrive } from '../queue/redrive.js';
import { TidbSimulation } from '../sim/tidb/simulation.js';
import { SimWorld } from '../sim/world.js';
import { SimEc2 } from '../sim/ec2-api.js';
import { Ec2QueryClient } from '../ec2/query-client.js';
import { parseConfig } from '../platform/config.js';
import { startEc2Endpoint } from './ec2-endpoint.js';
import { SimComponentNetwork } from './sim-network.js';
import { VpcProxyNetwork } from './vpc-proxy-network.js';
import { DynamoStateStore } from '../state/dynamo.js';
import { MemoryScheduler } from '../timer/memory-scheduler.js';
import { type LocalCredentials as AwsClientCredentials, type Runtime, localRuntime } from '../wiring/ports.js';
import { reportControllerError } from '../cli/report.js';
import { userInfo } from 'node:os';
import { MemoryAccessEntries } from '../eks/port.js';
import { newLocalCredentials, startAdminEndpoint, type LocalCredentials } from './admin-endpoint.js';
import { LOCAL_OPERATOR, operatorAccessEntry, operatorRbacObjects, sessionArnOf } from './admin-identity.js';
import { startEmbeddedDynamo } from './dynalite.js';
import { DEPLOYER, type LocalIam } from './iam/authority.js';
import { startIamFront } from './iam/http-front.js';
import { simulatedContext } from './sim-stack.js';
import { applyRbacFile, applyRbacObjects, functionKubeconfig } from './function-rbac.js';
import { selfSignedCert } from './tls-front.js';
import { ContinuousExporter, ScheduledExporterSessions, type SimExporter } from './exporter-sessions.js';
import { DEFAULT_LATENCY, EXPORTER_SESSION_PERIOD_MS, type LatencyModel } from './latency.js';

/** Options of the local stack. */
export type LocalStackOptions = {
  /** A kubeconfig file of a real cluster; without it the simulated world runs. */
  kubeconfigPath?: string;
  /**
   * With `kubeconfigPath`: the functions are placed in that cluster's VPC, whose routing this HTTP
   * CONNECT proxy offers (`sim serve`'s), and reach components directly (docs/adr/0032). Without
   * it a kubeconfig's cluster is reached from outside its VPC, through the API server's proxy.
   */
  vpcProxyUrl?: URL;
  /** How often the sweep runs (default 5 minutes, as deployed). */
  sweepIntervalMs?: number;
  /**
   * The delivery latency as deployed (default `DEFAULT_LATENCY`): the event source's batching window,
   * the exporter's one session a minute. Steps take the time they take; the handlers are warm.
   */
  latency?: LatencyModel;
  logger: Logger;
};

/** The running local stack. */
export type LocalStack = {
  /** The reconcile function's runtime. */
  readonly runtime: Runtime;
  /** Each function's runtime (its own role and clients). */
  readonly runtimes: Readonly<Record<'reconcile' | 'sweep' | 'admin', Runtime>>;
  /** The IAM the local ends enforce: what each function was allowed, and every refusal. */
  readonly iam: LocalIam;
  /** The local SQS server: the reconcile queue, its dead-letter queue and the deployer's client. */
  readonly sqs: LocalSqs;
  readonly kubeConfig: KubeConfig;
  /** The simulated world, when no kubeconfig was given. */
  readonly world: SimWorld | undefined;
  readonly apiServerUrl: string;
  /** The admin function's handler behind a local function URL on 127.0.0.1 (see admin-endpoint.ts). */
  readonly adminUrl: string;
  /** The region and credentials the CLI signs admin requests with (the local operator's). */
  readonly adminSigning: { readonly region: string; readonly credentials: LocalCredentials };
  stop(): Promise<void>;
};

/**
 * Starts every part; `stop` ends them in reverse order. Each function runs as its own role of the
 * packaged template: its own DynamoDB and SQS clients, signed with the access key id that names its
 * role to the IAM fronts before dynalite and the SQS server, and its own view of the scheduler.
 * Every refusal is reported on stderr as it happens and kept in `iam.denials`.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  if (options.vpcProxyUrl && !options.kubeconfigPath) throw new Error('vpcProxyUrl needs kubeconfigPath: the simulated world the stack starts itself already places the functions in its VPC');
  const clock = new RealClock();
  const { world, sim } = options.kubeconfigPath ? { world: undefined, sim: undefined } : await startSimulatedWorld(clock);
  const dynamo = await startEmbeddedDynamo();
  const ids = dynamo.identities;
  ids.iam.onDenial = (d) => console.error(`IAM refused a call of ${d.principal}: ${d.message}`);
  const sqs = await startLocalSqs(ids.iam);
  const queueOf = (fn: string): SqsReconcileQueue => new SqsReconcileQueue({ client: sqs.clientFor(ids.iam.credentialsOf(fn)), queueUrl: sqs.queueUrl });
  // Scheduler itself delivers (checked in process as the role the schedule's target names).
  const scheduler = new MemoryScheduler({ clock, queue: sqs.deployerQueue, deliverTo: ids.deliverTo(sqs.deployerQueue) });
  // In the simulated world each function authenticates as its EKS access entry, under infra/'s RBAC.
  if (world?.gate) world.gate.onDenial = (d) => console.error(`RBAC refused a request: ${d.message}`);
  // One network for every function, as they share the VPC's routing.
  const vpcNetwork = options.vpcProxyUrl ? new VpcProxyNetwork(options.vpcProxyUrl) : undefined;
  const kubeConfigOf = (fn: string): string | Record<string, unknown> => options.kubeconfigPath ?? functionKubeconfig(world as SimWorld, ids, fn);
  // FEATURE_GATES=VolumeModifying=true: the simulated world's EC2 (its EBS volumes), reached as each function's role (ADR 0031).
  const gates = process.env['FEATURE_GATES'];
  const config = parseConfig(gates ? { FEATURE_GATES: gates } : {});
  const ec2 = world && config.step.reconcile.volumeModifying === true ? await startEc2Endpoint(new SimEc2(world.store, world.controllers.ebs, ids.iam.resolver), ids.iam) : undefined;
  const runtimeOf = (fn: 'reconcile' | 'sweep' | 'admin'): Runtime =>
    localRuntime({
      kubeConfig: kubeConfigOf(fn),
      dynamo: ids.dynamo(fn),
      tableName: dynamo.tableName,
      queue: queueOf(fn),
      clock,
      logger: options.logger,
      k8sCluster: options.kubeconfigPath ? 'kubeconfig' : 'local',
      scheduler: ids.scheduler(fn, scheduler),
      timerTarget: ids.timerTarget,
      config,
      ...(ec2 ? { ec2: new Ec2QueryClient({ region: ids.iam.resolver.region, endpoint: ec2.endpoint, credentials: ids.iam.credentialsOf(fn), clock }) } : {}),
      // The simulated world places the functions in its cluster's VPC; a kubeconfig's cluster is reached
      // from outside unless a VPC proxy is given.
      ...(world ? { componentAccess: { mode: 'direct' as const, network: new SimComponentNetwork(world.proxy, { inVpc: true }) } } : {}),
      ...(!world && vpcNetwork ? { componentAccess: { mode: 'direct' as const, network: vpcNetwork } } : {}),
    });
  const runtimes = { reconcile: runtimeOf('reconcile'), sweep: runtimeOf('sweep'), admin: runtimeOf('admin') };
  const kubeConfig = options.kubeconfigPath ? kubeConfigFromFile(options.kubeconfigPath) : runtimeKubeConfig(world);
  const latency = options.latency ?? DEFAULT_LATENCY;
  const exporterDeps = { source: new KubeWatchSource(options.kubeconfigPath ? kubeConfig : kubeConfigFromObject(kubeConfigOf('exporter') as Record<string, unknown>), { clock }), queue: queueOf('exporter'), state: new DynamoStateStore(ids.dynamo('exporter'), { tableName: dynamo.tableName }), clock, logger: options.logger };
  const exporterOptions = { k8sCluster: runtimes.reconcile.k8sCluster, resources: watchedResources(), ...(latency.exporterGapMs > 0 ? { watchTimeoutSeconds: LAMBDA_MAX_SESSION_SECONDS } : {}) };
  // As deployed: one exporter session a period (the first starts now), each watching all but the gap, one watch per kind.
  const exporter: SimExporter =
    latency.exporterGapMs > 0
      ? new ScheduledExporterSessions(exporterDeps, exporterOptions, { periodMs: EXPORTER_SESSION_PERIOD_MS, gapMs: latency.exporterGapMs, phaseMs: 0 })
      : new ContinuousExporter(exporterDeps, exporterOptions);
  const handler = createReconcileHandler({ runtime: () => runtimes.reconcile });
  // The poller plays Lambda's SQS event source mapping, which receives and deletes as reconcile's role.
  const poller = new SqsPoller({ queue: queueOf('reconcile'), handler, clock, waitMs: 0, batchingWindowMs: latency.batchingWindowMs, concurrency: 1, functionTimeoutMs: 60_000, onError: (err, info) => options.logger.warn('poller error', { phase: info.phase, error: String(err) }) });
  exporter.start();
  poller.start();
  const sweep = createSweepHandler({ runtime: () => runtimes.sweep });
  let sweeps = 0;
  // The sweep's rate schedule: Scheduler assumes its role, which must be allowed to invoke the sweep.
  const sweepTimer = setInterval(() => {
    const invoke = async (): Promise<unknown> => (ids.iam.authorizeScheduledInvoke('sweep'), sweep({} as never, simulatedContext(`sweep-${++sweeps}`)));
    void invoke().catch((err: unknown) => options.logger.warn('sweep failed', { error: String(err) }));
  }, options.sweepIntervalMs ?? 300_000);
  sweepTimer.unref();
  // The local operator: an access entry in a group the simulated world binds to the admin ClusterRole.
  // Against a real cluster (--kubeconfig) nothing is written there: bind the group yourself (README).
  const accessEntries = new MemoryAccessEntries([operatorAccessEntry(LOCAL_OPERATOR)]);
  if (world) applyRbacObjects(world, operatorRbacObjects(LOCAL_OPERATOR));
  const credentials = newLocalCredentials(sessionArnOf(LOCAL_OPERATOR.roleArn, localSessionName()));
  // The admin function's redrive: SQS's message move tasks on the local server, signed as the admin role.
  const redrive = new SqsDeadLetterRedrive({ client: sqs.clientFor(ids.iam.credentialsOf('admin')), deadLetterQueueUrl: sqs.deadLetterQueueUrl, deadLetterQueueArn: sqs.deadLetterQueueArn, destinationArn: ids.queueArn });
  const admin = await startAdminEndpoint(createAdminHandler({ runtime: () => runtimes.admin, accessEntries: () => ids.accessEntries('admin', accessEntries), redrive: () => redrive }), credentials);
  return {
    runtime: runtimes.reconcile,
    runtimes,
    iam: ids.iam,
    sqs,
    kubeConfig,
    world,
    apiServerUrl: world?.url ?? kubeConfig.getCurrentCluster()?.server ?? '',
    adminUrl: admin.url,
    adminSigning: { region: admin.region, credentials },
    stop: async () => {
      await admin.stop();
      clearInterval(sweepTimer);
      await poller.stop();
      await Promise.race([exporter.stop(), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
      sim?.stop();
      await world?.stop();
      await ec2?.close();
      await sqs.close();
      await dynamo.close();
    },
  };
}

/** The session name of the local operator: the OS user's name, as an STS session name allows it. */
function localSessionName(): string {
  let name = 'local';
  try {
    name = userInfo().username;
  } catch {
    // no user database entry (some containers): keep 'local'
  }
  return name.replace(/[^\w+=,.@-]/g, '-').slice(0, 64) || 'local';
}

async function startSimulatedWorld(clock: RealClock): Promise<{ world: SimWorld; sim: TidbSimulation }> {
  const sim = new TidbSimulation({ seed: 1 });
  const world = await SimWorld.start({ clock, runtimes: [sim.runtime], random: sim.random, proxyRandom: sim.proxyRandom, onControllerError: reportControllerError, rbac: true, tls: selfSignedCert() });
  sim.attach(world);
  applyRbacFile(world);
  return { world, sim };
}

function runtimeKubeConfig(world: SimWorld | undefined): KubeConfig {
  if (!world) throw new Error('no simulated world and no kubeconfig');
  return kubeConfigFromObject(world.kubeconfig());
}

function kubeConfigFromObject(doc: Record<string, unknown>): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(doc));
  return kc;
}

/**
 * A running local SQS server behind an IAM front: the reconcile queue's URL, a client for given
 * credentials, the deployer's client (set-up, inspection), and the queue as the deployer (for
 * Scheduler's own deliveries, checked in process).
 */
export type LocalSqs = { queueUrl: string; deadLetterQueueUrl: string; deadLetterQueueArn: string; client: SQSClient; clientFor(credentials: AwsClientCredentials): SQSClient; deployerQueue: SqsReconcileQueue; close(): Promise<void> };

/**
 * A local SQS server (account and region of the local world) with the reconcile queue and its
 * dead-letter queue, as serverless.yml makes them, behind an IAM front enforcing `iam`.
 */
export async function startLocalSqs(iam: LocalIam): Promise<LocalSqs> {
  const server: Server = await createSqsServer({ port: 0, hostname: '127.0.0.1', accountId: iam.resolver.account, region: iam.resolver.region });
  const front = await startIamFront({ service: 'sqs', target: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, iam });
  const clients: SQSClient[] = [];
  const clientFor = (credentials: AwsClientCredentials): SQSClient => {
    const client = new SQSClient({ endpoint: front.endpoint, region: iam.resolver.region, credentials });
    clients.push(client);
    return client;
  };
  const deployer = clientFor(DEPLOYER);
  const queueName = iam.resolver.nameOf('ReconcileQueue');
  const dlq = await deployer.send(new CreateQueueCommand({ QueueName: iam.resolver.nameOf('ReconcileDeadLetterQueue') }));
  const dlqArn = (await deployer.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
  const queue = await deployer.send(
    new CreateQueueCommand({
      QueueName: queueName,
      Attributes: { VisibilityTimeout: '370', ...(dlqArn ? { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }) } : {}) },
    }),
  );
  const queueUrl = queue.QueueUrl;
  if (!queueUrl || !dlq.QueueUrl || !dlqArn) throw new Error('the local SQS server did not return the queues\' URLs and ARN');
  return {
    queueUrl,
    deadLetterQueueUrl: dlq.QueueUrl,
    deadLetterQueueArn: dlqArn,
    client: deployer,
    clientFor,
    deployerQueue: new SqsReconcileQueue({ client: deployer, queueUrl }),
    close: async () => {
      for (const client of clients) client.destroy();
      await front.close();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
