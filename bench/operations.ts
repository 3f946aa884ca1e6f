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
import { DEFAULT_LATENCY, type LatencyModel, ZERO_LATENCY } from '../lib/local/latency.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { OPERATOR_MODEL, type OperatorRunStats, runOperatorLike } from './operator-driver.js';
import { BENCH_SCENARIOS, EntryRecorder, RequestTally, diffCounts, emptyCounts, loadScenario, type RequestCounts } from './probes.js';
import { table } from './stats.js';
import { STORE_FAILOVER_SCENARIO, StoreStartupProbe, storeFailover, storeFailoverMinimumMs, storeFailoverTable } from './store-failover.js';
import { benchTikvScaleIn } from './tikv-scale-in.js';
import { WorldTimingProbe } from './world-timing.js';

/**
 * How long after each user action the next resync comes, one TiDB-Operator-like run per value: the
 * midpoints of the three thirds of the 30 s cycle, so their mean is the uniform chance's mean (15 s).
 */
export const RESYNC_PHASES_MS = [5_000, 15_000, 25_000];

export type Run = { rec: EntryRecorder; t0: number; scenario: Scenario; violations: number; driver: OperatorRunStats | undefined; world: WorldTimingProbe; stores: StoreStartupProbe };
export type Driver = (stack: SimStack, rec: EntryRecorder) => Promise<OperatorRunStats | undefined>;

/**
 * One run of a bench scenario with `driver`, recorded entry by entry; `atEnd`, when given, runs on
 * the stack after the timeline (e.g. to measure the cluster at rest), before invariants are read.
 * `latency` replaces the file's delivery latency (the TiDB-Operator-like driver runs without: its
 * own loop delivers, with none of ours' queue, batching window or exporter sessions).
 */
export async function recordRun(file: string, driver: Driver, atEnd?: (stack: SimStack) => Promise<void>, latency?: LatencyModel): Promise<Run> {
  const loaded = loadScenario(join(BENCH_SCENARIOS, file));
  const scenario: Scenario = latency === undefined ? loaded : { ...loaded, sim: { ...loaded.sim, latency } };
  const stack = await SimStack.start(scenario, scenario.seed);
  try {
    const rec = new EntryRecorder(stack, new RequestTally(stack));
    const t0 = stack.clock.nowMs();
    const world = new WorldTimingProbe(stack, t0);
    const stores = new StoreStartupProbe(stack, t0);
    const stats = await driver(stack, rec);
    world.stop();
    stores.stop();
    await atEnd?.(stack);
    const violations = stack.sim.invariants().reduce((n, inv) => n + inv.violations.length, 0);
    return { rec, t0, scenario, violations, driver: stats, world, stores };
  } finally {
    await stack.stop();
  }
}

export const ours: Driver = async (stack, rec) => {
  await runScenario(stack, rec);
  return undefined;
};
/** Ours with the latency model off, for the zero-latency columns beside ours. */
export const oursZeroLatency = (file: string, atEnd?: (stack: SimStack) => Promise<void>): Promise<Run> => recordRun(file, ours, atEnd, ZERO_LATENCY);

/** The column headers of the zero-latency run beside ours (its ratio is to its own run's minimum). */
export const ZERO_LATENCY_HEADERS = ['ours, zero latency: virtual time', 'ours, zero latency / minimum'];

/** The zero-latency cells: its time and its ratio to the minimum measured in its own run. */
export const zeroLatencyCells = (virtualMs: number, minimumMs: number): string[] => [secs(virtualMs), ratio(virtualMs, minimumMs)];

/** What the latency model adds, in words, for the sections' introductions. */
export const LATENCY_NOTE = `**Latency** (lib/local/latency.ts, as deployed; docs/SCENARIOS.md \`sim.latency\`): ours runs with the SQS event source's ${DEFAULT_LATENCY.batchingWindowMs / 1000} s batching window, ${DEFAULT_LATENCY.stepMs} ms per step, a ${DEFAULT_LATENCY.coldStartMs} ms cold start on the first invocation and the exporter's one session a minute with a ${DEFAULT_LATENCY.exporterGapMs / 1000} s gap; the zero-latency columns run the same file with \`latency: false\` (delivery the instant a message is visible, steps taking no time, one exporter without a break). SQS delays are whole seconds and Scheduler fires at the minute in both. The TiDB-Operator-like loop runs without the model.`;

