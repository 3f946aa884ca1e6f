/**
 * The sweep at fleet size: 10 000 TidbClusters in the simulated API server, the state table in
 * dynalite and the reconcile queue on a local SQS server, swept once by the real `sweepFleet` with
 * one batch in flight (the old sequential sweep) and with the bounded concurrent sends.
 *
 *   npx tsx bench/fleet-sweep.ts [--keys N]
 */
import { CRD_KIND } from '../lib/sim/crd/registry.js';
import { tidbClusterCrd } from '../lib/sim/crd/tidbcluster.js';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { startEmbeddedDynamo } from '../lib/local/dynalite.js';
import { type LocalSqs, startLocalSqs } from '../lib/local/local-stack.js';
import { RealClock } from '../lib/platform/clock.js';
import { parseConfig } from '../lib/platform/config.js';
import { SqsReconcileQueue } from '../lib/queue/sqs.js';
import { ProxyRegistry } from '../lib/sim/proxy.js';
import { SimApiServer } from '../lib/sim/server.js';
import { simKubeconfig } from '../lib/sim/kubeconfig.js';
import { ObjectStore } from '../lib/sim/store.js';
import { localRuntime } from '../lib/wiring/ports.js';
import { type SweepSummary, sweepFleet } from '../lib/wiring/sweep.js';
import { table } from './stats.js';

const NS = 'fleet';

/** What one timed sweep did. */
export type SweepTiming = { concurrency: number; wallMs: number; cpuMs: number; enqueued: number | undefined; queued: number; error?: string };

async function queueDepth(sqs: LocalSqs): Promise<number> {
  const out = await sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: sqs.queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0);
}

/** Sweeps `keys` clusters once per concurrency in `concurrencies`, each against an empty queue. */
export async function timeSweeps(keys: number, concurrencies: readonly number[]): Promise<SweepTiming[]> {
  const clock = new RealClock();
  const store = new ObjectStore(clock, { historyLimit: 1000 });
  // TidbClusters are served by their CRD, as in every simulated world.
  store.create(CRD_KIND, tidbClusterCrd());
  store.create('Namespace', { metadata: { name: NS } });
  for (let i = 0; i < keys; i++) {
    store.create('TidbCluster', { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: `tc-${String(i).padStart(5, '0')}`, namespace: NS }, spec: { version: 'v8.5.0', pd: { baseImage: 'pingcap/pd', replicas: 3, requests: { storage: '1Gi' } } } });
  }
  const server = new SimApiServer(store, new ProxyRegistry(store));
  const url = await server.listen(0);
  const dynamo = await startEmbeddedDynamo();
  const out: SweepTiming[] = [];
  try {
    for (const concurrency of concurrencies) {
      // A fresh queue per run: what is on it afterwards is what this sweep sent.
      const sqs = await startLocalSqs(dynamo.identities.iam);
      const runtime = localRuntime({
        kubeConfig: simKubeconfig(url),
        dynamo: dynamo.identities.dynamo('sweep'),
        tableName: dynamo.tableName,
        queue: new SqsReconcileQueue({ client: sqs.clientFor(dynamo.identities.iam.credentialsOf('sweep')), queueUrl: sqs.queueUrl }),
        clock,
        config: { ...parseConfig({}), sweep: { dueWithinMs: 60_000, sendConcurrency: concurrency } },
      });
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      // The deployed sweep has 60 s; past that it stops and reports the keys it did not reach.
      const summary = await sweepFleet(runtime, { invocationId: `sweep-${concurrency}`, remainingMs: () => 60_000 }).catch((err: unknown) => err);
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const queued = await queueDepth(sqs);
      await sqs.close();
      const error = summary instanceof Error ? summary.message : undefined;
      out.push({ concurrency, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, enqueued: summary instanceof Error ? undefined : (summary as SweepSummary).enqueued, queued, ...(error ? { error } : {}) });
    }
  } finally {
    await dynamo.close();
    await server.close();
  }
  return out;
}

/** The sweep section: 10 000 keys, sequential and bounded-concurrent. */
export async function benchFleetSweep(keys = 10_000): Promise<string> {
  const runs = await timeSweeps(keys, [1, 8, 16]);
  return [
    `### The sweep of ${keys.toLocaleString('en')} clusters (local SQS server, dynalite, simulated API server)`,
    '',
    'The real `sweepFleet`: LIST every TidbCluster page by page, then per batch of 10 keys one BatchGetItem of their states and one SendMessageBatch; `SWEEP_SEND_CONCURRENCY` batches in flight (1 is the old sequential order). Target: ≤ 20 s for 10 000 clusters. The servers run in the benchmark process, so its CPU time (all of it: client, API server, dynalite, SQS server) is shown beside the wall time.',
    '',
    table(['batches in flight', 'wall s', 'process CPU s', 'keys enqueued', 'messages on the queue', 'vs one in flight'], runs.map((r) => [
      r.concurrency, (r.wallMs / 1000).toFixed(1), (r.cpuMs / 1000).toFixed(1), r.enqueued ?? `failed: ${r.error ?? '?'}`, r.queued, `${((runs[0]?.wallMs ?? r.wallMs) / r.wallMs).toFixed(1)}×`,
    ])),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--keys');
  console.log(await benchFleetSweep(at >= 0 ? Number(process.argv[at + 1]) : 10_000));
  process.exit(0);
}
