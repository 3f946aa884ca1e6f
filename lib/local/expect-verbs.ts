/**
 * The timeline's `mark:` and `expect:` verbs: a mark records, at one moment, every pod of the first
 * cluster's namespace (its uid and each container's restart count) and how many actions the report
 * holds; a later `expect:` checks, at once and without waiting, that what it names has held since —
 * the pods are the same pods with no container restarted (`podsKept`), and the reconciler's
 * Kubernetes writes were only of the kinds listed (`reconcilerWrites`). A migration story uses them to
 * show a take-over restarts nothing and a refusal writes nothing.
 */
import type { ObjectStore } from '../sim/store.js';
import type { KubeObject } from '../sim/object.js';
import type { ActionRecord } from './scenario/report.js';
import type { Expectation } from './scenario/types.js';
import type { VerbResult } from './timeline-verbs.js';

/** One pod as a mark saw it. */
type MarkedPod = { readonly uid: string; readonly restarts: Readonly<Record<string, number>> };

/** What a `mark:` recorded. */
export type Mark = { readonly pods: ReadonlyMap<string, MarkedPod>; readonly actionCount: number };

/** Records the pods of `namespace` and the report's action count now. */
export function takeMark(store: ObjectStore, namespace: string, actionCount: number): Mark {
  const pods = new Map<string, MarkedPod>();
  for (const pod of store.list('Pod', namespace)) pods.set(pod.metadata.name ?? '', { uid: pod.metadata.uid ?? '', restarts: restartsOf(pod) });
  return { pods, actionCount };
}

/** Checks `expect` against `mark`, the pods of `namespace` now and the actions recorded since the mark. */
export function checkExpectation(expect: Expectation, mark: Mark, store: ObjectStore, namespace: string, actionsSince: readonly ActionRecord[]): VerbResult {
  const problems = [
    ...(expect.podsKept ? podsNotKept(mark, store, namespace) : []),
    ...(expect.reconcilerWrites ? unexpectedWrites(expect.reconcilerWrites, actionsSince) : []),
  ];
  if (problems.length === 0) return { ok: true };
  const shown = problems.slice(0, 5).join('; ');
  return { ok: false, error: `since mark ${expect.since}: ${shown}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}` };
}

function podsNotKept(mark: Mark, store: ObjectStore, namespace: string): string[] {
  const problems: string[] = [];
  for (const [name, before] of mark.pods) {
    const pod = store.get('Pod', namespace, name);
    if (!pod) {
      problems.push(`pod ${namespace}/${name} is gone`);
      continue;
    }
    if (pod.metadata.uid !== before.uid) {
      problems.push(`pod ${namespace}/${name} was replaced (uid ${before.uid} → ${pod.metadata.uid ?? ''})`);
      continue;
    }
    const now = restartsOf(pod);
    for (const [container, count] of Object.entries(now)) {
      const was = before.restarts[container] ?? 0;
      if (count !== was) problems.push(`pod ${namespace}/${name} container ${container} restarted (restartCount ${was} → ${count})`);
    }
  }
  return problems;
}

/** The reconciler's writes whose kind (`Event` for events), or `Kind/status` for a status write, is not in `allowed`; any component API call. */
function unexpectedWrites(allowed: readonly string[], actions: readonly ActionRecord[]): string[] {
  const problems: string[] = [];
  for (const a of actions) {
    if (a.actor !== 'reconciler' || a.error !== undefined) continue;
    const kind = a.verb === 'event' ? 'Event' : a.kind;
    // A call to a component's API (PD, TiDB, TiCDC, Pump) changes the cluster too: never allowed.
    if (kind === undefined) {
      problems.push(`the reconciler called ${a.verb} at ${a.atMs} ms`);
      continue;
    }
    const ok = allowed.includes(kind) || (a.verb === 'updateStatus' && allowed.includes(`${kind}/status`));
    if (!ok) problems.push(`the reconciler wrote ${a.verb} ${kind}${a.name === undefined ? '' : ` ${a.namespace ?? ''}/${a.name}`} at ${a.atMs} ms`);
  }
  return problems;
}

function restartsOf(pod: KubeObject): Record<string, number> {
  const statuses = ((pod.status?.containerStatuses ?? []) as { name?: string; restartCount?: number }[]).concat((pod.status?.initContainerStatuses ?? []) as { name?: string; restartCount?: number }[]);
  return Object.fromEntries(statuses.map((s) => [s.name ?? '', s.restartCount ?? 0]));
}
