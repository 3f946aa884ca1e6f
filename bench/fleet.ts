/**
 * The simulated fleet: N PD-only TidbClusters (3 members each, one namespace each) on one
 * `SimStack` — the simulated API server, controllers and PD processes, dynalite, the in-process
 * queue and the real handlers — brought to Ready together, then held at rest for a stretch of
 * virtual time with the sweep running every 5 minutes. Per size: wall time to Ready, steps per
 * wall second, API server requests per cluster per virtual hour at rest, and memory.
 *
 *   npx tsx bench/fleet.ts [--sizes 1,10,100] [--seed N]
 */
import { join } from 'node:path';
import { SimStack } from '../lib/local/sim-stack.js';
import type { Scenario } from '../lib/local/scenario/types.js';
import { ZERO_LATENCY } from '../lib/local/latency.js';
import type { KubeObject } from '../lib/sim/object.js';
import { BENCH_SCENARIOS, RequestTally, loadScenario } from './probes.js';
import { table } from './stats.js';

const HOUR_MS = 3_600_000;
/** Virtual time at rest over which requests are counted (scaled to an hour). */
const REST_MS = 10 * 60_000;
/** Virtual time a fleet may take to reach Ready. */
const READY_WITHIN_MS = 60 * 60_000;
const SWEEP_EVERY_MS = 300_000;

/** What one fleet size measured. */
export type FleetResult = {
  clusters: number;
  ready: number;
  readyVirtualMs: number;
  readyWallMs: number;
  /** CPU time of the process (every thread) to Ready: on a shared machine, wall time alone says little. */
  readyCpuMs: number;
  readySteps: number;
  restSteps: number;
  restWallMs: number;
  restRequests: number;
  restVirtualMs: number;
  rssMiB: number;
  heapMiB: number;
  timedOut: boolean;
};

const namespaceOf = (i: number): string => `fleet-${String(i).padStart(4, '0')}`;

function isReady(tc: KubeObject): boolean {
  return ((tc.status?.conditions ?? []) as { type?: string; status?: string }[]).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * The clusters that are Ready, kept from the store's events: the driver asks after every pass (a
 * thousand times a virtual second with a thousand clusters ticking), so it must not list them.
 */
class ReadyTally {
  private readonly ready = new Set<string>();

  /** Follows `stack`'s clusters for as long as the stack runs. */
  constructor(stack: SimStack) {
    for (const tc of stack.world.store.list('TidbCluster')) this.follow(tc, false);
    stack.world.store.subscribe((ev) => ev.kind === 'TidbCluster' && this.follow(ev.object, ev.type === 'DELETED'));
  }

  /** How many clusters are Ready now. */
  get count(): number {
    return this.ready.size;
  }

  private follow(tc: KubeObject, deleted: boolean): void {
    const key = `${tc.metadata.namespace ?? ''}/${tc.metadata.name ?? ''}`;
    if (!deleted && isReady(tc)) this.ready.add(key);
    else this.ready.delete(key);
  }
}

/** Pods per cluster: 3 PD members and the discovery service. */
const PODS_PER_CLUSTER = 4;
/** Pods per node the fleet plans for (a node takes 110): room for a replacement pod or two. */
const PODS_PER_NODE = 80;

/** One scenario's stack, shaped for `n` clusters: enough nodes for their pods. */
async function fleetStack(n: number, seed: number): Promise<SimStack> {
  const base = loadScenario(join(BENCH_SCENARIOS, 'pd-steady-hour.yaml'));
  const nodes = Math.max(3, Math.ceil((n * PODS_PER_CLUSTER) / PODS_PER_NODE));
  // Without the latency model: one batch at a time stands for Lambda's concurrent containers here,
  // so each step's time would add up across clusters as it never does in AWS.
  const scenario: Scenario = { ...base, sim: { ...base.sim, nodes, latency: ZERO_LATENCY } };
  return SimStack.start(scenario, seed);
}

