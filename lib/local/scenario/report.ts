/**
 * The JSON report of a `simulate` run, exactly as docs/SCENARIOS.md specifies it, and the builder
 * the runner feeds as the run goes. All times are virtual milliseconds since the start of the run.
 * Keys come out in the documented order and optional keys are left out rather than set to null,
 * so the same seed and file give byte-for-byte the same report (apart from `wallMs`).
 */
import type { Verb } from './types.js';
import { REQUEST_TARGETS, type RequestCounts } from '../request-counts.js';

/** One timeline entry that ran. Entries skipped after a failure are not listed. */
export type TimelineRecord = {
  readonly index: number;
  readonly verb: Verb;
  readonly ok: boolean;
  readonly startMs: number;
  readonly endMs: number;
  readonly error?: string;
  /** An `admin` entry's answer, exactly as the admin function gave it (ok or not). */
  readonly answer?: unknown;
};

/** Who caused a side effect: the reconciler, the simulated controllers/kubelet, or the timeline. */
export type Actor = 'reconciler' | 'sim' | 'timeline';

/** The Kubernetes writes an action can be. */
export const KUBE_WRITE_VERBS = ['create', 'update', 'updateStatus', 'patch', 'delete'] as const;

/** One of `KUBE_WRITE_VERBS`. */
export type KubeWriteVerb = (typeof KUBE_WRITE_VERBS)[number];

/** The PD, TiCDC and Pump calls an action can be; each carries `args`. */
export const CALL_VERBS = [
  'pd.transferLeader',
  'pd.transferPrimary',
  'pd.deleteMember',
  'pd.deleteStore',
  'pd.setStoreState',
  'pd.setStoreLabels',
  'pd.addEvictLeaderScheduler',
  'pd.removeEvictLeaderScheduler',
  'pd.updateReplicationConfig',
  'ticdc.resignOwner',
  'ticdc.drainCapture',
  'pump.offline',
  'tidb.setLabels',
  'tidb.startUpgrade',
  'tidb.finishUpgrade',
  'tiproxy.setLabels',
] as const;

/** One of `CALL_VERBS`. */
export type CallVerb = (typeof CALL_VERBS)[number];

/** Every action verb: Kubernetes writes, calls, and `event` for Kubernetes Events. */
export type ActionVerb = KubeWriteVerb | CallVerb | 'event';

/**
 * One side effect. Kubernetes writes carry `kind`, `namespace` (not for cluster-scoped kinds),
 * `name` and `object` (as stored after the write; for `delete`, as it was); calls and events carry
 * `args`. A failed call is recorded too, with `error`.
 */
export type ActionRecord = {
  readonly atMs: number;
  readonly actor: Actor;
  readonly verb: ActionVerb;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly object?: unknown;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly error?: string;
};

/** One violation of an invariant, at a virtual time. */
export type Violation = { readonly atMs: number; readonly message: string };

/** One invariant and its violations (none when it held throughout). */
export type InvariantResult = { readonly name: string; readonly violations: readonly Violation[] };

/** A PD member at the end of the run. */
export type FinalPdMember = { readonly name: string; readonly id: string; readonly health: boolean };

/** A TiKV or TiFlash store at the end of the run. */
export type FinalPdStore = {
  readonly id: string;
  readonly address: string;
  readonly state: string;
  readonly leaderCount: number;
  readonly labels: Readonly<Record<string, string>>;
};

/** PD at the end of the run; `leader` is null while PD has none. */
export type FinalPd = {
  readonly members: readonly FinalPdMember[];
  readonly leader: string | null;
  readonly stores: readonly FinalPdStore[];
  readonly schedulers: readonly string[];
};

/**
 * The world at the end of the run (or at the moment a `waitFor` timed out): the TidbCluster with
 * its status (null once deleted), every object by `objectKey`, and PD.
 */
export type FinalState = {
  readonly tidbcluster: Readonly<Record<string, unknown>> | null;
  /** With several clusters (`clusters:`): each stored TidbCluster by `namespace/name`, the first included. */
  readonly tidbclusters?: Readonly<Record<string, Readonly<Record<string, unknown>> | null>>;
  readonly objects: Readonly<Record<string, unknown>>;
  readonly pd: FinalPd;
  /** When the scenario declares `sim.buckets` or `sim.workload`: every bucket's object keys. */
  readonly buckets?: Readonly<Record<string, readonly string[]>>;
  /** Likewise: the first cluster's dataset (checksum, and the ts it was read at as a TSO). */
  readonly dataset?: FinalDataset;
  /** Likewise, with several clusters: each cluster's dataset by `namespace/name`. */
  readonly datasets?: Readonly<Record<string, FinalDataset>>;
  /** Likewise: each cluster's `mysql.tidb` `tikv_gc_life_time` by `namespace/name`, and who wrote it when. */
  readonly gcLifeTime?: Readonly<Record<string, FinalGcLifeTime>>;
};

