/**
 * `tidb-reconciler simulate`: runs a scenario's timeline against the simulated stack on a virtual
 * clock and produces the report of docs/SCENARIOS.md. Time only moves when nothing is left to do
 * at the current instant: due messages are delivered to the reconcile handler first, then the clock
 * jumps to the next timer or message. Who did what is known by phase: the reconciler acts only
 * inside handler invocations, the simulated controllers only while the clock advances.
 */
import { tsoOf } from '../sim/backup/dataset.js';
import { DEFAULT_GC_LIFE_TIME, GC_LIFE_TIME } from '../sim/tidb/sql-tidb-table.js';
import type { SimStack } from './sim-stack.js';
import { formatClock } from './scenario/progress.js';
import { ReportBuilder, type ActionRecord, type EksWorldReport, type FinalGcLifeTime, type FinalState, type ScenarioReport } from './scenario/report.js';
import { type Phase, recordWorld, worldObjects, worldPd } from './world-report.js';
import { eksClusterOf } from './scenario/eks-clusters.js';
import { jsonPathEquals, jsonPathGreaterThan } from './scenario/jsonpath.js';
import { isCustomKind } from './scenario/objects.js';
import type { Progress } from './scenario/progress.js';
import { scenarioClusters, watchedClusters, type ObjectRef, type TimelineEntry, type WaitCondition } from './scenario/types.js';
import { refNamespace, runVerb, type VerbResult } from './timeline-verbs.js';
import { seedTwin } from './twin.js';
import { checkExpectation, takeMark, type Mark } from './expect-verbs.js';
import { formatAdminAnswer, type TimeFormat } from './admin-format.js';
import { explainTimeout, isClusterReady } from './wait-diagnosis.js';
import type { KubeObject } from '../sim/object.js';
import { EXPECTED_REQUESTS, unmetRequestBounds } from './scenario/expect.js';
import { REQUEST_TARGETS, type RequestCounts } from './request-counts.js';


