/**
 * What the cost model (bench/cost-model.ts) is computed from, measured on the simulated stack:
 * bench/scenarios/cost-model.yaml (a full cluster: Ready, 10 minutes to settle, one hour at rest,
 * then one whole-cluster version upgrade until Ready again and 5 quiet minutes). In each counted
 * window: the report's requests by target, the reconcile steps, the reconcile invocations and the
 * records they carried, the functions' state-table calls by method (their DynamoDB reads and writes),
 * and at the end the sizes of the cluster's state item and kept read, which set how many request
 * units a read or a write of them takes.
 */
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import type { RequestCounts } from '../lib/local/request-counts.js';
import { createProgress } from '../lib/local/scenario/progress.js';
import type { Progress } from '../lib/local/scenario/progress.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { clusterPk, STATE_SK } from '../lib/state/keys.js';
import { REST_READ_SK } from '../lib/state/rest-reads.js';
import { ATTR } from '../lib/state/table.js';
import { itemSize } from './fleet-sweep.js';
import { BENCH_SCENARIOS, loadScenario } from './probes.js';

const FILE = join(BENCH_SCENARIOS, 'cost-model.yaml');
/** The file's windows: the hour at rest (entry 2) and the operation (entries 3 to the last). */
const REST = 2;
const OPERATION = 3;

/** One counted window. `calls` are state-table calls by `port.method` (getMany by the keys it read). */
export type Window = {
  readonly hours: number;
  readonly counts: RequestCounts;
  readonly steps: number;
  readonly invocations: number;
  readonly records: number;
  readonly calls: Readonly<Record<string, number>>;
};

/** The measurement: the two windows and the sizes of the cluster's items (bytes, as DynamoDB sizes them). */
export type Measured = { readonly seed: number; readonly rest: Window; readonly operation: Window; readonly stateItemBytes: number; readonly restReadBytes: number; readonly passed: boolean };

type Tally = { counts: RequestCounts; steps: number; invocations: number; records: number; calls: Record<string, number>; atMs: number };

/** Counts every call of `target`'s methods into `calls` as `port.method`. */
function counted<T extends object>(target: T, port: string, calls: Record<string, number>): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        const name = `${port}.${prop}`;
        const n = prop === 'getMany' && Array.isArray(args[0]) ? args[0].length : 1;
        calls[name] = (calls[name] ?? 0) + n;
        return (value as (...a: unknown[]) => unknown).apply(obj, args);
      };
    },
  });
}

/** Runs the file and measures (see the module comment). */
export async function measureCosts(): Promise<Measured> {
  const file = loadScenario(FILE);
  const stack = await SimStack.start(file, file.seed);
  const calls: Record<string, number> = {};
  let invocations = 0;
  let records = 0;
  const invoke = stack.invokeReconcile.bind(stack);
  stack.invokeReconcile = (event: SQSEvent) => {
    invocations++;
    records += event.Records.length;
    return invoke(event);
  };
  const wrapped = new Map<object, object>();
  const wrap = <T extends object>(o: T, port: string): T => {
    const seen = wrapped.get(o) ?? counted(o, port, calls);
    wrapped.set(o, seen);
    return seen as T;
  };
  for (const runtime of Object.values(stack.runtimes)) {
    const r = runtime as { state: object; restReads?: object };
    r.state = wrap(r.state, 'state');
    if (r.restReads) r.restReads = wrap(r.restReads, 'restReads');
  }
  const marks = new Map<number, Tally>();
  const tally = (): Tally => ({ counts: stack.requests.snapshot(), steps: stack.steps, invocations, records, calls: { ...calls }, atMs: stack.clock.nowMs() });
  const progress: Progress = { ...createProgress({ quiet: true }), entryStarted: (entry) => void marks.set(entry.index, tally()) };
  try {
    const report = await runScenario(stack, progress);
    const end = tally();
    const rest = marks.get(REST);
    const op = marks.get(OPERATION);
    if (rest === undefined || op === undefined) throw new Error(`${FILE}: a counted window never started (${JSON.stringify(report.timeline.map((e) => e.ok))})`);
    const { namespace, name } = file.cluster.metadata;
    const key = `${stack.runtime.k8sCluster}/${namespace}/${name}`;
    const out = await stack.dynamo.client.send(new QueryCommand({ TableName: stack.dynamo.tableName, KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': ATTR.pk }, ExpressionAttributeValues: { ':pk': { S: clusterPk(key) } } }));
    const sizeOf = (sk: string): number => itemSize((out.Items ?? []).find((i) => i[ATTR.sk]?.S === sk) ?? {});
    return { seed: file.seed, rest: between(rest, op), operation: between(op, end), stateItemBytes: sizeOf(STATE_SK), restReadBytes: sizeOf(REST_READ_SK), passed: report.passed };
  } finally {
    await stack.stop();
  }
}

function between(a: Tally, b: Tally): Window {
  const counts = Object.fromEntries(Object.entries(b.counts).map(([t, n]) => [t, n - (a.counts[t as keyof RequestCounts] ?? 0)])) as RequestCounts;
  const calls = Object.fromEntries(Object.entries(b.calls).map(([m, n]) => [m, n - (a.calls[m] ?? 0)]).filter(([, n]) => (n as number) > 0));
  return { hours: (b.atMs - a.atMs) / 3_600_000, counts, steps: b.steps - a.steps, invocations: b.invocations - a.invocations, records: b.records - a.records, calls };
}