/**
 * A cluster's GC life time at the end of the run: the stored text, the life time TiDB's GC uses
 * (`effectiveMs`: at least 10 minutes) or why it cannot (`error`: Go's parse error), and its writes
 * (`atMs` since the start; `clientHost` the writer's pod IP).
 */
export type FinalGcLifeTime = { readonly value: string; readonly effectiveMs?: number; readonly error?: string; readonly writes: readonly { readonly atMs: number; readonly value: string; readonly user: string; readonly clientHost: string }[] };

/** A cluster's notional dataset at the end of the run. */
export type FinalDataset = { readonly checksum: string; readonly ts: string };

/** The report, key for key as documented. */
export type ScenarioReport = {
  readonly scenario: string;
  readonly passed: boolean;
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly steps: number;
  /** Handler invocations that threw; each was retried or redelivered as Lambda does, and the run went on. */
  readonly invocationErrors: number;
  /**
   * Requests over the whole run by target (lib/local/request-counts.ts; docs/SCENARIOS.md, Report);
   * with `sim.eksClusters` also `eks`, the functions' EKS DescribeCluster requests.
   */
  readonly requests: RequestCounts & { readonly eks?: number };
  readonly timeline: readonly TimelineRecord[];
  readonly actions: readonly ActionRecord[];
  readonly invariants: readonly InvariantResult[];
  readonly final: FinalState;
  /** With further EKS clusters (`sim.eksClusters`): each one's actions, objects and PD, by its name. */
  readonly eksClusters?: Readonly<Record<string, EksWorldReport>>;
};

/**
 * A further EKS cluster's world in the report, as the first's is reported in `actions`,
 * `final.objects` and `final.pd`; `pd` is that of its first TidbCluster (null when it holds none).
 */
export type EksWorldReport = { readonly actions: readonly ActionRecord[]; readonly objects: Readonly<Record<string, unknown>>; readonly pd: FinalPd | null };

/** What `ReportBuilder.finish` needs besides what it recorded. */
export type FinishInput = {
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly steps: number;
  readonly invocationErrors: number;
  /** The run's requests by target; absent, none were counted (every target 0). */
  readonly requests?: RequestCounts;
  /** EKS API requests (DescribeCluster), reported only when given (a deployment with a registry). */
  readonly eksRequests?: number;
  readonly invariants: readonly InvariantResult[];
  readonly final: FinalState;
  readonly eksClusters?: Readonly<Record<string, EksWorldReport>>;
};

/** The key of `final.objects`: `Kind/namespace/name`, or `Kind/name` for cluster-scoped kinds. */
export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === '' ? `${kind}/${name}` : `${kind}/${namespace}/${name}`;
}

/**
 * Whether `pv` belongs in `final.objects` of a cluster in `namespace`: its claimRef names a claim
 * of that namespace (Bound, or Released after its claim was deleted).
 */
export function isVolumeOfNamespace(pv: { spec?: { claimRef?: { namespace?: string } } }, namespace: string): boolean {
  return pv.spec?.claimRef?.namespace === namespace;
}