/** Runs `stack.scenario` to its report. */
export async function runScenario(stack: SimStack, progress: Progress): Promise<ScenarioReport> {
  const wallStart = performance.now();
  const t0 = stack.clock.nowMs();
  const rel = (ms: number): number => Math.max(0, ms - t0);
  const report = new ReportBuilder(stack.scenario.name);
  let phase: Phase = 'timeline';
  const record = (a: Omit<ActionRecord, 'atMs'>): void => report.recordAction({ ...a, atMs: rel(stack.clock.nowMs()) } as ActionRecord);
  recordWorld(stack.world, stack.sim, record, () => phase);
  // Each further EKS cluster's world (sim.eksClusters) has its own actions, reported under its name.
  const further = stack.eks.extra.map((e) => {
    const actions = new ReportBuilder(e.name);
    recordWorld(e.world, e.sim, (a) => actions.recordAction({ ...a, atMs: rel(stack.clock.nowMs()) } as ActionRecord), () => phase);
    return { name: e.name, actions };
  });
  // While a handler sleeps (an in-call retry), the world moves on: what happens then is the sim's.
  let sleptIn: Phase = 'reconciler';
  stack.handlerClock.onTimePassing = (passing) => {
    if (passing) [sleptIn, phase] = [phase, 'sim'];
    else phase = sleptIn;
  };
  // A failed invocation is logged and counted, and the run goes on (as Lambda: retries, redelivery).
  stack.onInvocationError = (e) => progress.invocationFailed(rel(stack.clock.nowMs()), e);
  const sweepEvery = stack.scenario.config.sweepIntervalMs;
  const armSweep = (): void => void stack.clock.setTimer(() => (stack.sweeps.enqueue(), armSweep()), sweepEvery);
  armSweep();

  // Delivery stops as soon as `until` holds, so a waitFor sees every state a step leaves behind,
  // even one the next step (due at once) changes again.
  const deliver = async (until?: () => boolean): Promise<boolean> => {
    phase = 'reconciler';
    await stack.sweeps.runDue();
    const batches = await stack.delivery.deliverDue(undefined, until);
    phase = 'sim';
    return batches >= 50;
  };
  /** Runs until `until()` holds or `targetMs`; true when `until` held (or there is none). */
  const runUntil = async (targetMs: number, until?: () => boolean): Promise<boolean> => {
    for (;;) {
      await stack.exporterIdle();
      const saturated = await deliver(until);
      if (until?.()) return true;
      const now = stack.clock.nowMs();
      if (now >= targetMs) return until === undefined;
      // While a batch gathers (the batching window), its visible records are due when the window closes.
      const candidates = [stack.clock.nextTimerAtMs(), stack.delivery.nextDueAtMs() ?? stack.queue.nextVisibleAtMs(), targetMs].filter((x): x is number => x !== undefined);
      // Timers due now fire without time moving; a queue still busy at this instant (a key that keeps
      // re-enqueueing itself) must not stall time, so then the clock moves on by a millisecond.
      const next = saturated ? now + 1 : Math.max(now, Math.min(...candidates));
      await stack.clock.advanceTo(Math.min(next, targetMs));
    }
  };

  const marks = new Map<string, Mark>();
  phase = 'timeline';
  applyCluster(stack);
  phase = 'sim';
  // `expect.requests` counts from the start of timeline[since] (to that of timeline[until]): the counts and the times then.
  let window: RequestsWindow | undefined;
  for (const entry of stack.scenario.timeline) {
    const start = stack.clock.nowMs();
    if (entry.index === stack.scenario.expect?.requests?.since) window = { counts: stack.requests.snapshot(), atMs: start };
    if (entry.index === stack.scenario.expect?.requests?.until && window) window.end = { counts: stack.requests.snapshot(), atMs: start };
    report.startEntry(entry, rel(start));
    progress.entryStarted(entry, rel(start));
    const result = entry.verb === 'mark' || entry.verb === 'expect' ? markOrExpect(stack, entry, report, marks) : await runEntry(stack, entry, runUntil, (p) => (phase = p), t0);
    const end = { ok: result.ok, endMs: rel(stack.clock.nowMs()), ...(result.ok ? {} : { error: result.error }) };
    report.endEntry(end.endMs, end.ok, result.ok ? undefined : result.error, result.answer);
    progress.entryFinished(entry, end);
    if (entry.verb === 'admin' && result.answer !== undefined) progress.adminAnswered?.(end.endMs, entry.admin.action, formatAdminAnswer(result.answer, virtualTime(stack.clock.nowMs(), t0)));
    if (!result.ok) break;
  }
  const out = report.finish({
    virtualMs: rel(stack.clock.nowMs()),
    wallMs: Math.round(performance.now() - wallStart),
    steps: stack.steps,
    invocationErrors: stack.invocationErrors,
    requests: stack.requests.snapshot(),
    ...(stack.eksApi === undefined ? {} : { eksRequests: stack.eksApi.requests }),
    invariants: [
      ...stack.sim.invariants().map((inv) => ({ name: inv.name, violations: inv.violations.map((v) => ({ atMs: rel(v.atMs), message: v.message })) })),
      // The local world enforces each function's role: a refused call fails the run (ADR 0014).
      { name: 'iam-allows-every-call', violations: stack.denials.map((d) => ({ atMs: rel(d.atMs), message: d.message })) },
      // The world enforces infra/'s RBAC on every function's request: a 403 fails the run (ADR 0017).
      { name: 'rbac-allows-every-call', violations: (stack.world.gate?.denials ?? []).map((d) => ({ atMs: rel(d.atMs), message: d.message })) },
      // Each further EKS cluster's world (sim.eksClusters) keeps its own invariants and RBAC, named by its cluster.
      ...stack.eks.extra.flatMap((e) => [
        ...e.sim.invariants().map((inv) => ({ name: `${e.name}:${inv.name}`, violations: inv.violations.map((v) => ({ atMs: rel(v.atMs), message: v.message })) })),
        { name: `${e.name}:rbac-allows-every-call`, violations: (e.world.gate?.denials ?? []).map((d) => ({ atMs: rel(d.atMs), message: d.message })) },
      ]),
      // Namespace-scoped (config.watchNamespaces): no function's request named another namespace.
      { name: 'watched-namespaces-only', violations: unwatchedRequests(stack).map((message) => ({ atMs: rel(stack.clock.nowMs()), message })) },
      // `expect.requests`: the load the run was allowed (only with the section).
      ...(stack.scenario.expect?.requests ? [{ name: EXPECTED_REQUESTS, violations: unmetRequests(stack, window).map((message) => ({ atMs: rel(stack.clock.nowMs()), message })) }] : []),
    ],
    final: finalState(stack, t0),
    ...(further.length === 0 ? {} : { eksClusters: Object.fromEntries(further.map((f) => [f.name, { actions: f.actions.recordedActions(), ...furtherFinal(stack, f.name) }])) }),
  });
  progress.runFinished(out);
  return out;
}

