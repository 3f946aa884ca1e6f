/**
 * The reconciler on the simulated stack (`SimStack`: simulated API server and PD, dynalite, the
 * in-process queue, the real exporter core and the real handlers), two sections:
 *
 * - `benchSteadyState`: a 3-PD cluster is created and reaches Ready, then one idle virtual hour runs
 *   (wall time per virtual hour of `simulate`, target ≤ 10 s); then the same cluster is stepped
 *   `STEADY_STEPS` more times and every API server request and state store call is counted: a step
 *   on a healthy, unchanged cluster should write nothing to Kubernetes or PD and only its lease to
 *   DynamoDB, and read Kubernetes with one LIST per kind, never a GET per pod.
 * - `benchOperations` (bench/operations.ts): steps and virtual time of each operation, next to the
 *   physical minimum and a TiDB-Operator-like driver of the same world.
 *
 *   npx tsx bench/reconciler.ts
 */
import { join } from 'node:path';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { clusterKeyOf } from '../lib/wiring/ports.js';
import { benchOperations } from './operations.js';
import { BENCH_SCENARIOS, EntryRecorder, RequestTally, STATE_WRITES, StateTally, diffCounts, diffMap, loadScenario, type RequestCounts } from './probes.js';
import { table } from './stats.js';

/** How many triggers the at-rest measurement sends, and how far apart in virtual time. */
export const STEADY_STEPS = 20;
export const STEADY_SPACING_MS = 30_000;

/** What a run of at-rest steps did: steps, API server requests, state store calls by method, requests by HTTP method, virtual time. */
export type Window = { steps: number; requests: RequestCounts; state: Map<string, number>; byMethod: Map<string, number>; virtualMs: number };

/**
 * Steps the cluster `count` times, one trigger every `spacingMs` of virtual time, and counts what
 * that did; the sweep and the wake-ups steps arm are not delivered in between.
 */
export async function steadySteps(stack: SimStack, requests: RequestTally, state: StateTally, count: number, spacingMs: number): Promise<Window> {
  const m = stack.scenario.cluster.metadata;
  const key = clusterKeyOf(stack.runtime, m.namespace, m.name);
  const start = { steps: stack.steps, requests: requests.snapshot(), state: state.snapshot(), byMethod: new Map(stack.world.server.requestCounts), atMs: stack.clock.nowMs() };
  for (let i = 0; i < count; i++) {
    // The trigger the exporter would send for a change; nothing has changed.
    await stack.queue.send([{ message: { key, reason: 'watch', enqueuedAtMs: stack.clock.nowMs() } }]);
    await stack.exporterIdle();
    await stack.delivery.deliverDue();
    await stack.clock.advanceTo(stack.clock.nowMs() + spacingMs);
  }
  await stack.exporterIdle();
  await stack.delivery.deliverDue();
  return {
    steps: stack.steps - start.steps,
    requests: diffCounts(start.requests, requests.snapshot()),
    state: diffMap(start.state, state.snapshot()),
    byMethod: diffMap(start.byMethod, stack.world.server.requestCounts),
    virtualMs: stack.clock.nowMs() - start.atMs,
  };
}

/** The sum of `m`'s counts under `keys`. */
export const sum = (m: ReadonlyMap<string, number>, keys: readonly string[]): number => keys.reduce((n, k) => n + (m.get(k) ?? 0), 0);
/** `n / steps` to two decimals (– without steps). */
export const perStep = (n: number, steps: number): string => (steps === 0 ? '–' : (n / steps).toFixed(2));
const writesOf = (m: ReadonlyMap<string, number>): [string, number][] => [...m].filter(([k]) => (STATE_WRITES as readonly string[]).includes(k));
/** `name n/steps` for each entry, sorted by name, comma-separated ('none' when empty). */
export const listed = (entries: Iterable<[string, number]>, steps: number): string =>
  [...entries].sort((a, b) => a[0].localeCompare(b[0])).map(([k, n]) => `${k} ${perStep(n, steps)}`).join(', ') || 'none';

