/**
 * How a TidbDashboard or TidbNGMonitoring step turns its rules into a plan: each rule adds the writes
 * of its objects (create, or update under the observed resourceVersion — the TidbCluster's apply
 * protocol, `member/apply.ts`), Events and its outcome; the plan ends with one status write through
 * the status subresource when the status changed (certificate copies go first, as v1 syncs them before the objects) (v1 writes it only then, `UpdateStatus`).
 */

import type { Action, CreateAction, EventAction, PatchAction, SecretCopyAction, UpdateAction } from '../../model/action.js';
import type { KubeObject } from '../../model/kube.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan, RuleResult } from '../../model/plan.js';
import { jsonEqual } from '../engine/equal.js';
import { combineOutcomes } from '../engine/outcome.js';
import { eventOn } from '../engine/draft.js';
import type { CompanionKind } from './meta.js';
import type { CompanionObject } from './types.js';

/** The step's pending writes, Events and rule results, as rules add to them. */
export type CompanionDraft = {
  readonly secretCopies: SecretCopyAction[];
  readonly writes: (CreateAction | UpdateAction | PatchAction)[];
  readonly events: EventAction[];
  readonly results: RuleResult[];
};

/** A fresh draft. */
export function newDraft(): CompanionDraft {
  return { secretCopies: [], writes: [], events: [], results: [] };
}

/** Records a rule's outcome under its name (the shared draft's `note`). */
export { note } from '../engine/draft.js';

/** An Event on the object (v1's recorder reasons). */
export function companionEvent(kind: CompanionKind, obj: CompanionObject, type: 'Normal' | 'Warning', reason: string, message: string): EventAction {
  return eventOn(kind, obj, type, reason, message);
}

/**
 * The plan: the object writes in rule order, then the status write when `status` differs from the
 * observed one (under the observed resourceVersion: a concurrent change makes it a 409 and the next
 * step re-reads), then Events.
 */
export function toCompanionPlan(kind: CompanionKind, obj: CompanionObject, status: Record<string, unknown>, draft: CompanionDraft, outcomes: readonly Outcome[]): Plan {
  const actions: Action[] = [...draft.secretCopies, ...draft.writes];
  if (!jsonEqual(status, obj.status ?? {})) {
    const ref = { kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
    const object: KubeObject = { ...obj, apiVersion: 'pingcap.com/v1alpha1', kind, status };
    actions.push({ kind: 'updateStatus', ref, object, resourceVersion: obj.metadata.resourceVersion ?? '' });
  }
  actions.push(...draft.events);
  return { actions, status: undefined, outcome: combineOutcomes(outcomes), ruleResults: draft.results };
}
