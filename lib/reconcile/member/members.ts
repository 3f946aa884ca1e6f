/**
 * Small facts every member rule uses: which pod a member runs in, whether an object is going away,
 * the "nothing to do" decision, and reporting a persisting condition once.
 */

import type { EventAction } from '../../model/action.js';
import { complete } from '../engine/outcome.js';
import type { Decision, RuleInput } from '../engine/rule.js';

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
 * `event`, reported once while the condition persists: the executor records it only when the
 * cluster's recent Events hold none with the same reason and message, as the event recorder
 * aggregates (rules never read Events, so a step that reports nothing reads none).
 */
export function unlessRecorded(event: EventAction): EventAction[] {
  return [{ ...event, once: true }];
}
