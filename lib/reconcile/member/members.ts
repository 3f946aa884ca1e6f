/**
 * Small facts every member rule uses: which pod a member runs in, whether an object is going away,
 * the "nothing to do" decision, and reporting a persisting condition once.
 */

import type { EventAction } from '../../model/action.js';
import { complete } from '../engine/outcome.js';
import type { Decision, RuleInput } from '../engine/rule.js';
import { observedObjects } from '../cluster/observed.js';

/** The pod a member runs in: its name up to the first dot (members may be named by FQDN). */
export const podNameOfMember = (memberName: string): string => memberName.split('.')[0] ?? memberName;

/** The member of `members` running in `podName` (by name, or FQDN whose first label is the pod). */
export function memberOfPod<T extends { name: string }>(
  members: Readonly<Record<string, T>> | readonly T[] | undefined,
  podName: string,
): T | undefined {
  const list: readonly T[] = Array.isArray(members) ? members : Object.values(members ?? {});
  return list.find((m) => m.name === podName) ?? list.find((m) => podNameOfMember(m.name) === podName);
}

/** Whether an object is being deleted. */
export const isTerminating = (obj: { metadata?: { deletionTimestamp?: string } } | undefined): boolean =>
  obj?.metadata?.deletionTimestamp !== undefined;

/** A decision that changes nothing and completes. */
export const nothing = (message?: string): Decision => ({ actions: [], outcome: complete(message) });

/** `<namespace>/<name>` of the cluster, as TiDB Operator's messages name it. */
export const clusterPath = (input: RuleInput): string => `${input.cluster.metadata.namespace ?? ''}/${input.cluster.metadata.name ?? ''}`;

/**
 * `event` unless the cluster's recent Events already hold one with the same reason and message
 * (so a condition that persists across steps is reported once, as the event recorder aggregates).
 */
export function unlessRecorded(input: RuleInput, event: EventAction): EventAction[] {
  const seen = observedObjects(input.snapshot, 'Event').some((e) => e.reason === event.reason && e.message === event.message);
  return seen ? [] : [event];
}
