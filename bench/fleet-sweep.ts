/**
 * The sweep at fleet size (issue 30: 10 000 real-size clusters with a populated state table within
 * 20 s): 10 000 copies of one real cluster at rest (bench/fleet-sample.ts: its TidbCluster with its
 * status, and its state item and kept read) in the simulated API server and the state table
 * (dynalite), the reconcile queue on a local SQS server, swept once by the real `sweepFleet` as main
 * did (every key stepped in full, every message at once) and with the defaults (the cheap check:
 * a full step only for keys whose full read is due, each full read spread over the 3–3.5 h). The
 * keys' last full reads are spread evenly over that interval; their health checks are pending, as
 * in a fleet at rest.
 *
 *   npm run bench -- --only fleet-sweep      (or npx tsx bench/fleet-sweep.ts [--keys N])
 */
import { type AttributeValue, BatchWriteItemCommand as DynamoBatchWrite } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { CRD_KIND } from '../lib/sim/crd/registry.js';
import { tidbClusterCrd } from '../lib/sim/crd/tidbcluster.js';
import { writeWatchedUntil } from '../lib/exporter/coverage.js';
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../lib/local/dynalite.js';
import { type LocalSqs, startLocalSqs } from '../lib/local/local-stack.js';
import { type Clock, RealClock } from '../lib/platform/clock.js';
import { parseConfig, type SweepConfig } from '../lib/platform/config.js';
import { SqsReconcileQueue } from '../lib/queue/sqs.js';
import { ProxyRegistry } from '../lib/sim/proxy.js';
import { SimApiServer } from '../lib/sim/server.js';
import { simKubeconfig } from '../lib/sim/kubeconfig.js';
import { ObjectStore } from '../lib/sim/store.js';
import { DynamoStateStore } from '../lib/state/dynamo.js';
import { clusterPk, STATE_SK } from '../lib/state/keys.js';
import { ATTR } from '../lib/state/table.js';
import { spreadOf } from '../lib/step/sweep-rest.js';
import { localRuntime, type Runtime } from '../lib/wiring/ports.js';
import { type SweepSummary, sweepFleet } from '../lib/wiring/sweep.js';
import { fixedFraction } from './at-rest-projection.js';
import { type ClusterSample, type RawItem, sampleClusterAtRest } from './fleet-sample.js';
import { table } from './stats.js';
import { recordGoal } from './goals.js';

const NS = 'fleet';
/** serverless.yml's sweep schedule, `rate(5 minutes)`. */
const SWEEP_INTERVAL_MS = 300_000;

/** Where one sweep's time went: the LIST (and the mark) before the first state read, then the batches. */
type Profile = { listMs: number; getMany: number; getManyMs: number; sends: number; sendMs: number; messages: number };
/** What one timed sweep did. */
export type SweepTiming = { name: string; wallMs: number; cpuMs: number; summary?: SweepSummary; queued: number; error?: string; profile: Profile };

/** Real time from `baseMs` on, restarted before each sweep: the sample's state items stay as fresh as when taken. */
class SampleClock implements Clock {
  private readonly real = new RealClock();
  private t0 = performance.now();
  constructor(private readonly baseMs: number) {}
  restart(): void {
    this.t0 = performance.now();
  }
  nowMs(): number {
    return this.baseMs + Math.floor(performance.now() - this.t0);
  }
  setTimer(fn: () => void, afterMs: number): ReturnType<Clock['setTimer']> {
    return this.real.setTimer(fn, afterMs);
  }
  clearTimer(handle: ReturnType<Clock['setTimer']>): void {
    this.real.clearTimer(handle);
  }
  sleep(afterMs: number): Promise<void> {
    return this.real.sleep(afterMs);
  }
}

/** Messages on the queue, visible or delayed (the sweep's spread delays its messages). */
async function queueDepth(sqs: LocalSqs): Promise<number> {
  const out = await sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: sqs.queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'] }));
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
}