/** The counts and time at the start of timeline[since], and at that of timeline[until] once it started. */
type RequestsWindow = { counts: RequestCounts; atMs: number; end?: { counts: RequestCounts; atMs: number } };

/** The bounds of `expect.requests` the window from timeline[since] (to timeline[until]) broke (an entry never started: one message saying so). */
function unmetRequests(stack: SimStack, window: RequestsWindow | undefined): string[] {
  const expectation = stack.scenario.expect?.requests;
  if (expectation === undefined) return [];
  if (window === undefined) return [`timeline[${expectation.since}] never started, so its requests were not counted`];
  const { until } = expectation;
  if (until !== undefined && window.end === undefined) return [`timeline[${until}] never started, so the requests up to it were not counted`];
  const end = window.end ?? { counts: stack.requests.snapshot(), atMs: stack.clock.nowMs() };
  const counts = subtractCounts(end.counts, window.counts);
  return unmetRequestBounds(expectation, { counts, virtualMs: end.atMs - window.atMs, clusters: scenarioClusters(stack.scenario).length, since: expectation.since, ...(until === undefined ? {} : { until }) });
}

/** Each target's count in `to` less its count in `from`. */
function subtractCounts(to: RequestCounts, from: RequestCounts): RequestCounts {
  return Object.fromEntries(REQUEST_TARGETS.map((t) => [t, to[t] - from[t]])) as RequestCounts;
}

/** Each function whose allowed API requests named a namespace outside `config.watchNamespaces`, and those namespaces. */
function unwatchedRequests(stack: SimStack): string[] {
  const watched = stack.scenario.config.watchNamespaces;
  if (watched === undefined) return [];
  const out: string[] = [];
  for (const fn of ['reconcile', 'sweep', 'admin', 'exporter']) {
    const user = stack.dynamo.identities.principal(fn).arn;
    const outside = [...(stack.world.gate?.namespaces.get(user) ?? [])].filter((ns) => !watched.includes(ns));
    if (outside.length > 0) out.push(`${fn} (${user}) sent requests in namespaces ${outside.join(', ')}, outside WATCH_NAMESPACES (${watched.join(',')})`);
  }
  return out;
}

/** Times in an admin answer as the run's virtual clock shows them (`t=1m05s`). */
function virtualTime(nowMs: number, t0Ms: number): TimeFormat {
  return { nowMs, formatTime: (ms) => `t=${formatClock(Math.max(0, ms - t0Ms)).trim()}` };
}

type RunUntil = (targetMs: number, until?: () => boolean) => Promise<boolean>;

/** `mark:` records the first cluster's pods and the action count; `expect:` checks against it (expect-verbs.ts). */
function markOrExpect(stack: SimStack, entry: TimelineEntry, report: ReportBuilder, marks: Map<string, Mark>): VerbResult {
  const namespace = stack.scenario.cluster.metadata.namespace;
  if (entry.verb === 'mark') {
    marks.set(entry.name, takeMark(stack.world.store, namespace, report.actionCount()));
    return { ok: true };
  }
  if (entry.verb !== 'expect') return { ok: false, error: `${entry.verb} is not mark or expect` };
  const mark = marks.get(entry.expect.since);
  if (!mark) return { ok: false, error: `no mark ${JSON.stringify(entry.expect.since)} was taken` };
  return checkExpectation(entry.expect, mark, stack.world.store, namespace, report.actionsFrom(mark.actionCount));
}

async function runEntry(stack: SimStack, entry: TimelineEntry, runUntil: RunUntil, setPhase: (p: Phase) => void, t0Ms: number): Promise<VerbResult> {
  const now = stack.clock.nowMs();
  if (entry.verb === 'advance') {
    await runUntil(now + entry.durationMs);
    return { ok: true };
  }
  if (entry.verb === 'waitFor') {
    const reached = await runUntil(now + entry.timeoutMs, () => conditionHolds(stack, entry.until, entry.eks));
    if (reached) return { ok: true };
    const about = entry.until.kind === 'jsonpath' && entry.until.object ? `; ${describeObject(stack, entry.until.object, entry.eks)}` : '';
    return { ok: false, error: `${await explainTimeout(stack, entry.timeoutMs, t0Ms, entry.until)}${about}` };
  }
  // The admin function is the reconciler's; everything else a timeline verb does is the user's.
  setPhase(entry.verb === 'admin' ? 'reconciler' : 'timeline');
  try {
    return await runVerb(stack, entry);
  } finally {
    setPhase('sim');
  }
}

