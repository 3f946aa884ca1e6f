/**
 * Progress lines of a `simulate` run, for a person watching stderr: one line when a timeline entry
 * starts and one when it ends, each stamped with the virtual time, then one summary line:
 * ```
 * [     0s] #0 waitFor ready …
 * [  1m05s] #0 waitFor ready … reached
 * [  1m05s] #1 patch {"spec":{"pd":{"replicas":5}}} …
 * ```
 * With `--quiet` nothing is written. The JSON report never goes through here.
 */
import type { InvocationError } from '../sim-stack.js';
import type { ScenarioReport } from './report.js';
import type { Fault, HealTarget, TimelineEntry } from './types.js';

/** Where lines go (stderr unless a test says otherwise); each call is one line without its newline. */
export type LineSink = (line: string) => void;

/** How an entry ended, as the report records it. */
export type EntryEnd = { readonly ok: boolean; readonly endMs: number; readonly error?: string };

/** The progress reporter the runner calls. */
export type Progress = {
  entryStarted(entry: TimelineEntry, atMs: number): void;
  entryFinished(entry: TimelineEntry, end: EntryEnd): void;
  /** A handler invocation threw at `atMs`; the run goes on. */
  invocationFailed(atMs: number, failure: InvocationError): void;
  /** An `admin` entry's answer, as text (status and history are shown; the report has every answer). */
  adminAnswered?(atMs: number, action: string, text: string): void;
  runFinished(report: ScenarioReport): void;
};

const MAX_ARGUMENT_CHARS = 60;

/** A reporter writing to `write` (default: stderr); silent when `quiet`. */
export function createProgress(options: { readonly quiet: boolean; readonly write?: LineSink }): Progress {
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (options.quiet) return { entryStarted: () => undefined, entryFinished: () => undefined, invocationFailed: () => undefined, runFinished: () => undefined };
  return {
    entryStarted: (entry, atMs) => write(`[${formatClock(atMs)}] #${entry.index} ${describeEntry(entry)} …`),
    entryFinished: (entry, end) => write(`[${formatClock(end.endMs)}] #${entry.index} ${describeEntry(entry)} … ${describeEnd(entry, end)}`),
    invocationFailed: (atMs, f) => write(`[${formatClock(atMs)}] ${describeInvocationError(f)}`),
    adminAnswered: (atMs, action, text) => {
      if (action !== 'status' && action !== 'history') return;
      write(`[${formatClock(atMs)}] admin ${action} answered:`);
      for (const line of text.split('\n')) write(line === '' ? '' : `          ${line}`);
    },
    runFinished: (report) => write(`[${formatClock(report.virtualMs)}] ${describeRun(report)}`),
  };
}

