/**
 * Steps and virtual time of the PD operations — create → Ready, scale out by 2, scale in by 2, a
 * rolling upgrade of 3, and a failover — on the simulated stack, each next to (a) the physical
 * minimum (pod startup × pods that must start one after another) and (b) the same world and the
 * same handler driven the way TiDB Operator v1 is triggered (bench/operator-driver.ts), with the
 * 30 s resync grid at three phases. Also the failover's latency after its deadline, and the
 * Kubernetes and PD calls per step during each operation.
 *
 *   npx tsx bench/reconciler.ts   (this section runs after the steady-state one)
 */
import { join } from 'node:path';
import type { Scenario } from '../lib/local/scenario/types.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { OPERATOR_MODEL, type OperatorRunStats, runOperatorLike } from './operator-driver.js';
import { BENCH_SCENARIOS, EntryRecorder, RequestTally, diffCounts, emptyCounts, loadScenario, type RequestCounts } from './probes.js';
import { table } from './stats.js';
import { STORE_FAILOVER_SCENARIO, storeFailover, storeFailoverTable } from './store-failover.js';

/**
 * How long after each user action the next resync comes, one TiDB-Operator-like run per value: the
 * midpoints of the three thirds of the 30 s cycle, so their mean is the uniform chance's mean (15 s).
 */
const RESYNC_PHASES_MS = [5_000, 15_000, 25_000];

type Run = { rec: EntryRecorder; t0: number; scenario: Scenario; violations: number; driver: OperatorRunStats | undefined };
type Driver = (stack: SimStack, rec: EntryRecorder) => Promise<OperatorRunStats | undefined>;

/** One run of a bench scenario with `driver`, recorded entry by entry. */
async function recordRun(file: string, driver: Driver): Promise<Run> {
  const scenario = loadScenario(join(BENCH_SCENARIOS, file));
  const stack = await SimStack.start(scenario, scenario.seed);
  try {
    const rec = new EntryRecorder(stack, new RequestTally(stack));
    const t0 = stack.clock.nowMs();
    const stats = await driver(stack, rec);
    const violations = stack.sim.invariants().reduce((n, inv) => n + inv.violations.length, 0);
    return { rec, t0, scenario, violations, driver: stats };
  } finally {
    await stack.stop();
  }
}

const ours: Driver = async (stack, rec) => {
  await runScenario(stack, rec);
  return undefined;
};
const operatorLike =
  (resyncPhaseMs: number): Driver =>
  (stack, rec): Promise<OperatorRunStats> =>
    runOperatorLike(stack, rec, { resyncPhaseMs });

/** An operation of pd-operations.yaml: from the end of entry `from` (t = 0 when absent) to the end of entry `to`. */
type Operation = { name: string; from?: number; to: number; sequential: number; why: string };

const OPERATIONS: Operation[] = [
  { name: 'create → Ready (3 PD)', to: 0, sequential: 1, why: 'Parallel pod management: the three PD pods start together.' },
  {
    name: 'scale out 3 → 5',
    from: 2,
    to: 6,
    sequential: 1,
    why: 'replicas go up one per step (as TiDB Operator), but nothing waits for a new pod before the next one, so with Parallel pod management the two startups overlap.',
  },
  { name: 'scale in 5 → 3', from: 8, to: 13, sequential: 0, why: 'no pod starts; members leave PD one per step.' },
  {
    name: 'rolling upgrade of 3',
    from: 15,
    to: 19,
    sequential: 3,
    why: 'the partition moves one pod at a time, and each must be Ready and a healthy member before the next restarts (PD quorum).',
  },
];

type Measured = { virtualMs: number; steps: number; requests: RequestCounts };

