/**
 * The admin function's answers as text an operator reads: `status` as the cluster's components,
 * conditions, lease, deadlines and next wake-up; `history` as a table (time, trigger, rules,
 * actions, outcome); the other actions as what changed and the step that ran. Pure: times are
 * formatted by the caller's `formatTime` (wall-clock UTC for a deployed stack, virtual time in
 * `simulate`).
 */
import { humanDuration } from '../platform/duration.js';

/** How the formatter shows an epoch-millisecond time; `nowMs` gives "in 4m30s" hints. */
export type TimeFormat = { readonly formatTime: (ms: number) => string; readonly nowMs: number };

/**
 * How tables are laid out: the default fits `width` columns (a terminal's width; cells cut with `…`,
 * one line per step); `wide` (`-o wide`) shows every column and every action in full, as kubectl's
 * `-o wide` shows more, never less.
 */
export type TableLayout = { readonly wide: boolean; readonly width: number };

/** The layout when the caller gives none: 120 columns, not wide. */
export const DEFAULT_LAYOUT: TableLayout = { wide: false, width: 120 };

/** Wall-clock times, as `2026-11-24 03:40:12Z`. */
export function utcTimeFormat(nowMs: number): TimeFormat {
  return { nowMs, formatTime: (ms) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z` };
}

type Answer = Record<string, any>;

/** The answer of any action as text (an `ok: false` answer as its error and field). */
export function formatAdminAnswer(answer: unknown, time: TimeFormat, layout: TableLayout = DEFAULT_LAYOUT): string {
  const a = (answer ?? {}) as Answer;
  if (a['ok'] !== true) return `admin: ${String(a['error'] ?? JSON.stringify(answer))}${a['field'] ? ` (field: ${String(a['field'])})` : ''}`;
  switch (a['action']) {
    case 'status':
      return formatStatus(a, time);
    case 'history':
      return layout.wide ? formatHistoryWide(a, time) : formatHistory(a, time, layout.width);
    default:
      return formatChange(a, time);
  }
}

/** `status`: components, conditions, lease, wake-up, failures, last step, deadlines. */
export function formatStatus(a: Answer, time: TimeFormat): string {
  const status = (a['status'] ?? {}) as Answer;
  const state = a['state'] as Answer | null | undefined;
  const lines = [`TidbCluster ${a['cluster']?.namespace}/${a['cluster']?.name}   (key ${String(a['key'])})`, '', 'Components:'];
  const components = COMPONENTS.filter((c) => status[c] !== undefined && status[c] !== null);
  if (components.length === 0) lines.push('  (no component status yet)');
  else lines.push(...table(['COMPONENT', 'PHASE', 'READY', 'SYNCED', 'LEADER', 'MEMBERS'], components.map((c) => componentRow(c, status[c] as Answer))).map(indent));
  lines.push('', 'Conditions:');
  const conditions = (status['conditions'] ?? []) as Answer[];
  if (conditions.length === 0) lines.push('  (none)');
  else lines.push(...table(['TYPE', 'STATUS', 'REASON', 'SINCE', 'MESSAGE'], conditions.map((c) => [str(c['type']), str(c['status']), str(c['reason']), str(c['lastTransitionTime']), str(c['message'])])).map(indent));
  lines.push('');
  if (!state) {
    lines.push('Reconciler state: none yet (no step has claimed this cluster)');
  } else {
    const lease = state['lease'] as { owner: string; untilMs: number } | null;
    lines.push(`Lease:        ${lease && lease.untilMs > time.nowMs ? `held by ${lease.owner} until ${at(lease.untilMs, time)}` : 'free'}`);
    lines.push(`Next wake-up: ${typeof state['nextWakeAtMs'] === 'number' ? at(state['nextWakeAtMs'], time) : 'none armed (the next event or sweep steps it)'}`);
    lines.push(`Failures:     ${str(state['failures'])}${state['dirty'] ? '   (dirty: a trigger is waiting for the lease holder)' : ''}`);
    const last = state['lastStep'] as Answer | null;
    lines.push(`Last step:    ${last ? `${time.formatTime(last['atMs'])} ${str(last['outcome'])}${last['message'] ? `: ${str(last['message'])}` : ''}` : 'none'}`);
    lines.push(`Fence:        ${str(state['fence'])}`);
  }
  const deadlines = (a['deadlines'] ?? []) as Answer[];
  lines.push('', 'Deadlines:');
  if (deadlines.length === 0) lines.push('  (none)');
  else lines.push(...table(['COMPONENT', 'MEMBER', 'KIND', 'SINCE', 'DEADLINE'], deadlines.map((d) => [str(d['component']), str(d['member']), str(d['kind']), time.formatTime(d['sinceMs']), at(d['deadlineAtMs'], time)])).map(indent));
  return lines.join('\n');
}

/**
 * `history` to fit `width` columns: one line per step, newest first — time, trigger, the number of
 * actions and the first, the outcome — each cut with `…` so that no line is wider than `width`
 * (the time is never cut). `-o wide` (`formatHistoryWide`) shows everything.
 */
export function formatHistory(a: Answer, time: TimeFormat, width: number): string {
  const records = (a['history'] ?? []) as Answer[];
  const title = historyTitle(a, records.length);
  if (records.length === 0) return `${title}\n  (no steps recorded)`;
  const rows = records.map((r) => {
    const actions = (r['actions'] ?? []) as string[];
    const by = r['requestedBy'] as Answer | undefined;
    const trigger = `${str(r['trigger'])}${by ? ` by ${withoutAccount(str(by['arn']))}` : ''}`;
    const first = actions[0] === undefined ? '-' : `${actions[0]}${actions.length > 1 ? ` (+${actions.length - 1})` : ''}`;
    return [time.formatTime(r['atMs']), trigger, String(actions.length), first, outcomeOf(r)];
  });
  return [title, ...fitTable(['TIME', 'TRIGGER', 'N', 'ACTIONS', 'OUTCOME'], rows, width, [1, 3, 4])].join('\n');
}

/**
 * `history -o wide`: one row per step, newest first, nothing cut. RULES lists the rules that did not
 * complete (all rules ran; the ones that completed are the quiet majority); each action gets its own
 * line; an admin step's caller is under its trigger.
 */
export function formatHistoryWide(a: Answer, time: TimeFormat): string {
  const records = (a['history'] ?? []) as Answer[];
  const title = historyTitle(a, records.length);
  if (records.length === 0) return `${title}\n  (no steps recorded)`;
  const rows: string[][] = [];
  for (const r of records) {
    const rules = ((r['detail']?.rules ?? []) as string[]).filter((x) => !x.endsWith('=complete'));
    const actions = (r['actions'] ?? []) as string[];
    rows.push([time.formatTime(r['atMs']), str(r['trigger']), rules.join(' ') || '-', actions[0] ?? '-', outcomeOf(r), typeof r['durationMs'] === 'number' ? `${r['durationMs']}ms` : '-']);
    const by = r['requestedBy'] as Answer | undefined;
    if (by) rows.push(['', `by ${str(by['arn'])}`, '', '', '', '']);
    for (const more of actions.slice(1)) rows.push(['', '', '', more, '', '']);
  }
  return [title, ...table(['TIME', 'TRIGGER', 'RULES', 'ACTIONS', 'OUTCOME', 'DURATION'], rows)].join('\n');
}

function historyTitle(a: Answer, count: number): string {
  return `Step history of ${a['cluster']?.namespace}/${a['cluster']?.name} (newest first, ${count} record${count === 1 ? '' : 's'})`;
}

// The detail is the outcome described ("retry in 5s: waiting for …"), so it replaces the kind.
function outcomeOf(r: Answer): string {
  return str(r['detail']?.outcome) || str(r['outcome']);
}

/** force-upgrade, pause, resume, reconcile: what changed, the message, and the step that ran. */
function formatChange(a: Answer, time: TimeFormat): string {
  const lines = [`${str(a['action'])} ${a['cluster']?.namespace}/${a['cluster']?.name}: ok${a['changed'] === undefined ? '' : a['changed'] ? ' (changed)' : ' (already so; nothing written)'}`];
  const by = a['requestedBy'] as Answer | undefined;
  if (by) lines.push(`  requested by ${str(by['arn'])} (Kubernetes user "${str(by['username'])}")`);
  if (a['message']) lines.push(`  ${str(a['message'])}`);
  const step = a['step'] as Answer | undefined;
  if (step) {
    lines.push(`  step ${str(step['reconcileId'])}: ${str(step['disposition'])}${step['outcome'] ? `, ${str(step['outcome'])}` : ''}${step['detail'] ? ` — ${str(step['detail'])}` : ''}`);
    for (const action of (step['actions'] ?? []) as string[]) lines.push(`    ${action}`);
    if (typeof step['nextWakeAtMs'] === 'number') lines.push(`  next wake-up: ${at(step['nextWakeAtMs'], time)}`);
    for (const error of (step['errors'] ?? []) as string[]) lines.push(`  error: ${error}`);
  }
  return lines.join('\n');
}

/** `arn:aws:sts::123456789012:assumed-role/dev/alice` → `assumed-role/dev/alice`. */
function withoutAccount(arn: string): string {
  return arn.replace(/^arn:[a-z-]+:(?:sts|iam)::\d{12}:/, '');
}

function shortened(text: string, max: number): string {
  if (max <= 0) return '';
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const COMPONENTS = ['pd', 'tikv', 'tiflash', 'tidb', 'ticdc', 'pump'] as const;

function componentRow(name: string, c: Answer): string[] {
  const sts = (c['statefulSet'] ?? {}) as Answer;
  const ready = sts['replicas'] === undefined ? '-' : `${str(sts['readyReplicas'] ?? 0)}/${str(sts['replicas'])}`;
  const members = memberNames(c);
  return [name, str(c['phase']) || '-', ready, c['synced'] === undefined ? '-' : String(c['synced']), str(c['leader']?.name) || '-', members || '-'];
}

// PD lists members by name with health; stores are keyed by id with a pod name and state.
function memberNames(c: Answer): string {
  const members = (c['members'] ?? c['stores'] ?? {}) as Record<string, Answer>;
  return Object.entries(members)
    .map(([key, m]) => `${str(m['name'] ?? m['podName'] ?? key)}${m['health'] === false ? ' (unhealthy)' : m['state'] && m['state'] !== 'Up' ? ` (${str(m['state'])})` : ''}`)
    .join(', ');
}

function at(ms: number, time: TimeFormat): string {
  const delta = ms - time.nowMs;
  return `${time.formatTime(ms)} (${delta >= 0 ? `in ${humanDuration(delta)}` : `${humanDuration(-delta)} ago`})`;
}

function str(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

function indent(line: string): string {
  return `  ${line}`;
}

/** Left-aligned columns, two spaces apart; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/**
 * `table`, cut to `width`: while the widest line is too wide, the widest of the `flexible` columns
 * loses characters (its cells end in `…`), down to its header's width. Columns not listed keep
 * their width. A width too small for the fixed columns gives the narrowest table there is.
 */
export function fitTable(header: readonly string[], rows: readonly (readonly string[])[], width: number, flexible: readonly number[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const total = (): number => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  while (total() > width) {
    const widest = flexible.filter((i) => (widths[i] ?? 0) > (header[i] ?? '').length).sort((x, y) => (widths[y] ?? 0) - (widths[x] ?? 0))[0];
    if (widest === undefined) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return table(header, rows.map((r) => r.map((cell, i) => shortened(cell, widths[i] ?? cell.length))));
}
