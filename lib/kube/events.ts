/**
 * core/v1 Events as the reconciler records them, aggregated as client-go's recorder aggregates them
 * (`tools/record/events_cache.go`, `eventLogger`): a repeat of the same report — same involved
 * object, type, reason and message — is not a new Event but the existing one with `count` + 1 and a
 * new `lastTimestamp`, so `kubectl get events` shows one line `(x5 over 10m)`. A Lambda has no
 * recorder cache and may retry a step, so the Event is named after what it reports (a retried step
 * finds it by name) and remembers the last occurrence it counted in an annotation: an occurrence
 * recorded twice (the same `occurrenceKey`) is counted once.
 */
import { createHash } from 'node:crypto';
import type { EventInput, KubeObject } from './port.js';

/** The `source.component` and `reportingComponent` of every Event we create. */
export const EVENT_COMPONENT = 'tidb-reconciler';

/** The annotation holding the last occurrence an Event counted. */
export const OCCURRENCE_ANNOTATION = 'tidb-reconciler/last-occurrence';

/**
 * `<involved name>.<16 hex>` where the hex is a hash of the involved object's uid, the type,
 * reason and message: one name per report, whatever its occurrence. Names stay within the
 * 253-character limit.
 */
export function eventName(event: EventInput): string {
  const { involvedObject: o } = event;
  const digest = createHash('sha256').update([o.uid, event.type, event.reason, event.message].join('\u0000')).digest('hex');
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
    metadata: { name: eventName(event), namespace: o.namespace, annotations: { [OCCURRENCE_ANNOTATION]: event.occurrenceKey }, ...(event.labels ? { labels: { ...event.labels } } : {}) },
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

/**
 * The merge patch that counts one more occurrence of `existing` at `nowMs`, or undefined when
 * `existing` has counted `occurrenceKey` already (a retried step recording it again).
 */
export function repeatPatch(existing: KubeObject, occurrenceKey: string, nowMs: number): Record<string, unknown> | undefined {
  if (existing.metadata.annotations?.[OCCURRENCE_ANNOTATION] === occurrenceKey) return undefined;
  const count = typeof existing['count'] === 'number' ? existing['count'] : 1;
  return { count: count + 1, lastTimestamp: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'), metadata: { annotations: { [OCCURRENCE_ANNOTATION]: occurrenceKey } } };
}
