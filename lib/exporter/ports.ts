/**
 * What the exporter core talks to, besides the reconcile queue and the state store it shares with
 * the rest of the system: a source of LISTs and watch streams (`KubeWatchSource` over the API
 * server, or a scripted fake in unit tests) and a small metrics port. Nothing here knows about HTTP
 * or Lambda, so the same core runs as a daemon, as a Lambda watch session and in tests.
 */
import type { KubeObject } from '../kube/port.js';
import { TransientError } from '../platform/errors.js';
import type { WatchedResource } from './resources.js';

/** An object change as a watch delivers it; `object` is the object after the change (or as deleted). */
export type WatchChange = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject };

/** A bookmark: nothing changed up to `resourceVersion`, so a watch may resume there. */
export type WatchBookmark = { type: 'BOOKMARK'; resourceVersion: string };

/** One watch event the core handles. ERROR events never get here: the source throws for them. */
export type WatchEvent = WatchChange | WatchBookmark;

/** One page of a LIST; `continue` is set when more pages follow. */
export type ListPage = { items: KubeObject[]; resourceVersion: string; continue?: string };

/**
 * One watch request. The stream ends by itself after about `timeoutSeconds` (the server closes it);
 * aborting `signal` ends it early without an error. `onOpen` is called once the server accepted the
 * watch, i.e. every change written from then on will be delivered.
 */
export type WatchRequest = {
  resourceVersion: string;
  timeoutSeconds: number;
  signal: AbortSignal;
  onOpen?: () => void;
};

/**
 * The API server as the exporter reads it. `list` throws `ResourceExpiredError` when a continue
 * token expired; `watch` throws it when the resume point is older than the server's history (HTTP
 * 410 or an ERROR event with code 410), and `TransientError`/`TerminalError` for other failures.
 */
export interface WatchSource {
  list(resource: WatchedResource, page: { limit: number; continue?: string }): Promise<ListPage>;
  watch(resource: WatchedResource, request: WatchRequest): AsyncIterable<WatchEvent>;
}

/**
 * 410 Gone: the requested resourceVersion is no longer in the server's history. The only way on is
 * a fresh LIST (a full resync), as client-go's reflector does.
 */
export class ResourceExpiredError extends TransientError {}

/** The exporter's counters; a closed list so dashboards and code cannot drift apart. */
export const EXPORTER_METRIC = {
  /** Change events received (bookmarks excluded). */
  eventsSeen: 'ExporterEventsSeen',
  /** Change events dropped as no-ops (nothing meaningful changed, see `meaningful.ts`). */
  eventsDropped: 'ExporterEventsDropped',
  /** Change events for objects that belong to no TidbCluster. */
  eventsUnmapped: 'ExporterEventsUnmapped',
  /** Bookmarks received. */
  bookmarks: 'ExporterBookmarks',
  /** Reconcile messages sent (one per key per flush). */
  messagesSent: 'ExporterMessagesSent',
  /** LISTs taken: at start without a checkpoint, and after 410 Gone. */
  relists: 'ExporterRelists',
  /** Watch streams that failed (network, non-410 errors); each is retried with backoff. */
  watchErrors: 'ExporterWatchErrors',
  /** Sends that failed; their keys stay pending and the checkpoint does not move. */
  sendErrors: 'ExporterSendErrors',
  /** Clusters with `spec.cluster` left out of the reference index because it was full (the sweep still covers them). */
  referencesUnindexed: 'ExporterReferencesUnindexed',
  checkpointsWritten: 'ExporterCheckpointsWritten',
  checkpointErrors: 'ExporterCheckpointErrors',
} as const;

/** A counter name from `EXPORTER_METRIC`. */
export type ExporterMetricName = (typeof EXPORTER_METRIC)[keyof typeof EXPORTER_METRIC];

/** Where the exporter's counts go. Implementations never throw: metrics must not stop the exporter. */
export interface ExporterMetrics {
  count(name: ExporterMetricName, value?: number): void;
}

/** An `ExporterMetrics` that drops everything. */
export const silentExporterMetrics: ExporterMetrics = { count: () => undefined };