export const operatorLike =
  (resyncPhaseMs: number): Driver =>
  (stack, rec): Promise<OperatorRunStats> =>
    runOperatorLike(stack, rec, { resyncPhaseMs });

/**
 * An operation of pd-operations.yaml: from the end of entry `from` (t = 0 when absent) to the end of
 * entry `to`; `minimum` is the world's own time for it in a run (see world-timing.ts), `why` says
 * what that is.
 */
type Operation = { name: string; from?: number; to: number; minimum: (world: WorldTimingProbe, fromMs: number, toMs: number) => number; why: string };

const OPERATIONS: Operation[] = [
  {
    name: 'create → Ready (3 PD)',
    to: 0,
    minimum: (w, from, to) => w.parallelStartMs('pd', from, to),
    why: 'Parallel pod management: the three PD pods start together; the slowest one, from its pod created to its member serving (the start script waits 0–4 s between discovery calls, as TiDB Operator\'s).',
  },
  {
    name: 'scale out 3 → 5',
    from: 2,
    to: 6,
    minimum: (w, from, to) => w.parallelStartMs('pd', from, to),
    why: 'replicas go up one per step (as TiDB Operator), but nothing waits for a new pod before the next one: the slowest new pod, created → serving.',
  },
  { name: 'scale in 5 → 3', from: 8, to: 13, minimum: () => 0, why: 'no pod starts; members leave PD one per step.' },
  {
    name: 'rolling upgrade of 3',
    from: 15,
    to: 19,
    minimum: (w, from, to) => w.sequentialRestartMs(from, to),
    why: 'the partition moves one pod at a time, and each must be a healthy member, ready by /pd/api/v2/ready, before the next restarts (PD quorum): the sum over the three pods of termination → ready, plus the PD leader transfer time for each leader move.',
  },
];

export type Measured = { virtualMs: number; steps: number; requests: RequestCounts };

export function measure(run: Run, op: Pick<Operation, 'from' | 'to'>): Measured {
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

export const secs = (ms: number): string => `${(ms / 1000).toFixed(Number.isInteger(ms / 1000) ? 0 : 1)} s`;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
/** Mean over the resync phases, with the range when they differ. */
export function spread(xs: number[], fmt: (n: number) => string): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? fmt(lo) : `${fmt(mean(xs))} (${fmt(lo)}–${fmt(hi)})`;
}
export const num = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const perStep = (n: number, steps: number): string => (steps === 0 ? '–' : (n / steps).toFixed(2));

/** What the TiDB-Operator-like driver did in `run` (syncs, rate-limited requeues, longest delay); – for ours. */
export function driverLine(run: Run | undefined): string {
  const d = run?.driver;
  return d ? `${d.syncs} syncs, ${d.rateLimitedRequeues} rate-limited requeues, longest delay ${secs(d.longestBackoffMs)}` : '–';
}

type Runs = { oursOps: Run; oursFail: Run; opOps: Run[]; opFail: Run[]; oursStore: Run; opStore: Run[]; zeroOps: Run; zeroFail: Run; zeroStore: Run };

/** Every run the section reports: ours once per file, the TiDB-Operator-like driver once per file and phase. */
async function collectRuns(): Promise<Runs> {
  const oursOps = await recordRun('pd-operations.yaml', ours);
  const oursFail = await recordRun('pd-failover-timing.yaml', ours);
  const oursStore = await recordRun(STORE_FAILOVER_SCENARIO, ours);
  const zeroOps = await oursZeroLatency('pd-operations.yaml');
  const zeroFail = await oursZeroLatency('pd-failover-timing.yaml');
  const zeroStore = await oursZeroLatency(STORE_FAILOVER_SCENARIO);
  const opOps: Run[] = [];
  const opFail: Run[] = [];
  const opStore: Run[] = [];
  for (const phase of RESYNC_PHASES_MS) {
    opOps.push(await recordRun('pd-operations.yaml', operatorLike(phase), undefined, ZERO_LATENCY));
    opFail.push(await recordRun('pd-failover-timing.yaml', operatorLike(phase), undefined, ZERO_LATENCY));
    opStore.push(await recordRun(STORE_FAILOVER_SCENARIO, operatorLike(phase), undefined, ZERO_LATENCY));
  }
  return { oursOps, oursFail, opOps, opFail, oursStore, opStore, zeroOps, zeroFail, zeroStore };
}

