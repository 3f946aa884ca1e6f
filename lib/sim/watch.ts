/**
 * Watch streams: initial ADDED events (or replay from a resourceVersion), then live changes as
 * newline-delimited JSON, with bookmarks, `timeoutSeconds`, and 410 Gone as an ERROR event for a
 * version older than the retained history — the real API server's watch cache behaviour.
 * Objects entering or leaving a selector's match set arrive as ADDED / DELETED.
 */
import type { ServerResponse } from 'node:http';
import type { TimerHandle } from '../platform/clock.js';
import { ApiError, statusBody } from './api-error.js';
import type { KubeObject } from './object.js';
import { type ResourceDef, apiVersionOf } from './resources.js';
import type { ObjectFilter, ObjectStore, StoreEvent } from './store.js';

/** Parameters of one watch request. */
export type WatchParams = {
  resource: ResourceDef;
  namespace: string | undefined;
  filter: ObjectFilter;
  resourceVersion: string | undefined;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
  bookmarkIntervalMs: number;
  /** The form of each event's object when the client asked for one (a Table row, metadata only). */
  shape?: (obj: KubeObject) => unknown;
};

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Serves one watch on `res` until the client goes away, the timeout passes, or `stopAll` is called. */
export function serveWatch(store: ObjectStore, res: ServerResponse, p: WatchParams, onClose: (stop: () => void) => void): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache' });
  // Send the headers now: clients wait for them before they consider the watch established.
  res.flushHeaders();
  const write = (type: WatchEventType, object: unknown): void => {
    if (res.writableEnded) return;
    const shaped = p.shape && type !== 'BOOKMARK' && type !== 'ERROR' ? p.shape(object as KubeObject) : object;
    res.write(JSON.stringify({ type, object: shaped }) + '\n');
  };
  const inScope = (o: KubeObject): boolean => (!p.namespace || o.metadata.namespace === p.namespace) && p.filter(o);
  // Subscribe first so nothing written during the replay is lost; buffer until the replay is sent.
  const buffered: StoreEvent[] = [];
  let live = false;
  const deliver = (ev: StoreEvent): void => {
    if (ev.kind !== p.resource.kind) return;
    const now = inScope(ev.object);
    const before = ev.previous ? inScope(ev.previous) : false;
    if (ev.type === 'ADDED' && now) write('ADDED', ev.object);
    else if (ev.type === 'DELETED' && (now || before)) write('DELETED', ev.object);
    else if (ev.type === 'MODIFIED') {
      if (now && before) write('MODIFIED', ev.object);
      else if (now) write('ADDED', ev.object);
      else if (before) write('DELETED', ev.object);
    }
  };
  const unsubscribe = store.subscribe((ev) => (live ? deliver(ev) : buffered.push(ev)));
  const timers: TimerHandle[] = [];
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    for (const t of timers) store.clock.clearTimer(t);
    if (!res.writableEnded) res.end();
  };
  onClose(stop);
  res.on('close', stop);
  try {
    replay(store, p, inScope, write);
  } catch (err) {
    if (err instanceof ApiError) {
      write('ERROR', statusBody(err));
      stop();
      return;
    }
    throw err;
  }
  live = true;
  for (const ev of buffered) deliver(ev);
  if (p.timeoutSeconds !== undefined && p.timeoutSeconds > 0) timers.push(store.clock.setTimer(stop, p.timeoutSeconds * 1000));
  if (p.allowBookmarks) scheduleBookmarks(store, p, write, timers, () => stopped);
}

function replay(store: ObjectStore, p: WatchParams, inScope: (o: KubeObject) => boolean, write: (t: WatchEventType, o: unknown) => void): void {
  const rv = p.resourceVersion;
  if (rv === undefined || rv === '' || rv === '0') {
    for (const obj of store.list(p.resource.kind, p.namespace)) if (inScope(obj)) write('ADDED', obj);
    return;
  }
  const from = Number(rv);
  if (!Number.isInteger(from) || from < 0) throw new ApiError(400, 'BadRequest', `invalid resource version: ${rv}`);
  for (const ev of store.eventsSince(p.resource.kind, from)) {
    const now = inScope(ev.object);
    const before = ev.previous ? inScope(ev.previous) : false;
    if (ev.type === 'ADDED' && now) write('ADDED', ev.object);
    else if (ev.type === 'DELETED' && (now || before)) write('DELETED', ev.object);
    else if (ev.type === 'MODIFIED' && (now || before)) write(now && before ? 'MODIFIED' : now ? 'ADDED' : 'DELETED', ev.object);
  }
}

function scheduleBookmarks(
  store: ObjectStore,
  p: WatchParams,
  write: (t: WatchEventType, o: unknown) => void,
  timers: TimerHandle[],
  isStopped: () => boolean,
): void {
  const tick = (): void => {
    if (isStopped()) return;
    write('BOOKMARK', { kind: p.resource.kind, apiVersion: apiVersionOf(p.resource), metadata: { resourceVersion: String(store.currentResourceVersion()) } });
    timers.push(store.clock.setTimer(tick, p.bookmarkIntervalMs));
  };
  timers.push(store.clock.setTimer(tick, p.bookmarkIntervalMs));
}