/** Drives the stack as `simulate` does (sweep on its timer, due deliveries, clock to the next event). */
async function runUntil(stack: SimStack, targetMs: number, wallDeadline: number, until?: () => boolean): Promise<boolean> {
  for (;;) {
    await stack.exporterIdle();
    await stack.sweeps.runDue();
    const saturated = (await stack.delivery.deliverDue()) >= 50;
    if (until?.()) return true;
    const now = stack.clock.nowMs();
    if (now >= targetMs || performance.now() > wallDeadline) return until === undefined;
    const candidates = [stack.clock.nextTimerAtMs(), stack.queue.nextVisibleAtMs(), targetMs].filter((x): x is number => x !== undefined);
    const next = saturated ? now + 1 : Math.max(now, Math.min(...candidates));
    await stack.clock.advanceTo(Math.min(next, targetMs));
  }
}

function memory(): { rssMiB: number; heapMiB: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rssMiB: m.rss / 2 ** 20, heapMiB: m.heapUsed / 2 ** 20 };
}

/** Brings `n` clusters to Ready (within `wallBudgetMs` of wall time) and holds them at rest. */
export async function runFleet(n: number, seed: number, wallBudgetMs: number, progress?: (line: string) => void, restWallBudgetMs = wallBudgetMs): Promise<FleetResult> {
  const stack = await fleetStack(n, seed);
  try {
    const requests = new RequestTally(stack);
    const tally = new ReadyTally(stack);
    const armSweep = (): void => void stack.clock.setTimer(() => (stack.sweeps.enqueue(), armSweep()), SWEEP_EVERY_MS);
    armSweep();
    const store = stack.world.store;
    const cluster = stack.scenario.cluster;
    for (let i = 0; i < n; i++) {
      store.create('Namespace', { metadata: { name: namespaceOf(i) } });
      store.create('TidbCluster', { ...structuredClone(cluster), metadata: { ...structuredClone(cluster.metadata), namespace: namespaceOf(i) } } as unknown as KubeObject);
    }
    const wallStart = performance.now();
    const cpuStart = process.cpuUsage();
    const t0 = stack.clock.nowMs();
    let reported = 0;
    const allReady = await runUntil(stack, t0 + READY_WITHIN_MS, wallStart + wallBudgetMs, () => {
      const ready = tally.count;
      if (progress && stack.steps - reported >= 1000) {
        reported = stack.steps;
        progress(`fleet ${n}: ${ready} Ready, ${stack.steps} steps, ${((stack.clock.nowMs() - t0) / 1000).toFixed(1)} s virtual, ${((performance.now() - wallStart) / 1000).toFixed(0)} s wall, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
      }
      return ready === n;
    });
    const readyWallMs = performance.now() - wallStart;
    const cpu = process.cpuUsage(cpuStart);
    const readyCpuMs = (cpu.user + cpu.system) / 1000;
    const readyVirtualMs = stack.clock.nowMs() - t0;
    const readySteps = stack.steps;
    const ready = tally.count;
    if (!allReady) return { clusters: n, ready, readyVirtualMs, readyWallMs, readyCpuMs, readySteps, restSteps: 0, restWallMs: 0, restRequests: 0, restVirtualMs: 0, ...memory(), timedOut: true };
    const before = requests.snapshot();
    const restStart = performance.now();
    const r0 = stack.clock.nowMs();
    await runUntil(stack, r0 + REST_MS, restStart + restWallBudgetMs);
    const after = requests.snapshot();
    const restRequests = (['list', 'get', 'write', 'pd-read', 'pd-write', 'other'] as const).reduce((sum, c) => sum + after[c] - before[c], 0);
    return {
      clusters: n,
      ready: tally.count,
      readyVirtualMs,
      readyWallMs,
      readyCpuMs,
      readySteps,
      restSteps: stack.steps - readySteps,
      restWallMs: performance.now() - restStart,
      restRequests,
      restVirtualMs: stack.clock.nowMs() - r0,
      ...memory(),
      timedOut: false,
    };
  } finally {
    await stack.stop();
  }
}

function row(r: FleetResult): (string | number)[] {
  const stepsPerS = (steps: number, ms: number): string => (ms > 0 ? (steps / (ms / 1000)).toFixed(1) : '–');
  const perClusterHour = r.restVirtualMs > 0 ? ((r.restRequests / r.clusters) * (HOUR_MS / r.restVirtualMs)).toFixed(0) : '–';
  return [
    r.clusters,
    r.timedOut ? `${r.ready}/${r.clusters} (wall budget spent)` : `${r.ready}/${r.clusters}`,
    `${(r.readyVirtualMs / 1000).toFixed(0)} s`,
    (r.readyWallMs / 1000).toFixed(1),
    (r.readyCpuMs / 1000).toFixed(1),
    r.readySteps,
    stepsPerS(r.readySteps, r.readyWallMs),
    `${(r.restVirtualMs / 60_000).toFixed(1)} min`,
    stepsPerS(r.restSteps, r.restWallMs),
    perClusterHour,
    r.rssMiB.toFixed(0),
    r.heapMiB.toFixed(0),
  ];
}

/** Runs every fleet size (each within its wall budget); returns the section (the 10 000-key sweep is bench/fleet-sweep.ts's own section). */
export async function benchFleet(sizes: readonly number[] = [1, 10, 100, 1000], seed = 1, wallBudgetMs = 300_000, restWallBudgetMs = 120_000): Promise<string> {
  const results: FleetResult[] = [];
  for (const n of sizes) {
    process.stderr.write(`bench: fleet of ${n} …\n`);
    results.push(await runFleet(n, seed, wallBudgetMs, (line) => process.stderr.write(`bench: ${line}\n`), restWallBudgetMs));
  }
  return [
    `### The simulated fleet (PD-only TidbClusters, 3 members each, seed ${seed})`,
    '',
    `Each size on a fresh \`SimStack\` (simulated API server, controllers and PD, dynalite, in-process queue, the real handlers; one reconcile batch at a time, as \`simulate\`, without the latency model: one batch at a time stands for Lambda's concurrent containers, so steps' times would add up across clusters as they do not in AWS), one namespace per cluster, ⌈4n/80⌉ nodes (at least 3; a cluster is 3 PD pods and the discovery pod). Ready: every cluster's Ready condition True, within ${READY_WITHIN_MS / 60_000} min virtual and ${wallBudgetMs / 1000} s wall. At rest: ${REST_MS / 60_000} min virtual (or what ${restWallBudgetMs / 1000} s of wall time reach) with the sweep every ${SWEEP_EVERY_MS / 60_000} min; API server requests (Kubernetes and PD through the proxy) scaled to an hour. CPU: the process's user and system time to Ready (the machine is shared, so wall time alone says little). Memory: the process after a GC when \`--expose-gc\` is on, measured at the end of the size (sizes run one after another in one process).`,
    '',
    table(['clusters', 'Ready', 'virtual time to Ready', 'wall s to Ready', 'CPU s to Ready', 'steps to Ready', 'steps/s to Ready', 'virtual time at rest', 'steps/s at rest', 'API requests per cluster per hour at rest', 'RSS MiB', 'heap MiB'], results.map(row)),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string): string | undefined => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? process.argv[at + 1] : undefined;
  };
  const sizes = (arg('--sizes') ?? '1,10,100,1000').split(',').map(Number);
  const budget = Number(arg('--wall-budget-s') ?? 600) * 1000;
  const results: FleetResult[] = [];
  for (const n of sizes) {
    const restBudget = Number(arg('--rest-wall-budget-s') ?? budget / 1000) * 1000;
    results.push(await runFleet(n, Number(arg('--seed') ?? 1), budget, (line) => process.stderr.write(`${line}\n`), restBudget));
    console.log(table(['clusters', 'Ready', 'virtual time to Ready', 'wall s to Ready', 'CPU s to Ready', 'steps to Ready', 'steps/s to Ready', 'virtual time at rest', 'steps/s at rest', 'API requests per cluster per hour at rest', 'RSS MiB', 'heap MiB'], results.map(row)));
  }
  process.exit(0);
}