/** The report as the file or stdout gets it: two-space indented JSON and a final newline. */
export function reportToJson(report: ScenarioReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Whether a run passed: every entry that ran was ok and no invariant was violated. */
export function hasPassed(timeline: readonly TimelineRecord[], invariants: readonly InvariantResult[]): boolean {
  return timeline.every((entry) => entry.ok) && invariants.every((inv) => inv.violations.length === 0);
}

/**
 * Records a run as it happens. Guarantees: entries and actions come out in the order recorded;
 * a recorded `object`, `args` or final state is a copy, so later changes to the world do not
 * rewrite history; an entry still open at `finish` is reported failed, ending when the run did.
 */
export class ReportBuilder {
  private readonly entries: TimelineRecord[] = [];
  private open: { index: number; verb: Verb; startMs: number } | undefined;
  private readonly actions: ActionRecord[] = [];

  constructor(private readonly scenario: string) {}

  /** Timeline entry `entry` (a `TimelineEntry` fits) starts at `atMs`; the previous one must have ended. */
  startEntry(entry: { readonly index: number; readonly verb: Verb }, atMs: number): void {
    if (this.open !== undefined) throw new Error(`timeline entry ${this.open.index} has not ended`);
    this.open = { index: entry.index, verb: entry.verb, startMs: atMs };
  }

  /**
   * The open entry ends at `atMs` (for a `waitFor`: when reached, or when it timed out); an `admin`
   * entry's `answer` is kept with it (a copy).
   */
  endEntry(atMs: number, ok: boolean, error?: string, answer?: unknown): TimelineRecord {
    const open = this.open;
    if (open === undefined) throw new Error('no timeline entry has started');
    this.open = undefined;
    const entry: TimelineRecord = { ...open, ok, endMs: atMs, ...(error === undefined ? {} : { error }), ...(answer === undefined ? {} : { answer }) };
    const ordered = timelineRecord(entry);
    this.entries.push(ordered);
    return ordered;
  }

  /** How many actions are recorded so far (a `mark:` keeps it). */
  actionCount(): number {
    return this.actions.length;
  }

  /** The actions recorded from position `from` on. */
  actionsFrom(from: number): readonly ActionRecord[] {
    return this.actions.slice(from);
  }

  /** Records one side effect, in the documented key order, leaving out keys it does not have. */
  recordAction(action: ActionRecord): void {
    this.actions.push(actionRecord(action));
  }

  /** Records a Kubernetes Event as an `event` action with `{type, reason, message, object}`. */
  recordEvent(atMs: number, actor: Actor, event: { type: string; reason: string; message: string; object: unknown }): void {
    this.recordAction({ atMs, actor, verb: 'event', args: event });
  }

  /** The actions recorded so far (for invariant checks that read history). */
  recordedActions(): readonly ActionRecord[] {
    return this.actions;
  }

  /** The report. Final PD members, stores, schedulers and objects are sorted, for stable output. */
  finish(input: FinishInput): ScenarioReport {
    if (this.open !== undefined) this.endEntry(input.virtualMs, false, 'the run ended before this entry finished');
    const timeline = [...this.entries];
    const invariants = input.invariants.map((inv) => ({ name: inv.name, violations: inv.violations.map((v) => ({ atMs: v.atMs, message: v.message })) }));
    return {
      scenario: this.scenario,
      passed: hasPassed(timeline, invariants),
      virtualMs: input.virtualMs,
      wallMs: input.wallMs,
      steps: input.steps,
      invocationErrors: input.invocationErrors,
      // Every target, in the documented order.
      requests: { ...(Object.fromEntries(REQUEST_TARGETS.map((t) => [t, input.requests?.[t] ?? 0])) as RequestCounts), ...(input.eksRequests === undefined ? {} : { eks: input.eksRequests }) },
      timeline,
      actions: [...this.actions],
      invariants,
      final: finalState(input.final),
      ...(input.eksClusters === undefined ? {} : { eksClusters: Object.fromEntries(Object.entries(input.eksClusters).map(([name, w]) => [name, eksWorldReport(w)])) }),
    };
  }
}

function timelineRecord(e: TimelineRecord): TimelineRecord {
  const base = { index: e.index, verb: e.verb, ok: e.ok, startMs: e.startMs, endMs: e.endMs };
  return { ...base, ...(e.error === undefined ? {} : { error: e.error }), ...(e.answer === undefined ? {} : { answer: structuredClone(e.answer) }) };
}

function actionRecord(a: ActionRecord): ActionRecord {
  const out: Record<string, unknown> = { atMs: a.atMs, actor: a.actor, verb: a.verb };
  if (a.kind !== undefined) out['kind'] = a.kind;
  if (a.namespace !== undefined) out['namespace'] = a.namespace;
  if (a.name !== undefined) out['name'] = a.name;
  if (a.object !== undefined) out['object'] = structuredClone(a.object);
  if (a.args !== undefined) out['args'] = structuredClone(a.args);
  if (a.error !== undefined) out['error'] = a.error;
  return out as ActionRecord;
}

function eksWorldReport(w: EksWorldReport): EksWorldReport {
  return { actions: w.actions.map(actionRecord), objects: sortedObjects(w.objects), pd: w.pd === null ? null : finalPd(w.pd) };
}

function sortedObjects(from: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const objects: Record<string, unknown> = {};
  for (const key of Object.keys(from).sort()) objects[key] = structuredClone(from[key]);
  return objects;
}

function finalPd(pd: FinalPd): FinalPd {
  return {
    members: [...pd.members].sort((a, b) => compareText(a.name, b.name)).map((m) => ({ name: m.name, id: m.id, health: m.health })),
    leader: pd.leader,
    stores: [...pd.stores].sort((a, b) => compareIds(a.id, b.id)).map((s) => ({ id: s.id, address: s.address, state: s.state, leaderCount: s.leaderCount, labels: { ...s.labels } })),
    schedulers: [...pd.schedulers].sort(compareText),
  };
}

function finalState(f: FinalState): FinalState {
  return {
    tidbcluster: f.tidbcluster === null ? null : structuredClone(f.tidbcluster),
    ...(f.tidbclusters === undefined ? {} : { tidbclusters: structuredClone(f.tidbclusters) }),
    objects: sortedObjects(f.objects),
    pd: finalPd(f.pd),
    ...(f.buckets === undefined ? {} : { buckets: Object.fromEntries(Object.keys(f.buckets).sort().map((k) => [k, [...(f.buckets?.[k] ?? [])].sort()])) }),
    ...(f.dataset === undefined ? {} : { dataset: { ...f.dataset } }),
    ...(f.datasets === undefined ? {} : { datasets: structuredClone(f.datasets) }),
    ...(f.gcLifeTime === undefined ? {} : { gcLifeTime: structuredClone(f.gcLifeTime) }),
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Store IDs are decimal strings that may exceed 2^53: shorter is smaller, then by text.
function compareIds(a: string, b: string): number {
  return a.length - b.length || compareText(a, b);
}