function measure(run: Run, op: Pick<Operation, 'from' | 'to'>): Measured {
  const end = run.rec.mark(op.to);
  const start = op.from === undefined ? { endMs: 0, stepsAtEnd: 0, requestsAtEnd: emptyCounts() } : run.rec.mark(op.from);
  return { virtualMs: end.endMs - start.endMs, steps: end.stepsAtEnd - start.stepsAtEnd, requests: diffCounts(start.requestsAtEnd, end.requestsAtEnd) };
}

/** The failover milestones of pd-failover-timing.yaml, in ms since the run's start. */
type Failover = { faultMs: number; unhealthyMs: number; deadlineMs: number; markMs: number; deletedMs: number; healthyMs: number; measured: Measured };

function failover(run: Run): Failover {
  const r = run.rec;
  const unhealthy = r.mark(3);
  type Status = { status?: { pd?: { members?: Record<string, { lastTransitionTime?: string }> } } };
  const since = (unhealthy.clusterAtEnd as Status | null)?.status?.pd?.members?.['basic-pd-1']?.lastTransitionTime;
  const sinceMs = since === undefined ? Number.NaN : Date.parse(since);
  if (Number.isNaN(sinceMs)) throw new Error('failover: basic-pd-1 has no lastTransitionTime when it is recorded unhealthy');
  return {
    faultMs: r.mark(2).endMs,
    unhealthyMs: unhealthy.endMs,
    // As TiDB Operator: the period counts from the member's lastTransitionTime in status.
    deadlineMs: sinceMs - run.t0 + run.scenario.config.failoverPeriodMs.pd,
    markMs: r.mark(4).endMs,
    deletedMs: r.mark(5).endMs,
    healthyMs: r.mark(6).endMs,
    measured: measure(run, { from: 2, to: 6 }),
  };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(Number.isInteger(ms / 1000) ? 0 : 1)} s`;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
/** Mean over the resync phases, with the range when they differ. */
function spread(xs: number[], fmt: (n: number) => string): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? fmt(lo) : `${fmt(mean(xs))} (${fmt(lo)}–${fmt(hi)})`;
}
const num = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const perStep = (n: number, steps: number): string => (steps === 0 ? '–' : (n / steps).toFixed(2));

function driverLine(run: Run | undefined): string {
  const d = run?.driver;
  return d ? `${d.syncs} syncs, ${d.rateLimitedRequeues} rate-limited requeues, longest delay ${secs(d.longestBackoffMs)}` : '–';
}

type Runs = { oursOps: Run; oursFail: Run; opOps: Run[]; opFail: Run[]; oursStore: Run; opStore: Run[] };

/** Every run the section reports: ours once per file, the TiDB-Operator-like driver once per file and phase. */
async function collectRuns(): Promise<Runs> {
  const oursOps = await recordRun('pd-operations.yaml', ours);
  const oursFail = await recordRun('pd-failover-timing.yaml', ours);
  const oursStore = await recordRun(STORE_FAILOVER_SCENARIO, ours);
  const opOps: Run[] = [];
  const opFail: Run[] = [];
  const opStore: Run[] = [];
  for (const phase of RESYNC_PHASES_MS) {
    opOps.push(await recordRun('pd-operations.yaml', operatorLike(phase)));
    opFail.push(await recordRun('pd-failover-timing.yaml', operatorLike(phase)));
    opStore.push(await recordRun(STORE_FAILOVER_SCENARIO, operatorLike(phase)));
  }
  return { oursOps, oursFail, opOps, opFail, oursStore, opStore };
}

function operationsTable(runs: Runs, podStartupMs: number): string {
  const rows = OPERATIONS.map((op) => {
    const o = measure(runs.oursOps, op);
    const m = runs.opOps.map((run) => measure(run, op));
    return [op.name, op.sequential, secs(op.sequential * podStartupMs), `**${secs(o.virtualMs)}**`, o.steps, spread(m.map((x) => x.virtualMs), secs), spread(m.map((x) => x.steps), num)];
  });
  const f = failover(runs.oursFail);
  const opF = runs.opFail.map(failover);
  rows.push([
    'failover: deadline → replacement healthy (steps: fault → healthy)',
    1,
    secs(podStartupMs),
    `**${secs(f.healthyMs - f.deadlineMs)}**`,
    f.measured.steps,
    spread(opF.map((x) => x.healthyMs - x.deadlineMs), secs),
    spread(opF.map((x) => x.measured.steps), num),
  ]);
  const s = storeFailover(runs.oursStore);
  const opS = runs.opStore.map(storeFailover);
  rows.push([
    'TiKV store failover: deadline → replacement store Up (steps: fault → Up)',
    1,
    secs(podStartupMs),
    `**${secs(s.upMs - s.deadlineMs)}**`,
    s.steps,
    spread(opS.map((x) => x.upMs - x.deadlineMs), secs),
    spread(opS.map((x) => x.steps), num),
  ]);
  return table(['operation', 'pods that must start one after another', 'physical minimum', 'ours: virtual time', 'ours: steps', 'TiDB-Operator-like: virtual time', 'TiDB-Operator-like: steps'], rows);
}

function failoverTable(runs: Runs, podStartupMs: number): string {
  const row = (name: string, x: Failover): (string | number)[] => [
    name,
    secs(x.faultMs),
    secs(x.unhealthyMs - x.faultMs),
    secs(x.deadlineMs),
    secs(x.markMs - x.deadlineMs),
    secs(x.deletedMs - x.deadlineMs),
    secs(x.healthyMs - x.deadlineMs),
    x.measured.steps,
  ];
  return table(['driver', 'fault at', 'fault → unhealthy in status', 'deadline at', 'deadline → failure mark', 'deadline → deleted from PD', 'deadline → replacement healthy', 'steps'], [
    row('ours', failover(runs.oursFail)),
    ...runs.opFail.map((run, i) => row(`TiDB-Operator-like, next resync ${secs(RESYNC_PHASES_MS[i] ?? 0)} after the fault`, failover(run))),
    ['physical minimum', '–', '–', '–', '0 s', '0 s', secs(podStartupMs), '–'],
  ]);
}

function callsTable(runs: Runs): string {
  const row = (name: string, m: Measured): (string | number)[] => [
    name,
    m.steps,
    perStep(m.requests.list, m.steps),
    perStep(m.requests.get, m.steps),
    Object.entries(m.requests.detail)
      .filter(([k]) => k.startsWith('GET '))
      .map(([k, n]) => `${k.slice('GET '.length)} ${perStep(n, m.steps)}`)
      .join(', ') || '–',
    m.requests.write,
    perStep(m.requests['pd-read'], m.steps),
    m.requests['pd-write'],
  ];
  return table(['operation', 'steps', 'Kubernetes LIST per step', 'Kubernetes GET (one object) per step', 'GETs by kind, per step', 'Kubernetes writes', 'PD reads per step', 'PD writes'], [
    ...OPERATIONS.map((op) => row(op.name, measure(runs.oursOps, op))),
    row('failover: fault → replacement healthy', failover(runs.oursFail).measured),
  ]);
}

/** Runs the operations benchmark and returns its Markdown section. */
export async function benchOperations(): Promise<string> {
  const runs = await collectRuns();
  const podStartupMs = runs.oursOps.scenario.sim.podStartupMs;
  const periodMs = runs.oursFail.scenario.config.failoverPeriodMs.pd;
  const all = [runs.oursOps, runs.oursFail, runs.oursStore, ...runs.opOps, ...runs.opFail, ...runs.opStore];
  const violations = all.reduce((n, r) => n + r.violations, 0);
  return [
    '### PD operations: steps and virtual time, against the physical minimum and a TiDB-Operator-like loop',
    '',
    `bench/scenarios/pd-operations.yaml (create, scale out, scale in, rolling upgrade on one cluster, two quiet minutes between operations) and bench/scenarios/pd-failover-timing.yaml (a fresh cluster; see the note below). An operation ends when the TidbCluster's status says it is done (the \`waitFor\` entries of the files). Pod startup is ${secs(podStartupMs)} (the scenario default); steps take no virtual time.`,
    '',
    '- **ours**: `runScenario`, as `tidb-reconciler simulate` runs it: exporter triggers (1 s flush window), the wake-ups each step arms, the 5 min sweep.',
    `- **TiDB-Operator-like**: the same world and the same reconcile handler, triggered only as TiDB Operator v1's TidbCluster controller is (bench/operator-driver.ts; \`tidb_cluster_controller.go\`, \`NewControllerRateLimiter(1s, 100s)\`, \`ResyncDuration\` 30 s): an event on the TidbCluster or a StatefulSet it owns adds the key at once; every ${OPERATOR_MODEL.resyncMs / 1000} s the informer resync adds it; a step ending in \`retry\` or \`fail\` (TiDB Operator: a sync returning an error or RequeueError) is re-added by the per-item exponential rate limiter, ${OPERATOR_MODEL.backoffBaseMs / 1000} s doubling to ${OPERATOR_MODEL.backoffMaxMs / 1000} s, reset when a step ends in \`complete\` or \`wait\`; our wake-ups, exporter triggers and sweep are ignored. Where a user action (the creation, a patch, the fault) falls in the resync cycle is chance, so each scenario runs ${RESYNC_PHASES_MS.length} times with the next resync ${RESYNC_PHASES_MS.map(secs).join(', ')} after every action (the midpoints of the cycle's thirds: mean 15 s, as for a uniformly random moment); cells give the mean and (range). Its steps are the syncs it ran.`,
    '- **physical minimum**: pod startup × the pods that must start one after another (PD uses Parallel pod management); it leaves out process boot, PD joining and health checks, which the simulated PD also models.',
    '',
    operationsTable(runs, podStartupMs),
    '',
    ...OPERATIONS.map((op) => `- ${op.name}: ${op.sequential} — ${op.why}`),
    `- failover: 1 — the replacement member's pod, after the ${secs(periodMs)} failover period (policy, not physics) has run out.`,
    '',
    `**Failover latency after the deadline** (basic-pd-1's process dies two minutes after Ready; deadline = its \`lastTransitionTime\` in status + pdFailoverPeriod ${secs(periodMs)}, as TiDB Operator; times since the run's start; steps counted from the fault to the replacement healthy):`,
    '',
    failoverTable(runs, podStartupMs),
    '',
    `**TiKV store failover latency after the deadline** (bench/scenarios/${STORE_FAILOVER_SCENARIO}: basic-tikv-1's process dies two minutes after Ready; PD marks its store Down after max-store-down-time, 2 min in its config; deadline = the store's \`lastTransitionTime\` in status + tikvFailoverPeriod ${secs(runs.oursStore.scenario.config.failoverPeriodMs.tikv)}, as TiDB Operator; times since the run's start; steps counted from the fault to the replacement's store Up):`,
    '',
    storeFailoverTable(runs.oursStore, runs.opStore.map((run, i) => ({ name: `TiDB-Operator-like, next resync ${secs(RESYNC_PHASES_MS[i] ?? 0)} after the fault`, run })), podStartupMs),
    '',
    "**Kubernetes and PD calls per step during each operation (ours)**, counted at the API server and divided by the operation's steps (the sweep's cluster-wide TidbCluster LIST, every 5 min, falls in the LIST column):",
    '',
    callsTable(runs),
    '',
    `Invariant violations over all ${all.length} runs: ${violations}. TiDB-Operator-like runs (operations file; failover file), per resync phase: ${RESYNC_PHASES_MS.map((p, i) => `${secs(p)}: ${driverLine(runs.opOps[i])}; ${driverLine(runs.opFail[i])}`).join(' — ')}.`,
    '',
    "The failover runs on a fresh cluster, so the operations before it do not shift its timing.",
  ].join('\n');
}
