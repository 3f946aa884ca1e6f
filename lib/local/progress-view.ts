/**
 * The live view `npm start` shows: for every TidbCluster, per component (PD microservices by their
 * service name) the desired and ready
 * replicas and the phase, and its Ready condition; then how many steps ran and the last thing the
 * reconciler did. Redrawn in place on a terminal; printed only when it changes otherwise (CI logs,
 * pipes).
 */
import type { LogFields, Logger } from '../platform/logger.js';

/** What the view shows of one TidbCluster. */
export type ClusterView = {
  readonly key: string;
  readonly exists: boolean;
  readonly ready: { status: string; reason?: string; message?: string } | undefined;
  readonly components: readonly { name: string; desired: number; ready: number; phase: string }[];
};

const COMPONENTS = ['pd', 'tikv', 'tiflash', 'tidb', 'ticdc', 'pump', 'tiproxy'] as const;

/** The view of a TidbCluster object (undefined when it does not exist). */
export function clusterViewOf(key: string, tc: Record<string, any> | undefined): ClusterView {
  if (!tc) return { key, exists: false, ready: undefined, components: [] };
  const components: { name: string; desired: number; ready: number; phase: string }[] = COMPONENTS.filter((c) => tc.spec?.[c]).map((c) => ({
    name: c,
    desired: Number(tc.spec[c].replicas ?? 0),
    ready: Number(tc.status?.[c]?.statefulSet?.readyReplicas ?? 0),
    phase: String(tc.status?.[c]?.phase ?? '-'),
  }));
  // PD microservices (spec.pdms, status.pdms.<name>), after PD.
  const pdms = ((tc.spec?.pdms ?? []) as { name?: string; replicas?: number }[]).map((s) => ({
    name: String(s.name ?? ''),
    desired: Number(s.replicas ?? 0),
    ready: Number(tc.status?.pdms?.[s.name ?? '']?.statefulSet?.readyReplicas ?? 0),
    phase: String(tc.status?.pdms?.[s.name ?? '']?.phase ?? '-'),
  }));
  if (pdms.length > 0) components.splice(tc.spec?.pd ? 1 : 0, 0, ...pdms);
  const ready = (tc.status?.conditions ?? []).find((c: { type?: string }) => c.type === 'Ready');
  return { key, exists: true, ready, components };
}

/** Whether the view shows the Ready condition True. */
export function isReadyView(view: ClusterView): boolean {
  return view.ready?.status === 'True';
}

/** Whether every view shows Ready (and there is at least one): what `start --once` waits for. */
export function isEveryViewReady(views: readonly ClusterView[]): boolean {
  return views.length > 0 && views.every(isReadyView);
}

/** The views as lines of text: a header, each cluster's table and Ready line, the last action. */
export function renderViews(views: readonly ClusterView[], activity: Activity, elapsedMs: number): string[] {
  const count = views.length === 1 ? '1 TidbCluster' : `${views.length} TidbClusters`;
  const lines = [`${(elapsedMs / 1000).toFixed(0)}s   ${count}   steps: ${activity.steps}`];
  if (views.length === 0) lines.push('  (no TidbCluster yet)');
  for (const view of views) lines.push(...renderCluster(view));
  lines.push(`  last action: ${activity.lastAction ?? '-'}`);
  return lines;
}

function renderCluster(view: ClusterView): string[] {
  const lines = [`  ${view.key}`];
  if (!view.exists) return [...lines, '    (the TidbCluster does not exist)'];
  lines.push(`    ${'component'.padEnd(10)}${'desired'.padStart(8)}${'ready'.padStart(8)}  phase`);
  for (const c of view.components) lines.push(`    ${c.name.padEnd(10)}${String(c.desired).padStart(8)}${String(c.ready).padStart(8)}  ${c.phase}`);
  const r = view.ready;
  lines.push(`    Ready: ${r ? `${r.status}${r.reason ? ` (${r.reason}${r.message ? `: ${r.message}` : ''})` : ''}` : 'unknown'}`);
  return lines;
}

/** Draws views: in place on a terminal, on change elsewhere. */
export class ViewPrinter {
  private drawn = 0;
  private last = '';

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  /** Shows `lines`. */
  show(lines: readonly string[]): void {
    const text = lines.join('\n');
    if (this.out.isTTY) {
      if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A\x1b[J`);
      this.out.write(text + '\n');
      this.drawn = lines.length;
      return;
    }
    // Not a terminal: the elapsed time alone is no reason to print again.
    const stable = lines.slice(1).join('\n') + lines[0]?.replace(/^\d+s\s+/, '');
    if (stable === this.last) return;
    this.last = stable;
    this.out.write(text + '\n');
  }
}

/**
 * A logger that passes everything on and remembers, from each step's structured line, how many
 * steps ran and what the last acting step did.
 */
export class Activity implements Logger {
  steps = 0;
  lastAction: string | undefined;

  constructor(private readonly inner: Logger) {}

  debug(message: string, fields?: LogFields): void {
    this.inner.debug(message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.note(message, fields);
    this.inner.info(message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.note(message, fields);
    this.inner.warn(message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.inner.error(message, fields);
  }

  private note(message: string, fields: LogFields | undefined): void {
    if (message !== 'reconcile step' || fields?.disposition !== 'stepped') return;
    this.steps++;
    const actions = (fields.actions ?? []) as { action?: string; result?: string }[];
    const acted = actions.filter((a) => a.action && !a.action.startsWith('updateStatus'));
    if (acted.length > 0) {
      const first = acted[0];
      this.lastAction = `${first?.action} (${first?.result})${acted.length > 1 ? ` and ${acted.length - 1} more` : ''}`;
    } else if (fields.outcome === 'complete') this.lastAction = 'in sync: nothing to do';
    else if (typeof fields.detail === 'string') this.lastAction = `${fields.outcome === 'fail' ? 'backing off' : 'waiting'}: ${fields.detail}`;
  }
}