/** What a timed-out `waitFor` on an object saw of it: gone, or its phase and latest condition. */
function describeObject(stack: SimStack, ref: ObjectRef, eks: string | undefined): string {
  const namespace = refNamespace(stack, ref, eks);
  const o = storeOfRef(stack, ref, eks).get(ref.kind, namespace, ref.name);
  const id = `${ref.kind} ${namespace === undefined ? '' : `${namespace}/`}${ref.name}`;
  if (!o) return `${id} does not exist`;
  const status = (o.status ?? {}) as { phase?: unknown; conditions?: { type?: string; reason?: string; message?: string }[] };
  const last = status.conditions?.at(-1);
  const condition = last ? `, last condition ${last.type ?? ''}${last.reason ? ` (${last.reason}${last.message ? `: ${JSON.stringify(last.message)}` : ''})` : ''}` : '';
  return `${id} phase ${JSON.stringify(status.phase ?? null)}${condition}`;
}

/**
 * Whether a `waitFor` condition holds: `ready` for every TidbCluster the functions watch (all but
 * those outside `config.watchNamespaces`), the others for the first. With `eks` (the entry's `eks:`),
 * only the TidbClusters of that EKS cluster, the others for its TidbCluster.
 */
export function conditionHolds(stack: SimStack, until: WaitCondition, eks?: string): boolean {
  const place = stack.eks.place(eks);
  const m = place?.cluster?.metadata;
  const tc = m === undefined ? undefined : place?.world.store.get('TidbCluster', m.namespace, m.name);
  switch (until.kind) {
    case 'ready':
      return watchedClusters(stack.scenario).every((c) => {
        if (eks !== undefined && eksClusterOf(stack.scenario.sim.eksClusters, c.metadata.namespace, c.metadata.name) !== eks) return true;
        // Each TidbCluster in the world of its EKS cluster (sim.eksClusters; the one world without it).
        const store = stack.eks.worldOf(c.metadata.namespace, c.metadata.name).store;
        return isClusterReady(store, store.get('TidbCluster', c.metadata.namespace, c.metadata.name));
      });
    case 'phase':
      return tc?.status?.[until.component]?.phase === until.phase;
    case 'jsonpath': {
      const target = until.object === undefined ? tc : storeOfRef(stack, until.object, eks).get(until.object.kind, refNamespace(stack, until.object, eks), until.object.name);
      if ('greaterThan' in until) return jsonPathGreaterThan(until.path, target ?? null, until.greaterThan);
      if ('notEquals' in until) return !jsonPathEquals(until.path, target ?? null, until.notEquals);
      return jsonPathEquals(until.path, target ?? null, until.equals);
    }
    default: {
      const never: never = until;
      return never;
    }
  }
}

/**
 * Creates the scenario's namespaces (if missing), its `objects:` and then its TidbCluster at t = 0 —
 * with `--from-kubeconfig`, the live cluster's twin (the TidbCluster and its objects).
 */
function applyCluster(stack: SimStack): void {
  const tc = stack.scenario.cluster;
  const clusters = scenarioClusters(stack.scenario);
  const store = stack.world.store;
  const namespaces = new Set([...clusters.map((c) => c.metadata.namespace), ...stack.scenario.objects.flatMap((o) => (o.metadata.namespace === undefined ? [] : [o.metadata.namespace]))]);
  for (const ns of namespaces) if (!store.get('Namespace', undefined, ns)) store.create('Namespace', { metadata: { name: ns } });
  // TiDB Operator's resources strict, as kubectl applies them.
  for (const object of stack.scenario.objects) store.create(object.kind, structuredClone(object) as unknown as KubeObject, isCustomKind(object.kind) ? { fieldValidation: 'Strict' } : {});
  // The objects whose `eks:` names a further EKS cluster, in its world, their namespaces made there first.
  for (const [eks, objects] of Object.entries(stack.scenario.eksObjects ?? {})) {
    const target = stack.eks.place(eks)?.world.store;
    for (const object of objects) {
      const ns = object.metadata.namespace;
      if (ns !== undefined && !target?.get('Namespace', undefined, ns)) target?.create('Namespace', { metadata: { name: ns } });
      target?.create(object.kind, structuredClone(object) as unknown as KubeObject, isCustomKind(object.kind) ? { fieldValidation: 'Strict' } : {});
    }
  }
  const twin = stack.scenario.twinObjects;
  if (twin) seedTwin(store, structuredClone(tc) as unknown as Record<string, unknown>, twin as unknown as KubeObject[]);
  // Strict, as kubectl applies it: a misspelt field in the scenario fails the run instead of being pruned.
  // Each in the world of its EKS cluster (sim.eksClusters), its namespace made there first.
  else {
    for (const c of clusters) {
      const target = stack.eks.worldOf(c.metadata.namespace, c.metadata.name).store;
      if (!target.get('Namespace', undefined, c.metadata.namespace)) target.create('Namespace', { metadata: { name: c.metadata.namespace } });
      target.create('TidbCluster', structuredClone(c) as unknown as KubeObject, { fieldValidation: 'Strict' });
    }
  }
}