/** An item's size as DynamoDB counts it, near enough: attribute names and values, binary as its bytes. */
export function itemSize(value: AttributeValue | RawItem): number {
  const v = value as Record<string, unknown>;
  if (typeof v['S'] === 'string') return Buffer.byteLength(v['S']);
  if (typeof v['N'] === 'string') return v['N'].length;
  if (v['B'] instanceof Uint8Array) return v['B'].byteLength;
  if (v['M'] !== undefined) return itemSize(v['M'] as RawItem);
  if (Array.isArray(v['L'])) return (v['L'] as AttributeValue[]).reduce((n, x) => n + itemSize(x), 0);
  if (v['BOOL'] !== undefined || v['NULL'] !== undefined) return 1;
  return Object.entries(value).reduce((n, [name, x]) => n + Buffer.byteLength(name) + itemSize(x as AttributeValue), 0);
}

/** The sample's state item and kept read for `key`, whose TidbCluster has `uid` and `generation`, last read in full at `fullAtMs`. */
function itemsFor(sample: ClusterSample, key: string, uid: string, generation: number, fullAtMs: number): RawItem[] {
  return sample.items.map((original) => {
    const item = structuredClone(original);
    item[ATTR.pk] = { S: clusterPk(key) };
    if (item[ATTR.key] !== undefined) item[ATTR.key] = { S: key };
    const verified = item[ATTR.sk]?.S === STATE_SK ? item[ATTR.lastStep]?.M?.['verified']?.M : undefined;
    if (item[ATTR.sk]?.S === STATE_SK && verified === undefined) throw new Error(`the sample's state item has no lastStep.verified: it was not at rest`);
    if (verified !== undefined) Object.assign(verified, { uid: { S: uid }, generation: { N: String(generation) }, fullAtMs: { N: String(fullAtMs) } });
    return item;
  });
}

