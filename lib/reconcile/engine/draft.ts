/**
 * What the drafts of the controllers beside the TidbCluster's share (Backup, Restore, CompactBackup,
 * BackupSchedule): a draft collects, as its rules run, each rule's outcome under its name, the
 * Events to record and the earliest wake-up asked for; `draftPlan` turns that into the step's plan
 * after the controller's own writes. Knows no kind: the kind of an Event's object is the caller's.
 */

import type { Action, EventAction, UpdateAction } from '../../model/action.js';
import type { KubeKind, KubeObject } from '../../model/kube.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan, RuleResult } from '../../model/plan.js';
import { combineOutcomes } from './outcome.js';

/** The part of a draft every such controller keeps. */
export type DraftLog = {
  readonly events: EventAction[];
  readonly results: RuleResult[];
  wakeAtMs: number | undefined;
};

/** An empty log: no results, no Events, no wake-up. */
export function emptyLog(): DraftLog {
  return { events: [], results: [], wakeAtMs: undefined };
}

/** Records a rule's outcome under its name and returns it. */
export function note(draft: Pick<DraftLog, 'results'>, rule: string, outcome: Outcome): Outcome {
  draft.results.push({ rule, outcome });
  return outcome;
}

/** Asks for the key to be woken at `atMs` (the earliest ask wins). */
export function wakeAt(draft: Pick<DraftLog, 'wakeAtMs'>, atMs: number): void {
  if (draft.wakeAtMs === undefined || atMs < draft.wakeAtMs) draft.wakeAtMs = atMs;
}

/** The object of an Event: its name, namespace and (when known) uid. */
export type EventSubject = { readonly metadata: { readonly namespace?: string; readonly name?: string; readonly uid?: string } };

/** An Event on `obj` of `kind` (v1's recorder reasons), with its uid when known; `once` while it persists. */
export function eventOn(kind: KubeKind, obj: EventSubject, type: 'Normal' | 'Warning', reason: string, message: string, once = false): EventAction {
  return {
    kind: 'event',
    type,
    reason,
    message,
    object: { kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' },
    ...(obj.metadata.uid === undefined ? {} : { involvedUid: obj.metadata.uid }),
    ...(once ? { once: true as const } : {}),
  };
}

/** The full-object update of `observed` (no status subresource) to `object`, under the observed resourceVersion. */
export function updateOf(kind: KubeKind, observed: EventSubject & { readonly metadata: { readonly resourceVersion?: string } }, object: KubeObject): UpdateAction {
  return { kind: 'update', ref: { kind, namespace: observed.metadata.namespace ?? '', name: observed.metadata.name ?? '' }, object, resourceVersion: observed.metadata.resourceVersion ?? '' };
}

/** The plan: `writes` (the controller's, in its order), then the Events; the outcome combined; the wake-up when one was asked. */
export function draftPlan(draft: DraftLog, writes: readonly Action[], outcome: Outcome): Plan {
  const plan: Plan = { actions: [...writes, ...draft.events], status: undefined, outcome: combineOutcomes([outcome]), ruleResults: draft.results };
  return draft.wakeAtMs === undefined ? plan : { ...plan, nextWakeAtMs: draft.wakeAtMs };
}
