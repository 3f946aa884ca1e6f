/**
 * The Lambda CPU of a step with nothing to do, counted in the function's own process: the
 * reconcile bundle exactly as serverless.yml builds it runs in a fresh `node_modules/.bin/node`
 * process (bench/cold-start.ts) against a simulated three-member PD cluster at rest (reached over
 * HTTPS with its own CA, as EKS) and the stack's own state table, takes its first (cold) step, then
 * the same trigger again and again. The warm steps' CPU time (user + system, `process.cpuUsage`)
 * is noisy on a loaded machine; callgrind's instruction count is not, so the instructions of one
 * warm step are also given: the process with the warm steps minus the same process without them.
 * The same is measured for the cold-start section's baseline commit (before), early in a
 * container's life and in steady service. Target: ≤ 8 ms of CPU per no-op step.
 *
 *   npx tsx bench/run.ts   (section "no-op step")
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDynamo } from '../lib/local/dynalite.js';
import { startTlsFront } from '../lib/local/tls-front.js';
import { functionUser } from '../lib/local/function-rbac.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { buildFunctions } from '../scripts/build.js';
import { coldInstructions, coldRun, hasCallgrind, startColdEnds, type ColdRun, type ColdSample } from './cold-start.js';
import { BASELINE_COMMIT, buildBaseline } from './bundle.js';
import { BENCH_SCENARIOS, loadScenario } from './probes.js';
import { table } from './stats.js';

/**
 * Warm steps measured per process; the steps a container has taken before the steady-state
 * measurement (V8 has compiled the hot code by then); processes timed; the target.
 */
const WARM_STEPS = 50;
const STEADY_AFTER = 200;
/**
 * The long-run measurement: LONG_STEPS steps after LONG_AFTER. V8 optimizes a function with
 * TurboFan once it has run about 3 000 times (node 22's --invocation-count-for-turbofan), on
 * threads whose CPU the process's time includes; so a function a step runs k times is compiled
 * near step 3 000 / k, once per container. Fifty steps after the first thousand fall on the compiling of
 * everything a step runs three times (each AWS SDK call's code, each of three members' code); the
 * steps up to 3 000 include the compiling of what a step runs once or twice. Their mean is what a
 * step costs a container in long service, each one-off compilation spread over the steps it serves;
 * the first WARM_STEPS of them are also shown on their own. Timed only: under callgrind these steps
 * take minutes per process.
 */
const LONG_AFTER = 1_000;
const LONG_STEPS = 2_000;
/** Steps counted under callgrind: enough that a one-off (a major GC, a tier-up) weighs little. */
const COUNTED_STEPS = 50;
/** Warm steps whose API server requests are counted (at the simulated API server, per variant). */
const ROUND_TRIP_STEPS = 10;
/**
 * Processes per variant: a short phase (50 steps, under a second) is at the mercy of a moment's load
 * on a shared machine, so it takes more processes for a steady median; the long-run phase averages
 * over 2 000 steps in each.
 */
const SHORT_RUNS = 9;
const LONG_RUNS = 5;
const TARGET_CPU_MS = 8;

const QUIET = { entryStarted: () => undefined, entryFinished: () => undefined, invocationFailed: () => undefined, runFinished: () => undefined };

/** The SQS event of one watch trigger for `key`, as the exporter sends it. */
function watchTrigger(key: string): unknown {
  const record = {
    messageId: 'noop',
    receiptHandle: 'rh-noop',
    body: JSON.stringify({ key, reason: 'watch' }),
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench-cold-reconcile',
    awsRegion: 'us-east-1',
  };
  return { Records: [record] };
}

/** The measured steps of a few processes. */
type Measured = { cpu: Spread; splitCpu?: Spread; wall: Spread; instructions: number | undefined };
/**
 * One measurement: `steps` timed after `warmup`, named by `label`; the first `splitAfter` of them
 * also timed on their own; in `runs` processes per variant; `counted` under callgrind as well.
 */
type Phase = { label: string; warmup: number; steps: number; runs: number; splitAfter?: number; counted: boolean };
const PHASES: readonly Phase[] = [
  { label: `early (steps 2–${1 + WARM_STEPS})`, warmup: 0, steps: WARM_STEPS, runs: SHORT_RUNS, counted: true },
  { label: `steady (steps ${STEADY_AFTER + 2}–${STEADY_AFTER + 1 + WARM_STEPS})`, warmup: STEADY_AFTER, steps: WARM_STEPS, runs: SHORT_RUNS, counted: true },
  { label: `long-run (steps ${LONG_AFTER + 2}–${LONG_AFTER + 1 + LONG_STEPS}, mean)`, warmup: LONG_AFTER, steps: LONG_STEPS, runs: LONG_RUNS, splitAfter: WARM_STEPS, counted: false },
];
type Variant = 'before' | 'after';
const VARIANTS: readonly Variant[] = ['after', 'before'];
type Spread = { median: number; min: number; max: number };

/** Median, min and max of a few samples. */
function spread(xs: number[]): Spread {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN };
}

