/**
 * The next step of a cluster as text: the actions in order, the status fields it would change
 * (`path: old → new`), the outcome and when it would wake — or "nothing to do" when it would
 * write nothing. Pure: time is the caller's.
 */
import type { Action } from '../model/action.js';
import type { Plan } from '../model/plan.js';
import { humanDuration } from '../platform/duration.js';
import { cutText } from '../platform/text.js';
import { describeOutcome } from '../reconcile/engine/outcome.js';
import { describeAction } from '../step/describe.js';
import type { NextStep } from '../wiring/next-step.js';
import { VERDICT_COMPONENT, VERDICT_MEMBER } from '../model/tidb-operator.js';

// PD's error can carry a whole Kubernetes Status document; the heading shows its start.
const MAX_PD_ERROR_BYTES = 160;

/** One status field the step would change; `before`/`after` undefined when absent. */
export type StatusChange = { readonly path: string; readonly before: unknown; readonly after: unknown };

/** The leaf fields that differ between two JSON values, in a stable order (arrays compared whole per index). */
export function statusChanges(before: unknown, after: unknown, path = 'status'): StatusChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => statusChanges(before[k], after[k], `${path}.${k}`));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((b, i) => statusChanges(b, after[i], `${path}[${i}]`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path, before, after }];
}

/**
 * The actions of a plan a reader should see: all but the reconciler's bookkeeping that `plan`
 * cannot judge, because it does not read the persisted state — recording each pod's store id (the
 * id is on the pod's label already; a first step records it, later steps find it recorded), and
 * keeping the TiDB Operator verdict with its re-check time (lib/model/tidb-operator.ts; what the
 * verdict means for the cluster shows as its condition and Event).
 */
export function visibleActions(plan: Plan): readonly Action[] {
  return plan.actions.filter((a) => a.kind !== 'state.putStoreId' && !isOperatorVerdict(a));
}

function isOperatorVerdict(a: Action): boolean {
  return (a.kind === 'state.putDeadline' || a.kind === 'state.deleteDeadline') && a.deadline.component === VERDICT_COMPONENT && a.deadline.member === VERDICT_MEMBER;
}

/** Whether the step would write nothing: no visible action and no status change. */
export function isNothingToDo(step: Extract<NextStep, { ok: true }>): boolean {
  return visibleActions(step.plan).length === 0 && step.plan.status === undefined;
}

/** The next step of `ref` as lines of text; times as UTC with "in 5s" hints from `nowMs`. */
export function formatNextStep(ref: string, step: NextStep, nowMs: number): string {
  if (!step.ok) return `${ref}: cannot plan: ${step.error}`;
  const { plan, snapshot } = step;
  if (!snapshot.cluster) return `${ref}: TidbCluster not found`;
  const outcome = describeOutcome(plan.outcome);
  const wake = step.wakeAtMs === undefined ? 'not before the next event or sweep' : `${utc(step.wakeAtMs)} (in ${humanDuration(Math.max(0, step.wakeAtMs - nowMs))})`;
  const held = plan.ruleResults.filter((r) => r.outcome.kind !== 'complete').map((r) => `${r.rule}=${r.outcome.kind}`);
  const { view, error } = snapshot.components.pd;
  const pd = view ? `PD: ${view.members.length} member(s), leader ${view.leader?.name ?? 'none'}` : `PD: ${cutText(error ?? 'not read', MAX_PD_ERROR_BYTES)}`;
  const lines = [`${ref}   (${pd})`];
  if (isNothingToDo(step)) {
    lines.push('  nothing to do', `  outcome: ${outcome}`, `  would wake: ${wake}`);
    return [...lines, ...resumedLines(step)].join('\n');
  }
  const actions = visibleActions(plan);
  lines.push(actions.length === 0 ? '  actions: none' : '  actions, in order:');
  actions.forEach((a, i) => lines.push(`    ${i + 1}. ${describeAction(a)}`));
  const changes = plan.status === undefined ? [] : statusChanges(snapshot.cluster.status ?? {}, plan.status);
  lines.push(changes.length === 0 ? '  status: unchanged' : '  status it would write (changed fields):');
  for (const c of changes) lines.push(`    ${c.path}: ${show(c.before)} → ${show(c.after)}`);
  lines.push(`  outcome: ${outcome}${held.length > 0 ? `   (${held.join(' ')})` : ''}`, `  would wake: ${wake}`);
  return [...lines, ...resumedLines(step)].join('\n');
}

/** For a paused cluster: what its first step after `resume` would do (or that it would do nothing). */
function resumedLines(step: Extract<NextStep, { ok: true }>): string[] {
  if (!step.resumed) return [];
  const actions = visibleActions(step.resumed);
  const head = '  paused: steps write only status; after resume the next step would';
  if (actions.length === 0) return [`${head} do nothing (${describeOutcome(step.resumed.outcome)})`];
  return [`${head}:`, ...actions.map((a, i) => `    ${i + 1}. ${describeAction(a)}`), `    then ${describeOutcome(step.resumed.outcome)}`];
}

function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

function show(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