/** Runs the steady-state and simulate-hour benchmark and returns its Markdown section. */
export async function benchSteadyState(): Promise<string> {
  const scenario = loadScenario(join(BENCH_SCENARIOS, 'pd-steady-hour.yaml'));
  const stack = await SimStack.start(scenario, scenario.seed);
  try {
    const requests = new RequestTally(stack);
    const state = new StateTally(stack.runtime.state);
    const rec = new EntryRecorder(stack, requests, state);
    const report = await runScenario(stack, rec);
    const ready = rec.mark(0);
    const hour = rec.mark(1);
    rec.mark(2);
    if (!report.passed) throw new Error('pd-steady-hour did not pass (an invariant broke)');
    const hourReq = diffCounts(ready.requestsAtEnd, hour.requestsAtEnd);
    const hourState = diffMap(ready.stateAtEnd, hour.stateAtEnd);
    const hourSteps = hour.stepsAtEnd - hour.stepsAtStart;
    const steady = await steadySteps(stack, requests, state, STEADY_STEPS, STEADY_SPACING_MS);
    const s = steady.steps;
    const dynamoWrites = sum(steady.state, STATE_WRITES);
    const dynamoReads = [...steady.state].filter(([k]) => !(STATE_WRITES as readonly string[]).includes(k)).reduce((n, [, v]) => n + v, 0);
    const hourWallMs = hour.wallEndMs - hour.wallStartMs;
    return [
      '### `simulate`: wall time per virtual hour (3 PD members)',
      '',
      'bench/scenarios/pd-steady-hour.yaml through `runScenario` (what `tidb-reconciler simulate` runs): create → Ready, then `advance: 1h`. Steps in the hour come from the sweep (every 5 min) and any wake-ups the steps arm. Target: ≤ 10 s of wall time per virtual hour.',
      '',
      table(['phase', 'virtual time', 'wall ms', 'steps', 'Kubernetes writes', 'PD writes', 'state store writes'], [
        ['create → Ready', `${(ready.endMs / 1000).toFixed(0)} s`, (ready.wallEndMs - ready.wallStartMs).toFixed(0), ready.stepsAtEnd, ready.requestsAtEnd.write, ready.requestsAtEnd['pd-write'], sum(ready.stateAtEnd, STATE_WRITES)],
        ['the idle hour', `${((hour.endMs - hour.startMs) / 3_600_000).toFixed(2)} h`, `**${hourWallMs.toFixed(0)}**`, hourSteps, hourReq.write, hourReq['pd-write'], `${sum(hourState, STATE_WRITES)} (${writesOf(hourState).map(([k, n]) => `${k} ${n}`).join(', ')})`],
      ]),
      '',
      `Virtual seconds per wall second in the idle hour: ${(3_600_000 / Math.max(1, hourWallMs)).toFixed(0)}. State store writes include the exporter's checkpoints (\`putCheckpoint\`); the idle hour's Kubernetes reads include the sweep's TidbCluster LISTs, so reads per step are measured below with the sweep out of the way.`,
      '',
      `### A step on a healthy, unchanged cluster (3 PD, Ready, after the idle hour; ${STEADY_STEPS} triggers, one every ${STEADY_SPACING_MS / 1000} s virtual)`,
      '',
      `Each trigger is the message the exporter sends for a change (\`reason: watch\`), delivered to the real reconcile handler. Requests are counted at the simulated API server (the path tells a LIST from a single-object GET; PD is reached through the API server's service and pod proxy), state store calls by wrapping the stack's \`runtime.state\`. ${s} steps ran in ${(steady.virtualMs / 1000).toFixed(0)} s virtual.`,
      '',
      table(['per step', 'Kubernetes LIST', 'Kubernetes GET (one object)', 'Kubernetes writes', 'PD reads', 'PD writes', 'DynamoDB writes', 'DynamoDB reads'], [
        ['measured', perStep(steady.requests.list, s), perStep(steady.requests.get, s), perStep(steady.requests.write, s), perStep(steady.requests['pd-read'], s), perStep(steady.requests['pd-write'], s), perStep(dynamoWrites, s), perStep(dynamoReads, s)],
        ['target', 'one per kind', '0 per pod', '0', '–', '0', '2 (claim, release)', '–'],
      ]),
      '',
      `- API server requests by method, per step: ${listed(steady.byMethod, s)}.`,
      `- Kubernetes reads per step: ${listed(Object.entries(steady.requests.detail).filter(([k]) => k.startsWith('LIST ') || k.startsWith('GET ')), s)}.`,
      `- PD calls per step: ${listed(Object.entries(steady.requests.detail).filter(([k]) => k.startsWith('PD ')), s)}.`,
      `- State store calls per step: ${listed(steady.state, s)}.`,
      `- Writes over the ${s} steps: Kubernetes ${steady.requests.write}, PD ${steady.requests['pd-write']}${Object.keys(steady.requests.byWriteMethod).length ? ` (${listed(Object.entries(steady.requests.byWriteMethod), 1)})` : ''}.`,
    ].join('\n');
  } finally {
    await stack.stop();
  }
}

/** The operations section (bench/operations.ts), exported here with the steady-state one. */
export { benchOperations };

/** Both reconciler sections, in the order `npm run bench` runs them. */
export async function benchReconciler(): Promise<string> {
  return [await benchSteadyState(), await benchOperations()].join('\n\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchReconciler());
  // The stack leaves per-invocation pollers running (see BENCHMARKS.md); end the process explicitly.
  process.exit(0);
}