/** Runs the section and returns its Markdown. */
export async function benchNoopStep(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tidb-reconciler-noop-'));
  const scenario = loadScenario(join(BENCH_SCENARIOS, 'pd-noop-step.yaml'));
  const stack = await SimStack.start(scenario, scenario.seed);
  const ends = await startColdEnds();
  // The reconcile process mints an EKS token from its credentials; the front maps it to the
  // reconcile function's user, as EKS maps the role through its access entry (the world checks RBAC).
  const token = stack.world.gate?.tokens.issue(functionUser(stack.dynamo.identities, 'reconcile'));
  const front = await startTlsFront(stack.world.url, undefined, token === undefined ? undefined : `Bearer ${token}`);
  // The baseline keeps its own state (its items predate today's), against the same cluster.
  const beforeState = await startEmbeddedDynamo('bench-noop-before');
  try {
    const report = await runScenario(stack, QUIET);
    if (!report.passed) throw new Error('pd-noop-step.yaml did not reach Ready');
    const after = (await buildFunctions(join(dir, 'after'))).find((f) => f.name === 'reconcile');
    const before = (await buildBaseline(dir)).find((f) => f.name === 'reconcile');
    if (!after || !before) throw new Error('no reconcile bundle');
    const { namespace, name } = scenario.cluster.metadata;
    // Steps run back to back here, ~20 a second for one key, where the API budget (50 requests a second,
    // 25 charged a step) would defer all but two a second: a budget that never runs out keeps each
    // step's charge (its conditional UpdateItem) in what is measured without deferring the step.
    const budget = { API_BUDGET_REQUESTS_PER_SECOND: '1000000', API_BUDGET_BURST_REQUESTS: '1000000' };
    const env = { ...ends.env, ...budget, CLUSTER_NAME: stack.runtime.k8sCluster, KUBE_ENDPOINT: front.url, KUBE_CA_DATA: front.caData, AWS_ENDPOINT_URL_DYNAMODB: stack.dynamo.endpoint, STATE_TABLE: stack.dynamo.tableName };
    const envOf: Record<Variant, Record<string, string>> = { after: env, before: { ...env, AWS_ENDPOINT_URL_DYNAMODB: beforeState.endpoint, STATE_TABLE: beforeState.tableName } };
    const fileOf: Record<Variant, string> = { after: after.file, before: before.file };
    const event = watchTrigger(`${stack.runtime.k8sCluster}/${namespace}/${name}`);
    const run = async (variant: Variant, warmup: number, repeat: number, splitAfter?: number): Promise<ColdRun> => ({ file: fileOf[variant], env: envOf[variant], first: { event, remainingMs: 60_000 }, warmup, repeat, splitAfter, receipts: await ends.receipts(1 + warmup + repeat) });
    const timed = async (variant: Variant, phase: Phase) => {
      const sample = await coldRun(await run(variant, phase.warmup, phase.steps, phase.splitAfter));
      // A step that found the lease held (or was skipped) would not be a no-op step's work.
      const invocations = 1 + phase.warmup + phase.steps;
      if (sample.stepped !== invocations) throw new Error(`${variant}: ${sample.stepped} of ${invocations} invocations stepped${sample.unstepped ? `; the first that did not: ${sample.unstepped}` : ''}`);
      return sample;
    };
    const instructionsOf = async (variant: Variant, warmup: number): Promise<number> => {
      const count = async (repeat: number): Promise<number> => coldInstructions(await run(variant, warmup, repeat), 1 + warmup + repeat);
      // After a warm-up, the first measured steps also finish the compilations it queued (a process
      // that ends right after its warm-up drops them): those are counted past them.
      const from = warmup === 0 ? 0 : COUNTED_STEPS;
      return ((await count(from + COUNTED_STEPS)) - (await count(from))) / COUNTED_STEPS;
    };
    // Before and after take turns, so a stretch of a busy machine falls on both alike.
    const measure = async (phase: Phase): Promise<Record<Variant, Measured>> => {
      const samples: Record<Variant, ColdSample[]> = { after: [], before: [] };
      for (let i = 0; i < phase.runs; i++) for (const variant of VARIANTS) samples[variant].push(await timed(variant, phase));
      const measured = async (variant: Variant): Promise<Measured> => ({
        cpu: spread(samples[variant].map((s) => s.warmCpuMs ?? Number.NaN)),
        splitCpu: phase.splitAfter ? spread(samples[variant].map((s) => s.splitCpuMs ?? Number.NaN)) : undefined,
        wall: spread(samples[variant].map((s) => s.warmMs ?? Number.NaN)),
        instructions: phase.counted && hasCallgrind() ? await instructionsOf(variant, phase.warmup) : undefined,
      });
      return { after: await measured('after'), before: await measured('before') };
    };
    // API server requests (Kubernetes, and PD through the proxy) of one warm step: the requests of a
    // process with ROUND_TRIP_STEPS warm steps minus those of the same process with none.
    const apiRequests = (): number => [...stack.world.server.requestCounts.values()].reduce((a, b) => a + b, 0);
    const requestsPerStep = async (variant: Variant): Promise<number> => {
      const before = apiRequests();
      await coldRun(await run(variant, 0, 0));
      const alone = apiRequests() - before;
      await coldRun(await run(variant, 0, ROUND_TRIP_STEPS));
      return (apiRequests() - before - 2 * alone) / ROUND_TRIP_STEPS;
    };
    const roundTrips: Record<Variant, number> = { after: await requestsPerStep('after'), before: await requestsPerStep('before') };
    const results: [Phase, Record<Variant, Measured>][] = [];
    for (const phase of PHASES) results.push([phase, await measure(phase)]);
    // One row of medians: before, after with its min–max, their ratio.
    const spreadRow = (label: string, before: Spread, after: Spread, bold: boolean): string[] => {
      const median = after.median.toFixed(2);
      return [label, before.median.toFixed(2), `${bold ? `**${median}**` : median} (${after.min.toFixed(2)}–${after.max.toFixed(2)})`, pct(after.median, before.median)];
    };
    const rows = [['API server requests (Kubernetes and PD)', roundTrips.before.toFixed(1), roundTrips.after.toFixed(1), pct(roundTrips.after, roundTrips.before)], ...results.flatMap(([phase, m]) => [
      spreadRow(`${phase.label}: CPU ms (user + system)`, m.before.cpu, m.after.cpu, true),
      ...(m.before.splitCpu && m.after.splitCpu ? [spreadRow(`… of which steps ${phase.warmup + 2}–${phase.warmup + 1 + (phase.splitAfter ?? 0)} alone: CPU ms`, m.before.splitCpu, m.after.splitCpu, false)] : []),
      spreadRow(`${phase.label}: wall ms`, m.before.wall, m.after.wall, false),
      ...(phase.counted ? [[`${phase.label}: M instructions (callgrind)`, mi(m.before.instructions), mi(m.after.instructions), m.before.instructions && m.after.instructions ? pct(m.after.instructions, m.before.instructions) : '–']] : []),
    ])];
    return [
      '### The Lambda CPU of a no-op step, before → after',
      '',
      `bench/scenarios/pd-noop-step.yaml: three PD members, Ready, at rest. A reconcile bundle runs in its own \`node_modules/.bin/node\` process against that cluster over HTTPS: one cold step, then steps of the same watch trigger, each finding nothing to do, each with the receipt handle of a real message on the local reconcile queue (so its lease hold succeeds, as in Lambda). **After**: this tree's bundle (as serverless.yml builds it) and the stack's state table. **Before**: the reconcile function of commit ${BASELINE_COMMIT.slice(0, 7)} (the cold-start section's baseline) built with its own serverless.yml, with a state table of its own, against the same cluster. Measured: the ${WARM_STEPS} steps right after the cold one (**early**: a container that has just started), ${WARM_STEPS} steps after ${STEADY_AFTER} more (**steady**: a container in service, its hottest code compiled by V8), and ${LONG_STEPS} steps after ${LONG_AFTER} more (**long-run**: a container in long service. V8 compiles a function with TurboFan once it has run about 3 000 times, on threads whose CPU the process's time includes, so what a step runs three times (each AWS SDK call's code, each member's code) is compiled around step 1 000 and what it runs once around step 3 000, once per container. The mean over these steps spreads each such compilation over the steps it serves; the first ${WARM_STEPS} of them, on the compiling of what a step runs three times, are shown on their own. Timed only, since under callgrind these steps take minutes). ${SHORT_RUNS} processes each for early and steady, ${LONG_RUNS} for long-run, before and after taking turns; every invocation must log a step taken (none skipped on a held lease). CPU is user + system time of the process over the measured steps (\`process.cpuUsage\`), divided by the steps (median of the processes, after: median (min–max)); instructions come from callgrind (early: the process with ${COUNTED_STEPS} measured steps minus the same process without them; steady: with ${2 * COUNTED_STEPS} minus with ${COUNTED_STEPS}, since a process that ends right after its warm-up drops the compilations the warm-up queued, which the next steps finish; divided by ${COUNTED_STEPS}; every invocation of both must log a step taken). API server requests are counted at the simulated API server: a process with ${ROUND_TRIP_STEPS} warm steps minus one with none, divided by ${ROUND_TRIP_STEPS} (DynamoDB and SQS calls are not in them). The simulated API server, PD and dynalite run in the benchmark's process, so their work is not counted. Each invocation starts with a minute of remaining time, as under a one-minute Lambda timeout. Target: ≤ ${TARGET_CPU_MS} ms CPU.`,
      '',
      table(['per warm no-op step', 'before', 'after', 'after / before'], rows),
    ].join('\n');
  } finally {
    await front.close();
    await ends.close();
    await beforeState.close();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mi = (n: number | undefined): string => (n === undefined ? '– (no valgrind)' : (n / 1e6).toFixed(1));
const pct = (after: number, before: number): string => `${((100 * after) / before).toFixed(0)} %`;
