/**
 * The full cluster (bench/scenarios/full-cluster.yaml: PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2,
 * Pump 1): create → Ready and the whole-cluster version upgrade, ours against the physical minimum
 * and the TiDB-Operator-like loop at the three resync phases, then what a step costs on the cluster
 * at rest (one LIST per kind and no writes is the goal). Every number comes from one run of each
 * driver; the minimum comes from ours' run (bench/world-timing.ts), following TiDB Operator v1's
 * dependencies between components (TiDB Operator v1's `tidb_cluster_control.go` order and gates).
 *
 *   npx tsx -e "import('./bench/full-cluster.ts').then(async (m) => { console.log(await m.benchFullCluster()); process.exit(0); })"
 */
import type { SimStack } from '../lib/local/sim-stack.js';
import { ZERO_LATENCY } from '../lib/local/latency.js';
import { driverLine, LATENCY_NOTE, RESYNC_PHASES_MS, type Run, measure, num, operatorLike, ours, oursZeroLatency, ratio, recordRun, secs, spread, ZERO_LATENCY_HEADERS, zeroLatencyCells } from './operations.js';
import { RequestTally, STATE_WRITES, StateTally } from './probes.js';
import { STEADY_SPACING_MS, STEADY_STEPS, type Window, listed, perStep, steadySteps, sum } from './reconciler.js';
import { table } from './stats.js';
import type { TimedComponent, WorldTimingProbe } from './world-timing.js';

const FILE = 'full-cluster.yaml';
/** The file's entries: create → Ready (0), the patch (2), Ready again after the upgrade (5). */
const CREATE = { to: 0 };
const UPGRADE = { from: 2, to: 5 };

type Spec = Partial<Record<TimedComponent, { replicas?: number }>>;

/**
 * TiDB Operator v1's creation order: a component's StatefulSet is written only once the components
 * it `needs` are available (§1.5: TiKV and TiFlash wait for PD, TiDB for TiKV and Pump, TiCDC for
 * PD and TiKV; PD and Pump wait for nothing). Inside a component pods start in parallel, except
 * Pump's (OrderedReady: one after another). PD is available with a quorum of members up, the
 * others with one pod up (`PDIsAvailable`, `TiKVIsAvailable`, `PumpIsAvailable`).
 */
const CREATION: readonly { component: TimedComponent; needs: readonly TimedComponent[]; ordered?: true }[] = [
  { component: 'pd', needs: [] },
  { component: 'tiflash', needs: ['pd'] },
  { component: 'tikv', needs: ['pd'] },
  { component: 'pump', needs: [], ordered: true },
  { component: 'tidb', needs: ['tikv', 'pump'] },
  { component: 'ticdc', needs: ['pd', 'tikv'] },
];

/** v1's upgrade order (§1.3, §1.5): each component rolls only once the ones before it are done, one pod at a time. */
const UPGRADE_ORDER: readonly TimedComponent[] = ['pd', 'tiflash', 'tikv', 'pump', 'tidb', 'ticdc'];

/** One component's part of the creation minimum, in ms since the run's start. */
type CreatePart = { component: TimedComponent; after: string; startMs: number; availableMs: number; doneMs: number; pods: number };

/** The creation minimum: each component's pods as the world timed them in `run`, started when v1 would start them. */
function createMinimum(run: Run, toMs: number): CreatePart[] {
  const spec = run.scenario.cluster.spec as Spec;
  const parts = new Map<TimedComponent, CreatePart>();
  for (const { component, needs, ordered } of CREATION) {
    const replicas = spec[component]?.replicas;
    if (replicas === undefined) continue;
    const d = run.world.startsMs(component, 0, toMs);
    if (d.length < replicas) throw new Error(`${FILE}: ${d.length} of ${replicas} ${component} pods came up before Ready`);
    const present = needs.filter((n) => parts.has(n));
    const startMs = Math.max(0, ...present.map((n) => parts.get(n)?.availableMs ?? 0));
    // PD needs a quorum of members; the others one pod.
    const quorum = component === 'pd' ? Math.floor(replicas / 2) + 1 : 1;
    const sorted = [...d].sort((a, b) => a - b);
    const availableMs = startMs + (ordered ? (d[0] ?? 0) : (sorted[quorum - 1] ?? 0));
    const doneMs = startMs + (ordered ? d.reduce((a, b) => a + b, 0) : Math.max(...d));
    const after = present.length === 0 ? 'nothing' : present.map((n) => `${n} available`).join(', ');
    parts.set(component, { component, after, startMs, availableMs, doneMs, pods: d.length });
  }
  return [...parts.values()];
}

