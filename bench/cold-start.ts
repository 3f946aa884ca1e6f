/**
 * A Lambda cold start on this machine: a fresh Node process (node_modules/.bin/node, Lambda's
 * nodejs22.x major) imports a function's bundle and, when asked, runs its handler once — the first
 * invocation, with the Lambda environment serverless.yml gives it pointed at local ends started
 * here: the simulated API server behind an HTTPS front with its own CA (as EKS: https, a CA, a
 * minted token), dynalite with the state table, and a local SQS server with the reconcile queue
 * (reached through the SDK's `AWS_ENDPOINT_URL_<SERVICE>` variables). The process reports the time
 * to import and to answer; under callgrind the same run counts instructions instead, which a
 * loaded machine does not disturb.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../lib/local/dynalite.js';
import { type IamFront, startIamFront } from '../lib/local/iam/http-front.js';
import { localIam } from '../lib/local/iam/identities.js';
import { loadIamExtract } from '../lib/local/iam/authority.js';
import type { IamExtract } from '../lib/local/iam/extract.js';
import { type TlsFront, startTlsFront } from '../lib/local/tls-front.js';
import { RealClock } from '../lib/platform/clock.js';
import { MAX_VISIBILITY_SECONDS } from '../lib/queue/port.js';
import { SimWorld } from '../lib/sim/world.js';
import { serverlessMemorySize } from '../scripts/esbuild-options.js';
import { type FirstInvocation, K8S, firstInvocation } from './cold-invocations.js';

const ROOT = join(import.meta.dirname, '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const VALGRIND = '/usr/bin/valgrind';

/** The memory serverless.yml gives every function (none sets its own). */
const MEMORY_MB = serverlessMemorySize();

/**
 * The arguments Lambda's Node.js runtime starts node with for a function of `memoryMb` (its
 * bootstrap gives a tenth of the memory to the young generation, half of that to each semi-space, and
 * the rest to the old generation), so that the bundle collects garbage here as often as there: with
 * node's own defaults the young generation is smaller and a warm step pays for more scavenges.
 */