/** Writes `items` 25 to a request (BatchWriteItem's most), 8 requests in flight, retrying what comes back unprocessed. */
async function writeAll(dynamo: EmbeddedDynamo, items: readonly RawItem[]): Promise<void> {
  const chunks: RawItem[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < chunks.length) {
      let requests = (chunks[next++] ?? []).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 10) throw new Error(`BatchWriteItem: ${requests.length} items still unprocessed`);
        const out = await dynamo.client.send(new DynamoBatchWrite({ RequestItems: { [dynamo.tableName]: requests } }));
        requests = (out.UnprocessedItems?.[dynamo.tableName] ?? []).flatMap((r) => (r.PutRequest?.Item ? [{ PutRequest: { Item: r.PutRequest.Item } }] : []));
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** `runtime` with its state reads and queue sends timed and counted into `profile`. */
function profiled(runtime: Runtime, profile: Profile, t0: number): Runtime {
  const timed = async <T>(call: () => Promise<T>, add: (ms: number) => void): Promise<T> => {
    const start = performance.now();
    try {
      return await call();
    } finally {
      add(performance.now() - start);
    }
  };
  const state = Object.create(runtime.state) as Runtime['state'];
  state.getMany = (keys, opts) => {
    if (profile.getMany++ === 0) profile.listMs = performance.now() - t0;
    return timed(() => runtime.state.getMany(keys, opts), (ms) => (profile.getManyMs += ms));
  };
  const queue = Object.create(runtime.queue) as Runtime['queue'];
  queue.send = (messages) => {
    profile.sends++;
    profile.messages += messages.length;
    return timed(() => runtime.queue.send(messages), (ms) => (profile.sendMs += ms));
  };
  return { ...runtime, state, queue };
}

/** Sweeps `keys` copies of the sample once per named sweep configuration, each against an empty queue. */
export async function timeSweeps(keys: number, runs: readonly { name: string; sweep: SweepConfig }[]): Promise<{ timings: SweepTiming[]; objectBytes: number; itemBytes: string[] }> {
  const sample = await sampleClusterAtRest();
  const k8sCluster = sample.key.split('/')[0] ?? 'local';
  const clock = new SampleClock(sample.atMs);
  const store = new ObjectStore(clock, { historyLimit: 1000 });
  store.create(CRD_KIND, tidbClusterCrd());
  store.create('Namespace', { metadata: { name: NS } });
  const { metadata, ...body } = sample.cluster;
  const dynamo = await startEmbeddedDynamo();
  const defaults = parseConfig({});
  // Steady state just before a sweep: each key's last full read evenly within its due time (the
  // interval plus its share of the spread) and one sweep interval more — those past due are this sweep's.
  const dueMs = (key: string): number => (defaults.sweep.fullReadIntervalMs ?? 0) + spreadOf(key, defaults.sweep.fullReadSpreadMs ?? 0) + SWEEP_INTERVAL_MS;
  const items: RawItem[] = [];
  for (let i = 0; i < keys; i++) {
    const name = `tc-${String(i).padStart(5, '0')}`;
    const created = store.create('TidbCluster', { ...structuredClone(body), metadata: { name, namespace: NS, ...(metadata.labels ? { labels: metadata.labels } : {}), ...(metadata.annotations ? { annotations: metadata.annotations } : {}) } }, { keepStatus: true });
    const key = `${k8sCluster}/${NS}/${name}`;
    items.push(...itemsFor(sample, key, String(created.metadata.uid), Number(created.metadata.generation ?? 1), sample.atMs - Math.floor(fixedFraction(i) * dueMs(key))));
  }
  await writeAll(dynamo, items);
  // The exporter's watched-until mark, fresh: no events may have been missed.
  await writeWatchedUntil(new DynamoStateStore(dynamo.client, { tableName: dynamo.tableName }), k8sCluster, sample.atMs);
  const server = new SimApiServer(store, new ProxyRegistry(store));
  const url = await server.listen(0);
  const timings: SweepTiming[] = [];
  try {
    for (const run of runs) {
      // A fresh queue per run: what is on it afterwards is what this sweep sent.
      const sqs = await startLocalSqs(dynamo.identities.iam);
      const base = localRuntime({
        kubeConfig: simKubeconfig(url),
        dynamo: dynamo.identities.dynamo('sweep'),
        tableName: dynamo.tableName,
        queue: new SqsReconcileQueue({ client: sqs.clientFor(dynamo.identities.iam.credentialsOf('sweep')), queueUrl: sqs.queueUrl }),
        clock,
        k8sCluster,
        config: { ...defaults, sweep: run.sweep },
      });
      const profile: Profile = { listMs: 0, getMany: 0, getManyMs: 0, sends: 0, sendMs: 0, messages: 0 };
      clock.restart();
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      // The deployed sweep has 60 s; past that it stops and reports the keys it did not reach.
      const summary = await sweepFleet(profiled(base, profile, t0), { invocationId: `sweep-${run.name}`, remainingMs: () => 60_000 }).catch((err: unknown) => err);
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const queued = await queueDepth(sqs);
      await sqs.close();
      const error = summary instanceof Error ? summary.message : undefined;
      timings.push({ name: run.name, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, queued, profile, ...(summary instanceof Error ? { error } : { summary: summary as SweepSummary }) });
    }
  } finally {
    await dynamo.close();
    await server.close();
  }
  const itemBytes = sample.items.map((item) => `${(itemSize(item) / 1024).toFixed(1)} KB (sort key \`${item[ATTR.sk]?.S ?? '?'}\`)`);
  return { timings, objectBytes: JSON.stringify(sample.cluster).length, itemBytes };
}

/** The sweep section: `keys` real-size clusters at rest, swept as main did and with the defaults. */
export async function benchFleetSweep(keys = 10_000): Promise<string> {
  const defaults = parseConfig({}).sweep;
  const { timings, objectBytes, itemBytes } = await timeSweeps(keys, [
    { name: 'before (main: every key in full, all at once)', sweep: { ...defaults, fullReadIntervalMs: 0, spreadSeconds: 0 } },
    { name: 'after (defaults)', sweep: defaults },
  ]);
  const s = (ms: number): string => (ms / 1000).toFixed(1);
  const col = (f: (t: SweepTiming) => string | number): string[] => timings.map((t) => String(f(t)));
  const [before, after] = timings;
  if (before !== undefined && after !== undefined) {
    const wall = (t: SweepTiming): string => (t.error === undefined ? `${s(t.wallMs)} s` : `failed: ${t.error}`);
    recordGoal({ section: 'fleet-sweep', goal: `the sweep of ${keys.toLocaleString('en')} real-size clusters, populated state table, ≤ 20 s`, before: wall(before), after: wall(after), met: after.error === undefined && after.wallMs <= 20_000 });
  }
  return [
    `### The sweep of ${keys.toLocaleString('en')} real-size clusters at rest, populated state table (local SQS server, dynalite, simulated API server)`,
    '',
    `\`npm run bench -- --only fleet-sweep\` (bench/fleet-sweep.ts, bench/fleet-sample.ts). ${keys.toLocaleString('en')} copies of one full cluster (PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1) taken at rest from test/scenarios/at-rest-load.yaml on the simulated stack: its TidbCluster with its status (${(objectBytes / 1024).toFixed(1)} KB of JSON), and in the state table its state item and its kept read (${itemBytes.join(' and ')}, as DynamoDB sizes items), each key's last full read evenly within its due time (${(defaults.fullReadIntervalMs ?? 0) / 3_600_000} h plus its share of ${(defaults.fullReadSpreadMs ?? 0) / 60_000} min) and one sweep interval more, so those past due are this sweep's (a fleet long at rest, just before a sweep), their health checks pending, the exporter's mark fresh. The real \`sweepFleet\`: LIST every TidbCluster page by page, then per batch of 10 keys one BatchGetItem of their states and one SendMessageBatch of what the batch sends, ${defaults.sendConcurrency ?? 8} batches in flight. Before: as main (every key stepped in full, no spread); after: the defaults. Goal: ≤ 20 s for 10 000 clusters. The servers run in the benchmark process, so its CPU time (client, API server, dynalite, SQS server) is shown beside the wall time; the two sweeps ran one after the other in one process and are comparable with each other, not with other runs. Where the time went: the LIST (and the mark's read) until the first state read; then the state reads' and the sends' summed time (they overlap: ${defaults.sendConcurrency ?? 8} batches in flight).`,
    '',
    table(['', ...col((t) => t.name)], [
      ['wall s', ...col((t) => s(t.wallMs))],
      ['process CPU s', ...col((t) => s(t.cpuMs))],
      ['listed', ...col((t) => t.summary?.listed ?? `failed: ${t.error ?? '?'}`)],
      ['sent for a full step', ...col((t) => (t.summary ? t.summary.enqueued - t.summary.checked : '–'))],
      ['sent for a health check', ...col((t) => t.summary?.checked ?? '–')],
      ['left at rest (health check pending)', ...col((t) => t.summary?.atRest ?? '–')],
      ['messages on the queue after', ...col((t) => t.queued)],
      ['LIST until the first state read, s', ...col((t) => s(t.profile.listMs))],
      ['BatchGetItem calls / summed s', ...col((t) => `${t.profile.getMany} / ${s(t.profile.getManyMs)}`)],
      ['SendMessageBatch calls / summed s', ...col((t) => `${t.profile.sends} / ${s(t.profile.sendMs)}`)],
    ]),
    '',
    `Goal (≤ 20 s for ${keys.toLocaleString('en')} clusters), this run: ${timings.map((t) => `${t.name} ${s(t.wallMs)} s, ${t.wallMs <= 20_000 && t.error === undefined ? 'met' : '**not met**'}`).join('; ')}.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--keys');
  console.log(await benchFleetSweep(at >= 0 ? Number(process.argv[at + 1]) : 10_000));
  process.exit(0);
}