/** The window of `op` in `run`, in ms since the run's start. */
function windowOf(run: Run, op: Pick<Operation, 'from' | 'to'>): { fromMs: number; toMs: number } {
  return { fromMs: op.from === undefined ? 0 : run.rec.mark(op.from).endMs, toMs: run.rec.mark(op.to).endMs };
}

/** `ours / minimum` as `1.23×` (– when the minimum is 0). */
export const ratio = (ours: number, minimum: number): string => (minimum === 0 ? '–' : `${(ours / minimum).toFixed(2)}×`);

/** The failover's minimum in `run`: the replacement's pod created → its member serving, after the deadline. */
function failoverMinimum(run: Run, f: Failover): number {
  return run.world.parallelStartMs('pd', f.deadlineMs, f.healthyMs);
}

function operationsTable(runs: Runs, extraRows: readonly (string | number)[][]): string {
  const rows = OPERATIONS.map((op) => {
    const o = measure(runs.oursOps, op);
    const w = windowOf(runs.oursOps, op);
    const minimum = op.minimum(runs.oursOps.world, w.fromMs, w.toMs);
    const m = runs.opOps.map((run) => measure(run, op));
    const z = measure(runs.zeroOps, op);
    const zw = windowOf(runs.zeroOps, op);
    const zeroCells = zeroLatencyCells(z.virtualMs, op.minimum(runs.zeroOps.world, zw.fromMs, zw.toMs));
    return [op.name, secs(minimum), `**${secs(o.virtualMs)}**`, `**${ratio(o.virtualMs, minimum)}**`, ...zeroCells, o.steps, spread(m.map((x) => x.virtualMs), secs), ratio(mean(m.map((x) => x.virtualMs)), minimum), spread(m.map((x) => x.steps), num)];
  });
  const f = failover(runs.oursFail);
  const minimum = failoverMinimum(runs.oursFail, f);
  const opF = runs.opFail.map(failover);
  const opMean = opF.reduce((a, x) => a + (x.healthyMs - x.deadlineMs), 0) / opF.length;
  const zf = failover(runs.zeroFail);
  rows.push([
    'failover: deadline → Ready again, a fresh member in its place (steps: fault → Ready)',
    secs(minimum),
    `**${secs(f.healthyMs - f.deadlineMs)}**`,
    `**${ratio(f.healthyMs - f.deadlineMs, minimum)}**`,
    ...zeroLatencyCells(zf.healthyMs - zf.deadlineMs, failoverMinimum(runs.zeroFail, zf)),
    f.measured.steps,
    spread(opF.map((x) => x.healthyMs - x.deadlineMs), secs),
    ratio(opMean, minimum),
    spread(opF.map((x) => x.measured.steps), num),
  ]);
  const st = storeFailover(runs.oursStore);
  const opS = runs.opStore.map(storeFailover);
  const storeMinimum = storeFailoverMinimumMs(runs.oursStore);
  const zs = storeFailover(runs.zeroStore);
  const opStoreMean = opS.reduce((a, x) => a + (x.upMs - x.deadlineMs), 0) / opS.length;
  rows.push([
    'TiKV store failover: deadline → replacement store Up (steps: fault → Up)',
    secs(storeMinimum),
    `**${secs(st.upMs - st.deadlineMs)}**`,
    `**${ratio(st.upMs - st.deadlineMs, storeMinimum)}**`,
    ...zeroLatencyCells(zs.upMs - zs.deadlineMs, storeFailoverMinimumMs(runs.zeroStore)),
    st.steps,
    spread(opS.map((x) => x.upMs - x.deadlineMs), secs),
    ratio(opStoreMean, storeMinimum),
    spread(opS.map((x) => x.steps), num),
  ]);
  rows.push(...extraRows);
  return table(['operation', 'physical minimum (this run)', 'ours: virtual time', 'ours / minimum', ...ZERO_LATENCY_HEADERS, 'ours: steps', 'TiDB-Operator-like: virtual time', 'TiDB-Operator-like / minimum', 'TiDB-Operator-like: steps'], rows);
}