export function lambdaNodeArgs(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return ['--expose-gc', '--max-http-header-size', '81920', `--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/**
 * What one cold process measured: import, the first invocation when it ran one, and — when asked
 * to repeat it — the mean wall time and CPU time (user + system) of each warm invocation after it.
 */
export type ColdSample = {
  importMs: number;
  readyMs: number;
  firstMs?: number;
  warmMs?: number;
  warmCpuMs?: number;
  /** The mean CPU time of the first `splitAfter` warm invocations alone, when asked. */
  splitCpuMs?: number;
  /** The reconcile steps the process logged as stepped (not skipped or held), all invocations. */
  stepped?: number;
  /** The first line of its output that logged a step not taken, or an error (to say why). */
  unstepped?: string;
};

/**
 * The local ends, the Lambda environment pointing at them, and `firstInvocation`: a function's
 * first invocation, what it reads (its cluster, the exporter's namespace) created first.
 */
export type ColdEnds = {
  readonly env: Record<string, string>;
  /** The simulated cluster behind the HTTPS front (its store, to fill with what a run reads). */
  readonly world: SimWorld;
  /**
   * Function `fn`'s first invocation. `baseline`: as the baseline commit's bundle runs, under the
   * roles it was deployed with (`baselineGrants`), not today's.
   */
  firstInvocation(fn: string, n: number, baseline?: boolean): FirstInvocation;
  /**
   * `count` receipt handles of real messages received from the reconcile queue (and held for the
   * queue's maximum visibility), so that a step's visibility change succeeds as it does in Lambda.
   */
  receipts(count: number): Promise<string[]>;
  close(): Promise<void>;
};

/**
 * Today's roles plus what the baseline commit's serverless.yml granted every function on the state
 * table (one shared role: GetItem, PutItem, UpdateItem, DeleteItem, Query). The baseline's sweep reads
 * state items one by one with GetItem, which today's sweep role does not grant; under today's roles
 * alone its first invocation is refused, which measures nothing of its start.
 */
export function baselineGrants(extract: IamExtract): IamExtract {
  const statement = {
    Effect: 'Allow',
    Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query'],
    Resource: { 'Fn::GetAtt': ['StateTable', 'Arn'] },
  };
  const roles = Object.fromEntries(Object.entries(extract.roles).map(([id, role]) => [id, { ...role, statements: [...role.statements, statement] }]));
  return { ...extract, roles };
}

/** Starts the local ends: an empty simulated cluster (HTTPS), the state table, the reconcile queue. */
export async function startColdEnds(): Promise<ColdEnds> {
  const world = await SimWorld.start({ clock: new RealClock() });
  const front: TlsFront = await startTlsFront(world.url);
  const dynamo: EmbeddedDynamo = await startEmbeddedDynamo('bench-cold-state');
  const baselineFront: IamFront = await startIamFront({ service: 'dynamodb', target: dynamo.backend, iam: localIam({ tableName: dynamo.tableName, extract: baselineGrants(loadIamExtract()) }) });
  const sqsServer: Server = await createSqsServer({ port: 0, hostname: '127.0.0.1' });
  const sqsEndpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'bench-cold-reconcile' }))).QueueUrl ?? '';
  const env = {
    CLUSTER_NAME: K8S,
    KUBE_ENDPOINT: front.url,
    KUBE_CA_DATA: front.caData,
    AWS_REGION: 'us-east-1',
    // The state table's IAM front knows each function by its access key: reconcile's unless a first
    // invocation names its own function (below).
    AWS_ACCESS_KEY_ID: dynamo.identities.iam.credentialsOf('reconcile').accessKeyId,
    AWS_SECRET_ACCESS_KEY: 'local-secret',
    AWS_SESSION_TOKEN: 'local-session',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: sqsEndpoint,
    // Nothing listens here: a first invocation that needed EventBridge Scheduler would fail loudly.
    AWS_ENDPOINT_URL_SCHEDULER: 'http://127.0.0.1:9',
    STATE_TABLE: dynamo.tableName,
    RECONCILE_QUEUE_URL: queueUrl,
    RECONCILE_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:bench-cold-reconcile',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/bench-scheduler',
    SCHEDULER_GROUP: 'bench-timers',
    FUNCTION_TIMEOUT_SECONDS: '60',
    QUEUE_VISIBILITY_TIMEOUT_SECONDS: '370',
    // The exporter's session is its Lambda time left less this (see EXPORTER_SESSION_MS).
    EXPORTER_SAFETY_MARGIN_MS: '1000',
    EXPORTER_FLUSH_WINDOW_MS: '100',
    POWERTOOLS_DEV: 'false',
  };
  return {
    env,
    world,
    firstInvocation: (fn, n, baseline = false) => {
      const first = firstInvocation(world, fn, n, baseline);
      const endpoint: Record<string, string> = baseline ? { AWS_ENDPOINT_URL_DYNAMODB: baselineFront.endpoint } : {};
      return { ...first, env: { ...first.env, ...endpoint, AWS_ACCESS_KEY_ID: dynamo.identities.iam.credentialsOf(fn).accessKeyId } };
    },
    receipts: async (count) => {
      const handles: string[] = [];
      for (let sent = 0; sent < count; sent += 10) {
        const entries = Array.from({ length: Math.min(10, count - sent) }, (_, i) => ({ Id: `r${i}`, MessageBody: `{"bench":${sent + i}}` }));
        await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      }
      while (handles.length < count) {
        const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: Math.min(10, count - handles.length), VisibilityTimeout: MAX_VISIBILITY_SECONDS }));
        for (const m of got.Messages ?? []) if (m.ReceiptHandle) handles.push(m.ReceiptHandle);
      }
      return handles;
    },
    close: async () => {
      sqs.destroy();
      await front.close();
      await world.stop();
      await baselineFront.close();
      await dynamo.close();
      sqsServer.closeAllConnections?.();
      await new Promise((resolve) => sqsServer.close(resolve));
    },
  };
}

// Runs in the measured process. Stdout also carries the functions' own log lines, so the sample
// is the last line; a failed first invocation fails the run. Under callgrind the process runs some
// DILATION times slower, so its clock is slowed by as much (Date.now, performance.now, timers,
// AbortSignal.timeout): the adapters' timeouts, tuned for real time, must not fire on the slowness.
const CHILD = `
const D = Number(process.env.BENCH_TIME_DILATION ?? '1');
if (D !== 1) {
  const [realNow, realPerf, realSetTimeout, realSetInterval] = [Date.now, performance.now.bind(performance), setTimeout, setInterval];
  const [d0, p0] = [realNow(), realPerf()];
  Date.now = () => Math.floor(d0 + (realNow() - d0) / D);
  performance.now = () => p0 + (realPerf() - p0) / D;
  globalThis.setTimeout = (f, ms, ...a) => realSetTimeout(f, (ms ?? 0) * D, ...a);
  globalThis.setInterval = (f, ms, ...a) => realSetInterval(f, (ms ?? 0) * D, ...a);
  AbortSignal.timeout = (ms) => {
    const c = new AbortController();
    realSetTimeout(() => c.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms * D).unref();
    return c.signal;
  };
  // The same for code that takes its timers from node:timers or node:timers/promises (middy does).
  const { createRequire, syncBuiltinESMExports } = await import('node:module');
  const req = createRequire(process.cwd() + '/');
  const timers = req('node:timers');
  Object.assign(timers, { setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval });
  const promises = req('node:timers/promises');
  const realWait = promises.setTimeout;
  promises.setTimeout = (ms, value, options) => realWait((ms ?? 0) * D, value, options);
  syncBuiltinESMExports();
}
const t0 = performance.now();
const m = await import(process.env.BENCH_MODULE);
if (typeof m.handler !== 'function') throw new Error('the bundle exports no handler');
const t1 = performance.now();
const sample = { importMs: t1 - t0, readyMs: t1 };
if (process.env.BENCH_EVENT) {
  // Each invocation has the function's whole timeout ahead of it, as in Lambda.
  let deadline = 0;
  const context = { awsRequestId: 'cold-' + process.pid, functionName: 'bench', memoryLimitInMB: '${MEMORY_MB}', getRemainingTimeInMillis: () => deadline - Date.now() };
  const invoke = (event) => {
    deadline = Date.now() + Number(process.env.BENCH_REMAINING_MS);
    return m.handler(event, context);
  };
  // Invocation i (-1 the first): its own message ids, and the next real receipt handle when given.
  // Receipt handles come on stdin: a thousand of them would not fit in one environment variable.
  const receipts = process.env.BENCH_RECEIPTS_ON_STDIN ? JSON.parse((await import('node:fs')).readFileSync(0, 'utf8')) : [];
  let nextReceipt = 0;
  const eventOf = (i) => {
    const event = JSON.parse(process.env.BENCH_EVENT);
    for (const record of event.Records ?? []) {
      if (i >= 0) record.messageId += '-' + i;
      if (nextReceipt < receipts.length) record.receiptHandle = receipts[nextReceipt++];
    }
    return event;
  };
  const failed = (r) => r && (r.ok === false || (Array.isArray(r.batchItemFailures) && r.batchItemFailures.length > 0));
  const result = await invoke(eventOf(-1));
  sample.firstMs = performance.now() - t1;
  if (failed(result)) throw new Error('first invocation failed: ' + JSON.stringify(result));
  const warmup = Number(process.env.BENCH_WARMUP ?? '0');
  const repeat = Number(process.env.BENCH_REPEAT ?? '0');
  for (let i = 0; i < warmup; i++) {
    const again = await invoke(eventOf(repeat + i));
    if (failed(again)) throw new Error('warm-up invocation ' + i + ' failed: ' + JSON.stringify(again));
  }
  const split = Number(process.env.BENCH_SPLIT ?? '0');
  if (repeat > 0) {
    const [c0, w0] = [process.cpuUsage(), performance.now()];
    for (let i = 0; i < repeat; i++) {
      const again = await invoke(eventOf(i));
      if (failed(again)) throw new Error('warm invocation ' + i + ' failed: ' + JSON.stringify(again));
      if (i + 1 === split) {
        const first = process.cpuUsage(c0);
        sample.splitCpuMs = (first.user + first.system) / 1000 / split;
      }
    }
    const cpu = process.cpuUsage(c0);
    sample.warmMs = (performance.now() - w0) / repeat;
    sample.warmCpuMs = (cpu.user + cpu.system) / 1000 / repeat;
  }
}
process.stdout.write('\\n' + JSON.stringify(sample) + '\\n');
process.exit(0);
`;

/** How much slower a process runs under callgrind, about: its clock is slowed by as much. */
const CALLGRIND_DILATION = 60;

/** How to run one cold process: the bundle, and the first invocation with its environment, if any. */
export type ColdRun = {
  file: string;
  env?: Record<string, string>;
  first?: FirstInvocation;
  /** Invocations of the same event after the first, measured. */
  repeat?: number;
  /** Invocations run between the first and the measured ones, not measured (the JIT warming up). */
  warmup?: number;
  /** Also time this many of the measured invocations, the first ones, on their own (`splitCpuMs`). */
  splitAfter?: number;
  /** Receipt handles for the first invocation, the warm-up and the measured ones, in that order. */
  receipts?: readonly string[];
};

function childArgs(run: ColdRun): { args: string[]; env: NodeJS.ProcessEnv; input?: string } {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', BENCH_MODULE: pathToFileURL(run.file).href, ...(run.first ? { ...run.env, ...run.first.env } : {}) };
  const args = [...lambdaNodeArgs(MEMORY_MB), '--input-type=module', '-e', CHILD];
  if (!run.first) return { args, env };
  Object.assign(env, { BENCH_EVENT: JSON.stringify(run.first.event), BENCH_REMAINING_MS: String(run.first.remainingMs), BENCH_REPEAT: String(run.repeat ?? 0), BENCH_WARMUP: String(run.warmup ?? 0), BENCH_SPLIT: String(run.splitAfter ?? 0), BENCH_RECEIPTS_ON_STDIN: '1' });
  return { args, env, input: JSON.stringify(run.receipts ?? []) };
}

/** Runs a process to its end without blocking this one (the local ends are served from here). */
function runAsync(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    child.stdin.end(input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** One cold process, timed. Throws with the process's stderr when it fails. */
export async function coldRun(run: ColdRun): Promise<ColdSample> {
  const { args, env, input } = childArgs(run);
  const out = await runAsync(NODE, args, env, 300_000, input);
  if (out.status !== 0) throw new Error(`cold run of ${run.file} failed (${out.status}): ${out.stderr.slice(-800)}`);
  checkFirst(run, out.stdout, 'cold run');
  const sample = JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}') as ColdSample;
  return { ...sample, stepped: steppedIn(out.stdout), unstepped: unsteppedIn(out.stdout) };
}

/** True when callgrind can be run (`/usr/bin/valgrind`). */
export function hasCallgrind(): boolean {
  return spawnSync(VALGRIND, ['--version'], { encoding: 'utf8' }).status === 0;
}

/**
 * The same cold process under callgrind: the instructions it executed, all threads, start to exit;
 * with `expectStepped`, it must have logged exactly that many reconcile steps taken.
 */
export async function coldInstructions(run: ColdRun, expectStepped?: number): Promise<number> {
  const { args, env, input } = childArgs(run);
  const out = await runAsync(VALGRIND, ['--tool=callgrind', '--callgrind-out-file=/dev/null', NODE, ...args], { ...env, BENCH_TIME_DILATION: String(CALLGRIND_DILATION) }, 1_800_000, input);
  const collected = /Collected\s*:\s*(\d+)/.exec(out.stderr)?.[1];
  if (out.status !== 0 || collected === undefined) throw new Error(`callgrind run of ${run.file} failed (${out.status}): ${out.stderr.slice(-800)}`);
  checkFirst(run, out.stdout, 'callgrind run');
  const stepped = steppedIn(out.stdout);
  if (expectStepped !== undefined && stepped !== expectStepped) throw new Error(`callgrind run of ${run.file}: ${stepped} of ${expectStepped} invocations stepped`);
  return Number(collected);
}

/** Throws when the first invocation's own check finds it did not do its work. */
function checkFirst(run: ColdRun, stdout: string, what: string): void {
  const problem = run.first?.check?.(stdout);
  if (problem !== undefined) throw new Error(`${what} of ${run.file}: ${problem}`);
}

/** The reconcile steps a process logged as taken (not skipped, e.g. on a held lease). */
const steppedIn = (stdout: string): number => stdout.split('"disposition":"stepped"').length - 1;

/** The first logged line of a step not taken (a skip, a held lease) or of an error, cut to 600 characters. */
const unsteppedIn = (stdout: string): string | undefined =>
  stdout
    .split('\n')
    .find((line) => (line.includes('"disposition"') && !line.includes('"disposition":"stepped"')) || /"level":"(ERROR|WARN)"/.test(line))
    ?.slice(0, 600);