/** Virtual time for the bracket, right-aligned to 7 characters: `     0s`, `  1m05s`, `1h02m05s`. */
export function formatClock(ms: number): string {
  const totalS = Math.floor(ms / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  const two = (n: number): string => String(n).padStart(2, '0');
  const text = h > 0 ? `${h}h${two(m)}m${two(s)}s` : m > 0 ? `${m}m${two(s)}s` : `${s}s`;
  return text.padStart(7);
}

/** A duration as a scenario file would write it: `1h30m`, `1m30s`, `250ms`, `0s`. */
export function formatSpan(ms: number): string {
  const parts: [number, string][] = [
    [Math.floor(ms / 3_600_000), 'h'],
    [Math.floor((ms % 3_600_000) / 60_000), 'm'],
    [Math.floor((ms % 60_000) / 1000), 's'],
    [Math.round(ms % 1000), 'ms'],
  ];
  const text = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n}${unit}`).join('');
  return text === '' ? '0s' : text;
}

/**
 * One timeline entry in a few words: `waitFor ready`, `fault pod-down basic-pd-1`, `advance 10m`;
 * one that names its EKS cluster ends `in eks-b`.
 */
export function describeEntry(entry: TimelineEntry): string {
  return entry.eks === undefined ? describeVerb(entry) : `${describeVerb(entry)} in ${entry.eks}`;
}

function describeVerb(entry: TimelineEntry): string {
  switch (entry.verb) {
    case 'waitFor': {
      const until = entry.until;
      if (until.kind === 'ready') return 'waitFor ready';
      if (until.kind === 'phase') return `waitFor ${until.component} phase ${until.phase}`;
      const on = until.object === undefined ? '' : `${until.object.kind}/${until.object.name} `;
      if ('greaterThan' in until) return `waitFor ${on}${until.path.source} > ${until.greaterThan}`;
      if ('notEquals' in until) return `waitFor ${on}${until.path.source} != ${shorten(JSON.stringify(until.notEquals))}`;
      return `waitFor ${on}${until.path.source} == ${shorten(JSON.stringify(until.equals))}`;
    }
    case 'patch':
      return `patch ${shorten(JSON.stringify(entry.patch))}`;
    case 'annotate':
      return `annotate ${shorten(Object.entries(entry.annotations).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', '))}`;
    case 'fault':
      return `fault ${describeFault(entry.fault)}`;
    case 'heal':
      return `heal ${describeHeal(entry.heal)}`;
    case 'world':
      if (entry.change.kind === 'pdConfig') return `world pdConfig ${shorten(JSON.stringify(entry.change.config))}`;
      if (entry.change.kind === 'tiflashReplicas') return `world tiflashReplicas ${entry.change.count}`;
      return `world ${entry.change.kind} ${entry.change.pod}`;
    case 'admin': {
      const what = entry.admin.action === 'force-upgrade' ? `admin force-upgrade ${entry.admin.component}` : `admin ${entry.admin.action}`;
      const as = entry.admin.as === undefined ? '' : ` as ${entry.admin.as.slice(entry.admin.as.indexOf(':', 'arn:aws:iam::'.length) + 1)}`;
      return `${what}${as}${entry.admin.expect === 'forbidden' ? ' (expect forbidden)' : ''}`;
    }
    case 'advance':
      return `advance ${formatSpan(entry.durationMs)}`;
    case 'delete':
      return 'delete TidbCluster';
    case 'apply':
      return `apply ${entry.manifest.kind}/${entry.manifest.metadata.name}`;
    case 'deleteObject':
      return `deleteObject ${entry.object.kind}/${entry.object.name}`;
    case 'mark':
      return `mark ${entry.name}`;
    case 'expect':
      return `expect since ${entry.expect.since}${entry.expect.podsKept ? ' pods kept' : ''}${entry.expect.reconcilerWrites ? ` reconciler writes only [${entry.expect.reconcilerWrites.join(', ')}]` : ''}`;
    default: {
      const unreachable: never = entry;
      return unreachable;
    }
  }
}

function describeHeal(heal: HealTarget): string {
  switch (heal.kind) {
    case 'pod':
      return `pod ${heal.pod}`;
    case 'node':
      return `node ${heal.node}`;
    case 'image':
      return `image ${heal.image}`;
    default: {
      const unreachable: never = heal;
      return unreachable;
    }
  }
}

function describeFault(fault: Fault): string {
  switch (fault.kind) {
    case 'pod-down':
    case 'pod-deleted':
    case 'pd-join-interrupted':
      return `${fault.kind} ${fault.pod}`;
    case 'node-down':
      return `${fault.kind} ${fault.node}`;
    case 'image-broken':
      return `${fault.kind} ${fault.image}`;
    case 'pd-api-down':
    case 'pd-schedulers-lost':
    case 's3-down':
    case 'exporter-down':
      return `${fault.kind} for ${formatSpan(fault.forMs)}`;
    case 'job-pod-killed':
      return `${fault.kind} ${fault.job}`;
    case 'eks-api-down':
      return `${fault.kind} ${fault.eks} for ${formatSpan(fault.forMs)}`;
    case 'kube-api-errors':
      return `${fault.kind} rate ${fault.rate} for ${formatSpan(fault.forMs)}`;
    case 'step-crash':
      return `${fault.kind} afterActions ${fault.afterActions} times ${fault.times}`;
    case 'duplicate-delivery':
      return `${fault.kind} factor ${fault.factor} for ${formatSpan(fault.forMs)}`;
    default: {
      const unreachable: never = fault;
      return unreachable;
    }
  }
}

/** A failed invocation and what happens next: `sweep invocation failed: … (retried in 1m)`. */
export function describeInvocationError(f: InvocationError): string {
  const next = f.fn === 'sweep' ? (f.retryInMs === undefined ? 'no retry left; the next interval sweeps again' : `retried in ${formatSpan(f.retryInMs)}`) : f.fn === 'reconcile' ? 'its batch comes back after the visibility timeout' : 'the admin entry fails';
  return `${f.fn} invocation failed: ${shorten(f.error)} (${next})`;
}

function describeEnd(entry: TimelineEntry, end: EntryEnd): string {
  if (end.ok) return entry.verb === 'waitFor' ? 'reached' : 'done';
  if (end.error !== undefined) return `FAILED: ${end.error}`;
  return entry.verb === 'waitFor' ? `FAILED: timed out after ${formatSpan(entry.timeoutMs)}` : 'FAILED';
}

function describeRun(report: ScenarioReport): string {
  const violations = report.invariants.reduce((n, inv) => n + inv.violations.length, 0);
  const counts = `${report.timeline.length} entries, ${report.steps} steps, ${violations} invariant violations`;
  if (report.passed) return `${report.scenario}: passed (${counts})`;
  const failed = report.timeline.find((e) => !e.ok);
  const broken = report.invariants.filter((inv) => inv.violations.length > 0).map((inv) => inv.name);
  const why = [
    ...(failed === undefined ? [] : [`timeline[${failed.index}] ${failed.verb} failed${failed.error === undefined ? '' : `: ${failed.error}`}`]),
    ...(broken.length === 0 ? [] : [`invariants broken: ${broken.join(', ')}`]),
  ];
  return `${report.scenario}: FAILED (${counts}; ${why.join('; ')})`;
}

function shorten(text: string): string {
  return text.length <= MAX_ARGUMENT_CHARS ? text : `${text.slice(0, MAX_ARGUMENT_CHARS - 1)}…`;
}