function failoverTable(runs: Runs): string {
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
  return table(['driver', 'fault at', 'fault → unhealthy in status', 'deadline at', 'deadline → failure mark', 'deadline → deleted from PD', 'deadline → Ready again', 'steps'], [
    row('ours', failover(runs.oursFail)),
    ...runs.opFail.map((run, i) => row(`TiDB-Operator-like, next resync ${secs(RESYNC_PHASES_MS[i] ?? 0)} after the fault`, failover(run))),
    ['physical minimum (ours\' run)', '–', '–', '–', '0 s', '0 s', secs(failoverMinimum(runs.oursFail, failover(runs.oursFail))), '–'],
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
    row('failover: fault → Ready again', failover(runs.oursFail).measured),
  ]);
}

/** Runs the operations benchmark and returns its Markdown section. */
export async function benchOperations(): Promise<string> {
  const runs = await collectRuns();
  const tikv = await benchTikvScaleIn();
  const podStartupMs = runs.oursOps.scenario.sim.podStartupMs;
  const periodMs = runs.oursFail.scenario.config.failoverPeriodMs.pd;
  const all = [runs.oursOps, runs.oursFail, runs.oursStore, runs.zeroOps, runs.zeroFail, runs.zeroStore, ...runs.opOps, ...runs.opFail, ...runs.opStore];
  const violations = all.reduce((n, r) => n + r.violations, 0) + tikv.violations;
  return [
    '### PD operations: steps and virtual time, against the physical minimum and a TiDB-Operator-like loop',
    '',
    `bench/scenarios/pd-operations.yaml (create, scale out, scale in, rolling upgrade on one cluster, two quiet minutes between operations) and bench/scenarios/pd-failover-timing.yaml (a fresh cluster; see the note below). An operation ends when the TidbCluster's status says it is done (the \`waitFor\` entries of the files). Pod startup is ${secs(podStartupMs)} (the scenario default).`,
    '',
    LATENCY_NOTE,
    '',
    '- **ours**: `runScenario`, as `tidb-reconciler simulate` runs it: exporter triggers (1 s flush window), the wake-ups each step arms, the 5 min sweep.',
    `- **TiDB-Operator-like**: the same world and the same reconcile handler, triggered only as TiDB Operator v1's TidbCluster controller is (bench/operator-driver.ts; \`tidb_cluster_controller.go\`, \`NewControllerRateLimiter(1s, 100s)\`, \`ResyncDuration\` 30 s): an event on the TidbCluster or a StatefulSet it owns adds the key at once; every ${OPERATOR_MODEL.resyncMs / 1000} s the informer resync adds it; a step ending in \`retry\` or \`fail\` (TiDB Operator: a sync returning an error or RequeueError) is re-added by the per-item exponential rate limiter, ${OPERATOR_MODEL.backoffBaseMs / 1000} s doubling to ${OPERATOR_MODEL.backoffMaxMs / 1000} s, reset when a step ends in \`complete\` or \`wait\`; our wake-ups, exporter triggers and sweep are ignored. Where a user action (the creation, a patch, the fault) falls in the resync cycle is chance, so each scenario runs ${RESYNC_PHASES_MS.length} times with the next resync ${RESYNC_PHASES_MS.map(secs).join(', ')} after every action (the midpoints of the cycle's thirds: mean 15 s, as for a uniformly random moment); cells give the mean and (range). Its steps are the syncs it ran.`,
    `- **physical minimum**: measured in ours' run (bench/world-timing.ts) — the simulated world's own time for what no reconciler can shorten: a pod created or restarted until its PD member serves (and, for the upgrade, answers ready); for the TiKV store failover, the replacement pod created until PD lists its store Up (bench/store-failover.ts). Pod startup (${secs(podStartupMs)}), process boot, the start script's discovery retries, joining and region loading are in it; every step, wait and requeue of ours is not. Pods that start together count once (the slowest), pods that must start one after another add up. The TiDB-Operator-like ratio uses the mean of its runs over the same minimum.`,
    '',
    operationsTable(runs, tikv.rows),
    '',
    ...OPERATIONS.map((op) => `- ${op.name}: ${op.why}`),
    ...tikv.notes,
    `- failover: the replacement member's pod, created after the ${secs(periodMs)} failover period (policy, not physics) has run out, until its member serves.`,
    '',
    `**Failover latency after the deadline** (basic-pd-1's process dies two minutes after Ready; deadline = its \`lastTransitionTime\` in status + pdFailoverPeriod ${secs(periodMs)}, as TiDB Operator; times since the run's start; steps counted from the fault to Ready again):`,
    '',
    failoverTable(runs),
    '',
    `**TiKV store failover latency after the deadline** (bench/scenarios/${STORE_FAILOVER_SCENARIO}: basic-tikv-1's process dies two minutes after Ready; PD marks its store Down after max-store-down-time, 2 min in its config; deadline = the store's \`lastTransitionTime\` in status + tikvFailoverPeriod ${secs(runs.oursStore.scenario.config.failoverPeriodMs.tikv)}, as TiDB Operator; times since the run's start; steps counted from the fault to the replacement's store Up):`,
    '',
    storeFailoverTable(runs.oursStore, runs.opStore.map((run, i) => ({ name: `TiDB-Operator-like, next resync ${secs(RESYNC_PHASES_MS[i] ?? 0)} after the fault`, run })), storeFailoverMinimumMs(runs.oursStore)),
    '',
    "**Kubernetes and PD calls per step during each operation (ours)**, counted at the API server and divided by the operation's steps (the sweep's cluster-wide TidbCluster LIST, every 5 min, falls in the LIST column):",
    '',
    callsTable(runs),
    '',
    `Invariant violations over all ${all.length + tikv.runs} runs: ${violations}. TiDB-Operator-like runs (operations file; failover file), per resync phase: ${RESYNC_PHASES_MS.map((p, i) => `${secs(p)}: ${driverLine(runs.opOps[i])}; ${driverLine(runs.opFail[i])}`).join(' — ')}.`,
    '',
    "The failover runs on a fresh cluster, so the operations before it do not shift its timing.",
  ].join('\n');
}