/**
 * The store an object of a `waitFor` lives in: a TidbCluster's EKS cluster's world, every other kind
 * the world of the EKS cluster the entry names (`eks`), else the first world's.
 */
function storeOfRef(stack: SimStack, ref: ObjectRef, eks: string | undefined): SimStack['world']['store'] {
  const namespace = refNamespace(stack, ref, eks);
  if (ref.kind === 'TidbCluster' && namespace !== undefined) return stack.eks.worldOf(namespace, ref.name).store;
  return (stack.eks.place(eks)?.world ?? stack.world).store;
}

/** A cluster's `tikv_gc_life_time` (TiDB's default until something wrote it), what TiDB's GC makes of it, and every write of it at run-relative times. */
function gcLifeTimeOf(stack: SimStack, ns: string, name: string, t0: number): FinalGcLifeTime {
  const table = stack.sim.cluster(ns, name)?.sql.tidbTable;
  const writes = (table?.writes ?? []).filter((w) => w.name === GC_LIFE_TIME).map((w) => ({ atMs: Math.max(0, w.atMs - t0), value: w.value, user: w.user, clientHost: w.clientHost }));
  const read = table?.gcLifeTime() ?? { value: DEFAULT_GC_LIFE_TIME, effectiveMs: 600_000 };
  return { ...read, writes };
}

function finalState(stack: SimStack, t0: number): FinalState {
  const m = stack.scenario.cluster.metadata;
  const store = stack.world.store;
  const clusters = scenarioClusters(stack.scenario);
  const objects = worldObjects(store, finalNamespaces(stack));
  const all = clusters.length === 1 ? {} : { tidbclusters: Object.fromEntries(clusters.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, stack.eks.worldOf(c.metadata.namespace, c.metadata.name).store.get('TidbCluster', c.metadata.namespace, c.metadata.name) ?? null])) };
  const datasetOf = (ns: string, name: string) => ({ checksum: stack.sim.backups.datasets.at(ns, name).checksum, ts: tsoOf(stack.clock.nowMs()) });
  const backups =
    stack.scenario.sim.buckets !== undefined || stack.scenario.sim.workload !== undefined
      ? {
          buckets: stack.sim.backups.s3.contents(),
          dataset: datasetOf(m.namespace, m.name),
          ...(clusters.length === 1 ? {} : { datasets: Object.fromEntries(clusters.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, datasetOf(c.metadata.namespace, c.metadata.name)])) }),
          gcLifeTime: Object.fromEntries(clusters.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, gcLifeTimeOf(stack, c.metadata.namespace, c.metadata.name, t0)])),
        }
      : {};
  return {
    ...backups,
    tidbcluster: (store.get('TidbCluster', m.namespace, m.name) as Record<string, unknown> | undefined) ?? null,
    ...all,
    objects,
    pd: worldPd(stack.sim, m.namespace, m.name),
  } as FinalState;
}

/** The namespaces whose objects the report lists: every TidbCluster's, in every world. */
function finalNamespaces(stack: SimStack): string[] {
  return [...new Set(scenarioClusters(stack.scenario).map((c) => c.metadata.namespace))];
}

/** A further EKS cluster's objects, and the PD of its TidbCluster (null when it holds none). */
function furtherFinal(stack: SimStack, eks: string): Omit<EksWorldReport, 'actions'> {
  const place = stack.eks.place(eks);
  const m = place?.cluster?.metadata;
  return { objects: place === undefined ? {} : worldObjects(place.world.store, finalNamespaces(stack)), pd: place === undefined || m === undefined ? null : worldPd(place.sim, m.namespace, m.name) };
}
