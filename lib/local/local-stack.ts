/**
 * The local stack (`npm start`) on the real clock: the simulated world (or a real cluster from a
 * kubeconfig), an embedded DynamoDB, a local SQS server with a dead-letter queue, the real exporter
 * watching the API server over HTTP, a poller feeding the reconcile handler exactly as Lambda's SQS
 * event source mapping does (batches, visibility timeout, partial failures), the sweep on its
 * schedule and the timers. The handlers are the ones Lambda runs; only the ends are local.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { KubeConfig } from '@kubernetes/client-node';
import { createSqsServer } from 'local-aws-sqs';
import { createAdminHandler } from '../../functions/admin.js';
import { createReconcileHandler } from '../../functions/reconcile.js';
import { createSweepHandler } from '../../functions/sweep.js';
import { Exporter } from '../exporter/exporter.js';
import { KubeWatchSource } from '../exporter/kube-source.js';
import { watchedResources } from '../exporter/resources.js';
import { kubeConfigFromFile } from '../kube/auth.js';
import { RealClock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import { SqsPoller } from '../queue/poller.js';
import { SqsReconcileQueue } from '../queue/sqs.js';
import { TidbSimulation } from '../sim/tidb/simulation.js';
import { SimWorld } from '../sim/world.js';
import { type Runtime, localRuntime } from '../wiring/ports.js';
import { reportControllerError } from '../cli/report.js';
import { userInfo } from 'node:os';
import { MemoryAccessEntries } from '../eks/port.js';
import { newLocalCredentials, startAdminEndpoint, type LocalCredentials } from './admin-endpoint.js';
import { LOCAL_OPERATOR, operatorAccessEntry, operatorRbacObjects, sessionArnOf } from './admin-identity.js';
import { type EmbeddedDynamo, startEmbeddedDynamo } from './dynalite.js';
import { simulatedContext } from './sim-stack.js';

/** Options of the local stack. */
export type LocalStackOptions = {
  /** A kubeconfig file of a real cluster; without it the simulated world runs. */
  kubeconfigPath?: string;
  /** How often the sweep runs (default 5 minutes, as deployed). */
  sweepIntervalMs?: number;
  logger: Logger;
};

/** The running local stack. */
export type LocalStack = {
  readonly runtime: Runtime;
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

/** Starts every part; `stop` ends them in reverse order. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const clock = new RealClock();
  const { world, sim } = options.kubeconfigPath ? { world: undefined, sim: undefined } : await startSimulatedWorld(clock);
  const dynamo = await startEmbeddedDynamo();
  const sqs = await startLocalSqs();
  const queue = new SqsReconcileQueue({ client: sqs.client, queueUrl: sqs.queueUrl });
  const runtime = localRuntime({
    kubeConfig: options.kubeconfigPath ?? (world?.kubeconfig() as Record<string, unknown>),
    dynamo: dynamo.client,
    tableName: dynamo.tableName,
    queue,
    clock,
    logger: options.logger,
    k8sCluster: options.kubeconfigPath ? 'kubeconfig' : 'local',
  });
  const kubeConfig = options.kubeconfigPath ? kubeConfigFromFile(options.kubeconfigPath) : runtimeKubeConfig(world);
  const exporter = new Exporter(
    { source: new KubeWatchSource(kubeConfig, { clock }), queue, state: runtime.state, clock, logger: options.logger },
    { k8sCluster: runtime.k8sCluster, resources: watchedResources() },
  );
  const handler = createReconcileHandler({ runtime: () => runtime });
  const poller = new SqsPoller({ queue, handler, clock, waitMs: 0, concurrency: 1, functionTimeoutMs: 60_000, onError: (err, info) => options.logger.warn('poller error', { phase: info.phase, error: String(err) }) });
  exporter.start();
  poller.start();
  const sweep = createSweepHandler({ runtime: () => runtime });
  let sweeps = 0;
  const sweepTimer = setInterval(() => {
    void sweep({} as never, simulatedContext(`sweep-${++sweeps}`)).catch((err: unknown) => options.logger.warn('sweep failed', { error: String(err) }));
  }, options.sweepIntervalMs ?? 300_000);
  sweepTimer.unref();
  // The local operator: an access entry in a group the simulated world binds to the admin ClusterRole.
  // Against a real cluster (--kubeconfig) nothing is written there: bind the group yourself (README).
  const accessEntries = new MemoryAccessEntries([operatorAccessEntry(LOCAL_OPERATOR)]);
  if (world) for (const object of operatorRbacObjects(LOCAL_OPERATOR)) if (!world.store.get(String(object.kind), undefined, object.metadata.name ?? '')) world.store.create(String(object.kind), structuredClone(object));
  const credentials = newLocalCredentials(sessionArnOf(LOCAL_OPERATOR.roleArn, localSessionName()));
  const admin = await startAdminEndpoint(createAdminHandler({ runtime: () => runtime, accessEntries: () => accessEntries }), credentials);
  return {
    runtime,
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
  const world = await SimWorld.start({ clock, runtimes: [sim.runtime], random: sim.random, proxyRandom: sim.proxyRandom, onControllerError: reportControllerError });
  sim.attach(world);
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

/** A running local SQS server and a client for it. */
export type LocalSqs = { client: SQSClient; queueUrl: string; close(): Promise<void> };

/** A local SQS server with the reconcile queue and its dead-letter queue, as serverless.yml makes them. */
export async function startLocalSqs(): Promise<LocalSqs> {
  const server: Server = await createSqsServer({ port: 0, hostname: '127.0.0.1' });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const dlq = await client.send(new CreateQueueCommand({ QueueName: 'tidb-reconciler-reconcile-dlq' }));
  const dlqArn = (await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: 'tidb-reconciler-reconcile',
      Attributes: { VisibilityTimeout: '370', ...(dlqArn ? { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }) } : {}) },
    }),
  );
  if (!queue.QueueUrl) throw new Error('the local SQS server did not return a queue URL');
  return {
    client,
    queueUrl: queue.QueueUrl,
    close: async () => {
      client.destroy();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
