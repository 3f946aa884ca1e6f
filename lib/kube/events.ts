/**
 * core/v1 Events as the reconciler records them. client-go's recorder names Events
 * `<object>.<unix nanos>` and aggregates repeats by patching `count`; a Lambda has no recorder
 * cache and may retry a step, so we name each Event after what it records instead: a retried step
 * re-creates the same name, the server answers AlreadyExists, and the occurrence is recorded once.
 * The price: `count` is always 1 (a repeat with a new `occurrenceKey` is a new Event).
 */
import { createHash } from 'node:crypto';
import type { EventInput, KubeObject } from './port.js';

/** The `source.component` and `reportingComponent` of every Event we create. */
export const EVENT_COMPONENT = 'tidb-reconciler';

/**
 * `<involved name>.<16 hex>` where the hex is a hash of the involved object's uid, the type,
 * reason, message and occurrence key. Names stay within the 253-character limit.
 */
export function eventName(event: EventInput): string {
  const { involvedObject: o } = event;
  const digest = createHash('sha256').update([o.uid, event.type, event.reason, event.message, event.occurrenceKey].join('\u0000')).digest('hex');
  const prefix = o.name.slice(0, 200).replace(/[^a-z0-9.-]/g, '-');
  return `${prefix}.${digest.slice(0, 16)}`;
}

/** The Event object for `event` at `nowMs`, in the involved object's namespace (the API requires it). */
export function buildEvent(event: EventInput, nowMs: number): KubeObject {
  const at = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const o = event.involvedObject;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: eventName(event), namespace: o.namespace, ...(event.labels ? { labels: { ...event.labels } } : {}) },
    involvedObject: {
      kind: o.kind,
      namespace: o.namespace,
      name: o.name,
      uid: o.uid,
      ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
      ...(o.resourceVersion ? { resourceVersion: o.resourceVersion } : {}),
    },
    type: event.type,
    reason: event.reason,
    message: event.message,
    count: 1,
    firstTimestamp: at,
    lastTimestamp: at,
    source: { component: EVENT_COMPONENT },
    reportingComponent: EVENT_COMPONENT,
    reportingInstance: EVENT_COMPONENT,
  };
}