/** One component's part of the upgrade minimum: its restarts and what else the world spent on it (transfers, evictions, drains). */
type UpgradePart = { component: TimedComponent; restarts: number[]; extra: string; extraMs: number; totalMs: number };

function upgradeMinimum(w: WorldTimingProbe, spec: Spec, fromMs: number, toMs: number): UpgradePart[] {
  return UPGRADE_ORDER.filter((c) => spec[c] !== undefined).map((component) => {
    const restarts = w.restartsMs(component, fromMs, toMs);
    let extra = '–';
    let extraMs = 0;
    if (component === 'pd') {
      const n = w.transfersIn(fromMs, toMs);
      extraMs = n * w.pdLeaderTransferMs;
      extra = `${n} leader transfers`;
    } else if (component === 'tikv' || component === 'ticdc') {
      const spans = component === 'tikv' ? w.evictionsMs(fromMs, toMs) : w.drainsMs(fromMs, toMs);
      extraMs = spans.reduce((a, b) => a + b, 0);
      extra = `${spans.length} ${component === 'tikv' ? 'leader evictions' : 'capture drains'} (${spans.map(secs).join(', ') || 'none'})`;
    }
    return { component, restarts, extra, extraMs, totalMs: restarts.reduce((a, b) => a + b, 0) + extraMs };
  });
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function operationRow(name: string, minimum: number, mine: Run, theirs: Run[], op: { from?: number; to: number }, zero: { run: Run; minimum: number }): (string | number)[] {
  const o = measure(mine, op);
  const m = theirs.map((run) => measure(run, op));
  const theirMs = m.map((x) => x.virtualMs);
  return [name, secs(minimum), `**${secs(o.virtualMs)}**`, `**${ratio(o.virtualMs, minimum)}**`, ...zeroLatencyCells(measure(zero.run, op).virtualMs, zero.minimum), o.steps, spread(theirMs, secs), ratio(mean(theirMs), minimum), spread(m.map((x) => x.steps), num)];
}

/** A proxied call's component, from the pod or service it went to (`basic-pd`, `basic-tidb-0`, `basic-ticdc-peer`). */
function componentOfTarget(cluster: string, target: string): string {
  const match = new RegExp(`^${cluster}-(pd|tikv|tiflash|tidb|ticdc|pump)(-peer)?(-\\d+)?$`).exec(target);
  return match?.[1] ?? 'other';
}

/** Per-step calls at rest, as table cells, and what falls short of the goal (writes, more than one LIST of a kind). */
function restRow(rest: Window, cluster: string): { cells: string[]; findings: string[] } {
  const s = rest.steps;
  const byComponent = new Map<string, number>();
  for (const [target, n] of Object.entries(rest.requests.byProxyTarget)) byComponent.set(componentOfTarget(cluster, target), (byComponent.get(componentOfTarget(cluster, target)) ?? 0) + n);
  const lists = Object.entries(rest.requests.detail).filter(([k]) => k.startsWith('LIST '));
  const dynamoWrites = sum(rest.state, STATE_WRITES);
  const dynamoReads = [...rest.state].filter(([k]) => !(STATE_WRITES as readonly string[]).includes(k)).reduce((n, [, v]) => n + v, 0);
  const proxied = (c: string): string => perStep(byComponent.get(c) ?? 0, s);
  const findings = [
    ...lists.filter(([, n]) => n > s).map(([k, n]) => `${k}: ${perStep(n, s)} per step`),
    ...(rest.requests.write > 0 ? [`Kubernetes writes: ${rest.requests.write} over ${s} steps (${listed(Object.entries(rest.requests.byWriteMethod), 1)})`] : []),
    ...(rest.requests['pd-write'] > 0 ? [`writes through the proxy: ${rest.requests['pd-write']} over ${s} steps`] : []),
  ];
  const cells = [
    'measured',
    perStep(rest.requests.list, s),
    String(lists.length),
    perStep(rest.requests.get, s),
    perStep(rest.requests.write, s),
    ...['pd', 'tidb', 'tikv', 'tiflash', 'ticdc', 'pump'].map(proxied),
    perStep(rest.requests['pd-write'], s),
    perStep(dynamoWrites, s),
    perStep(dynamoReads, s),
  ];
  return { cells, findings };
}

async function measureAtRest(stack: SimStack): Promise<Window> {
  const requests = new RequestTally(stack);
  const state = new StateTally(stack.runtime.state);
  return steadySteps(stack, requests, state, STEADY_STEPS, STEADY_SPACING_MS);
}

/** Runs the full-cluster benchmark (ours once, the TiDB-Operator-like loop once per resync phase) and returns its Markdown section. */
export async function benchFullCluster(): Promise<string> {
  let rest: Window | undefined;
  const mine = await recordRun(FILE, ours, async (stack) => {
    rest = await measureAtRest(stack);
  });
  const zero = await oursZeroLatency(FILE);
  const theirs: Run[] = [];
  for (const phase of RESYNC_PHASES_MS) theirs.push(await recordRun(FILE, operatorLike(phase), undefined, ZERO_LATENCY));
  if (!rest) throw new Error(`${FILE}: the at-rest steps did not run`);
  const spec = mine.scenario.cluster.spec as Spec;
  const readyMs = mine.rec.mark(CREATE.to).endMs;
  const create = createMinimum(mine, readyMs);
  const createMs = Math.max(...create.map((p) => p.doneMs));
  const upgrade = upgradeMinimum(mine.world, spec, mine.rec.mark(UPGRADE.from).endMs, mine.rec.mark(UPGRADE.to).endMs);
  const upgradeMs = upgrade.reduce((a, p) => a + p.totalMs, 0);
  // The zero-latency run's ratios are to the minimum measured in its own run.
  const zeroCreateMs = Math.max(...createMinimum(zero, zero.rec.mark(CREATE.to).endMs).map((p) => p.doneMs));
  const zeroUpgradeMs = upgradeMinimum(zero.world, spec, zero.rec.mark(UPGRADE.from).endMs, zero.rec.mark(UPGRADE.to).endMs).reduce((a, p) => a + p.totalMs, 0);
  const all = [mine, zero, ...theirs];
  const violations = all.reduce((n, r) => n + r.violations, 0);
  const r = restRow(rest, mine.scenario.cluster.metadata.name);
  const s = rest.steps;
  return [
    '### Full cluster: create → Ready and whole-cluster upgrade against the physical minimum and a TiDB-Operator-like loop; a step at rest',
    '',
    `bench/scenarios/${FILE}: PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1 (as test/scenarios/cluster-full-upgrade.yaml); create → Ready, two quiet minutes, \`spec.version\` v8.5.0 → v8.5.1 until Ready again. Drivers as in the PD operations section: ours (\`runScenario\`) once, the TiDB-Operator-like loop once per resync phase (next resync ${RESYNC_PHASES_MS.map(secs).join(', ')} after each action; mean and range). The physical minimum is measured in ours' run (bench/world-timing.ts: a pod is up when what TiDB Operator checks of it holds in the world — PD member serving with quorum, store Up, capture registered, Pump online, TiDB pod Ready).`,
    '',
    LATENCY_NOTE,
    '',
    table(['operation', 'physical minimum (this run)', 'ours: virtual time', 'ours / minimum', ...ZERO_LATENCY_HEADERS, 'ours: steps', 'TiDB-Operator-like: virtual time', 'TiDB-Operator-like / minimum', 'TiDB-Operator-like: steps'], [
      operationRow('full cluster: create → Ready', createMs, mine, theirs, CREATE, { run: zero, minimum: zeroCreateMs }),
      operationRow('full cluster: upgrade every component → Ready', upgradeMs, mine, theirs, UPGRADE, { run: zero, minimum: zeroUpgradeMs }),
    ]),
    '',
    `**What the create minimum is made of** (ours' run): each component's pods start when TiDB Operator v1 would write its StatefulSet — once the components it needs are available (§1.5) — and take what the world took for them, creation → up; pods of a component start together (the slowest counts), Pump's one after another (OrderedReady). PD is available with a quorum up, the others with one pod up. Ready needs every component done: ${secs(createMs)}.`,
    '',
    table(['component', 'pods', 'starts after', 'starts at', 'available at', 'all up at'], create.map((p) => [p.component, p.pods, p.after, secs(p.startMs), secs(p.availableMs), secs(p.doneMs)])),
    '',
    `**What the upgrade minimum is made of** (ours' run): v1 rolls one pod at a time, component after component (PD, TiFlash, TiKV, Pump, TiDB, TiCDC), so everything adds up: each pod's termination → its replacement up (PD: ready by /pd/api/v2/ready), PD's transfer time (${secs(mine.world.pdLeaderTransferMs)}) per leader transfer, each TiKV store's leader eviction (the evict-leader scheduler added → no leader left), each TiCDC capture's drain (drain call → no table left). Total ${secs(upgradeMs)}.`,
    '',
    table(['component', 'pods restarted', 'termination → up, each', 'besides the restarts', 'component total'], upgrade.map((p) => [p.component, p.restarts.length, p.restarts.map(secs).join(', ') || '–', p.extra, secs(p.totalMs)])),
    '',
    `**A step on the full cluster at rest** (Ready, after the upgrade and five idle minutes; ${STEADY_STEPS} triggers as the exporter sends for a change, one every ${STEADY_SPACING_MS / 1000} s virtual, as the PD steady-state table): ${s} steps. Proxied calls are counted by the pod or service they went to.`,
    '',
    table(['per step', 'Kubernetes LIST', 'kinds listed', 'Kubernetes GET (one object)', 'Kubernetes writes', 'PD calls', 'TiDB calls', 'TiKV calls', 'TiFlash calls', 'TiCDC calls', 'Pump calls', 'proxied writes', 'DynamoDB writes', 'DynamoDB reads'], [
      r.cells,
      ['target', 'one per kind', '–', '0 per pod', '0', '–', '–', '–', '–', '–', '–', '0', '2 (claim, release)', '–'],
    ]),
    '',
    `- Kubernetes reads per step: ${listed(Object.entries(rest.requests.detail).filter(([k]) => k.startsWith('LIST ') || k.startsWith('GET ')), s)}.`,
    `- Proxied calls per step: ${listed(Object.entries(rest.requests.detail).filter(([k]) => k.startsWith('PD ')).map(([k, n]) => [k.slice('PD '.length), n] as [string, number]), s)}.`,
    `- State store calls per step: ${listed(rest.state, s)}.`,
    `- Short of the goal (0 writes, one LIST per kind): ${r.findings.join('; ') || 'nothing'}.`,
    '',
    `Invariant violations over all ${all.length} runs: ${violations}. TiDB-Operator-like runs, per resync phase: ${RESYNC_PHASES_MS.map((p, i) => `${secs(p)}: ${driverLine(theirs[i])}`).join(' — ')}.`,
  ].join('\n');
}