/**
 * TiKV rolling upgrade of 3 stores (bench/scenarios/tikv-upgrade.yaml, from the patch, entry 2, to
 * TiKV's phase back to Normal, entry 4): ours and the TiDB-Operator-like loop against the physical
 * minimum — each store's leaders evicted, then its pod started, one store after another.
 */
export async function benchTikvUpgrade(): Promise<string> {
  const op = { from: 2, to: 4 };
  const oursRun = await recordRun('tikv-upgrade.yaml', ours);
  const zeroRun = await oursZeroLatency('tikv-upgrade.yaml');
  const opRuns: Run[] = [];
  for (const phase of RESYNC_PHASES_MS) opRuns.push(await recordRun('tikv-upgrade.yaml', operatorLike(phase), undefined, ZERO_LATENCY));
  const { podStartupMs, leaderEvictionMs } = oursRun.scenario.sim;
  const o = measure(oursRun, op);
  const m = opRuns.map((run) => measure(run, op));
  const violations = [oursRun, zeroRun, ...opRuns].reduce((n, r) => n + r.violations, 0);
  const minimumMs = 3 * (leaderEvictionMs + podStartupMs);
  const rows = [
    [
      'rolling upgrade of 3 TiKV stores',
      3,
      secs(minimumMs),
      `**${secs(o.virtualMs)}**`,
      `**${ratio(o.virtualMs, minimumMs)}**`,
      ...zeroLatencyCells(measure(zeroRun, op).virtualMs, minimumMs),
      o.steps,
      o.requests['pd-write'],
      spread(m.map((x) => x.virtualMs), secs),
      spread(m.map((x) => x.steps), num),
    ],
  ];
  return [
    '### TiKV rolling upgrade: virtual time against the physical minimum and a TiDB-Operator-like loop',
    '',
    `bench/scenarios/tikv-upgrade.yaml: PD 3 + TiKV 3, a version bump; measured from the patch to \`status.tikv.phase\` Normal. Physical minimum: per store, leader eviction (${secs(leaderEvictionMs)}, the simulator's \`leaderEviction\`) then pod startup (${secs(podStartupMs)}), three stores one after another; it leaves out process boot and the store's heartbeat to PD. Drivers and latency as in the PD operations section (TiDB-Operator-like: next resync ${RESYNC_PHASES_MS.map(secs).join(', ')} after each action; mean and range).`,
    '',
    table(['operation', 'stores restarted one after another', 'physical minimum', 'ours: virtual time', 'ours / minimum', ...ZERO_LATENCY_HEADERS, 'ours: steps', 'ours: PD writes', 'TiDB-Operator-like: virtual time', 'TiDB-Operator-like: steps'], rows),
    '',
    `Invariant violations over all ${2 + opRuns.length} runs: ${violations}. TiDB-Operator-like runs, per resync phase: ${RESYNC_PHASES_MS.map((p, i) => `${secs(p)}: ${driverLine(opRuns[i])}`).join(' — ')}.`,
  ].join('\n');
}
