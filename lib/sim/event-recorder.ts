/**
 * The Events the simulated cluster's own components record (scheduler, kubelet, StatefulSet and Job
 * controllers, volume provisioning), aggregated as client-go's recorder aggregates them
 * (`staging/src/k8s.io/client-go/tools/record/events_cache.go`, `eventLogger.eventObserve`): a
 * repeat of the same report — same source, involved object (with field path), type, reason and
 * message — is not a new Event but the one already recorded with `count` + 1 and a new
 * `lastTimestamp`, so `kubectl get events` shows one line `(x5 over 10m)`. Similar reports (same
 * source, object, type and reason, another message) are combined as its `EventAggregator` combines
 * them: from the 10th distinct message within 10 minutes of the last, they count on one Event whose
 * message is "(combined from similar events): <latest message>". A new Event is named as
 * client-go names it (`record/event.go` makeEvent: `<involved name>.<hex of UnixNano>`). As client-go's
 * LRU (`maxLruCacheEntries` 4096), the cache forgets the oldest reports beyond its size: a report
 * seen again after that starts a new Event. One recorder per store (`eventRecorder`), so every
 * component of a world shares its cache as the components of a real cluster share the API.
 */
import { ApiError } from './api-error.js';
import { type KubeObject, rfc3339 } from './object.js';
import type { ObjectStore } from './store.js';

/** Normal or Warning, as core/v1 Events. */
export type SimEventType = 'Normal' | 'Warning';

/** Who reports an Event: `source.component` (and the node, for the kubelet). */
export type EventSource = { readonly component: string; readonly host?: string };

/** One report about an object. `fieldPath` names a container (`spec.containers{name}`) for the kubelet's. */
export type EventReport = {
  readonly type: SimEventType;
  readonly reason: string;
  readonly message: string;
  readonly source: EventSource;
  readonly fieldPath?: string;
};

// client-go's maxLruCacheEntries.
const CACHE_ENTRIES = 4096;
// EventAggregator: defaultAggregateMaxEvents, defaultAggregateIntervalInSeconds, and its message.
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const COMBINED_PREFIX = '(combined from similar events): ';

/** Puts `key` last (most recent) in an LRU map, forgetting the oldest entry beyond client-go's size. */
function remember<V>(lru: Map<string, V>, key: string, value: V): void {
  lru.set(key, value);
  if (lru.size > CACHE_ENTRIES) lru.delete(lru.keys().next().value as string);
}

/** The aggregating recorder of one store. */
export class SimEventRecorder {
  /** Report key → the name of its Event; insertion order is recency (re-inserted on use). */
  private readonly cache = new Map<string, string>();
  /** Similar-report key (no message) → its distinct recent messages and the last one's time. */
  private readonly similar = new Map<string, { messages: Set<string>; atMs: number }>();
  private sequence = 0;

  constructor(private readonly store: ObjectStore) {}

  /**
   * Records `report` about `object` `times` times (default once): counted on the Event of the same
   * report when it still exists, else a new Event. Returns the Event as stored, or undefined when
   * the API refused it (a namespace being deleted): as client-go's recorder, recording never fails
   * the work it reports.
   */
  record(object: KubeObject, report: EventReport, times = 1): KubeObject | undefined {
    try {
      return this.write(object, report, times);
    } catch (err) {
      if (err instanceof ApiError) return undefined;
      throw err;
    }
  }

  private write(object: KubeObject, report: EventReport, times: number): KubeObject {
    const involvedObject = involvedRef(object, report.fieldPath);
    const { fieldPath: _ignored, ...withoutField } = involvedObject;
    const similar = JSON.stringify([report.source.component, report.source.host ?? '', withoutField, report.type, report.reason]);
    const combined = this.isCombined(similar, report.message);
    const key = combined ? similar : JSON.stringify([report.source.component, report.source.host ?? '', involvedObject, report.type, report.reason, report.message]);
    const message = combined ? `${COMBINED_PREFIX}${report.message}` : report.message;
    const namespace = object.metadata.namespace ?? 'default';
    const at = rfc3339(this.store.clock.nowMs());
    const name = this.cache.get(key);
    const existing = name === undefined ? undefined : this.store.get('Event', namespace, name);
    if (name !== undefined) this.cache.delete(key);
    if (existing) {
      const count = (typeof existing['count'] === 'number' ? existing['count'] : 1) + times;
      remember(this.cache, key, name as string);
      // eventObserve's patch: count, lastTimestamp and the message (a combined Event shows the latest).
      return this.store.update('Event', { ...existing, count, lastTimestamp: at, message });
    }
    const created = this.store.create('Event', {
      metadata: { name: this.eventName(involvedObject.name), namespace },
      involvedObject,
      type: report.type,
      reason: report.reason,
      message,
      source: { component: report.source.component, ...(report.source.host ? { host: report.source.host } : {}) },
      reportingComponent: report.source.component,
      reportingInstance: report.source.host ?? '',
      firstTimestamp: at,
      lastTimestamp: at,
      count: times,
    });
    remember(this.cache, key, created.metadata.name ?? '');
    return created;
  }

  /**
   * EventAggregate: the distinct messages of similar reports (same source, object, type and reason)
   * within 10 minutes of the last one; from the 10th on, they are one combined Event.
   */
  private isCombined(similar: string, message: string): boolean {
    const nowMs = this.store.clock.nowMs();
    const last = this.similar.get(similar);
    this.similar.delete(similar);
    const messages = last && nowMs - last.atMs <= AGGREGATE_INTERVAL_MS ? last.messages : new Set<string>();
    messages.add(message);
    remember(this.similar, similar, { messages, atMs: nowMs });
    if (messages.size < AGGREGATE_MAX_EVENTS) return false;
    // As client-go (PopAny): one message leaves, so the set stays at the threshold.
    messages.delete(messages.values().next().value as string);
    return true;
  }

  // `<name>.<hex UnixNano>`; the virtual clock has ms, so a sequence fills the nanoseconds (unique names).
  private eventName(involvedName: string): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    const nanos = BigInt(this.store.clock.nowMs()) * 1_000_000n + BigInt(this.sequence);
    return `${involvedName}.${nanos.toString(16)}`;
  }
}

/** The ObjectReference of `object` as an Event's involvedObject (`reference.GetReference`). */
function involvedRef(object: KubeObject, fieldPath: string | undefined): { kind: string; namespace?: string; name: string; uid: string; apiVersion: string; resourceVersion?: string; fieldPath?: string } {
  return {
    kind: object.kind ?? '',
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    name: object.metadata.name ?? '',
    uid: object.metadata.uid ?? '',
    apiVersion: object.apiVersion ?? 'v1',
    ...(fieldPath ? { fieldPath } : {}),
  };
}

const recorders = new WeakMap<ObjectStore, SimEventRecorder>();

/** The recorder every component of the world on `store` shares. */
export function eventRecorder(store: ObjectStore): SimEventRecorder {
  let recorder = recorders.get(store);
  if (!recorder) {
    recorder = new SimEventRecorder(store);
    recorders.set(store, recorder);
  }
  return recorder;
}

/** The field path of container `name` of a pod, as the kubelet's container references carry it. */
export function containerFieldPath(name: string): string {
  return `spec.containers{${name}}`;
}
