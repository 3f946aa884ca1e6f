/**
 * The exporter's `WatchSource` read straight from the simulated world's object store instead of
 * over HTTP: the same LIST pages, the same resume-from-resourceVersion with 410 Gone, the same
 * label selection — but delivered in process, so the real exporter core runs on a virtual clock
 * without real-time streams. Used by `simulate`; the local stack on the real clock uses HTTP.
 */
import { ResourceExpiredError, type ListPage, type WatchEvent, type WatchRequest, type WatchSource } from '../exporter/ports.js';
import type { WatchedResource } from '../exporter/resources.js';
import type { KubeObject } from '../sim/object.js';
import { matchesLabels, parseLabelSelector } from '../sim/selectors.js';
import type { ObjectStore, StoreEvent } from '../sim/store.js';

/**
 * A watch source over an ObjectStore. `onRequest` is told of every LIST page and every watch
 * request, as the API server would receive them (the scenario runner counts them).
 */
export class StoreWatchSource implements WatchSource {
  constructor(
    private readonly store: ObjectStore,
    private readonly onRequest?: (verb: 'list' | 'watch') => void,
  ) {}

  async list(resource: WatchedResource, page: { limit: number; continue?: string }): Promise<ListPage> {
    this.onRequest?.('list');
    const all = this.store.list(resource.kind, resource.namespace, this.matcher(resource));
    const start = page.continue ? Number(page.continue) : 0;
    const items = all.slice(start, start + page.limit);
    const next = start + page.limit < all.length ? String(start + page.limit) : undefined;
    return { items, resourceVersion: String(this.store.currentResourceVersion()), ...(next ? { continue: next } : {}) };
  }

  async *watch(resource: WatchedResource, request: WatchRequest): AsyncIterable<WatchEvent> {
    this.onRequest?.('watch');
    const matches = this.matcher(resource);
    const inScope = (o: KubeObject): boolean => (!resource.namespace || o.metadata.namespace === resource.namespace) && matches(o);
    const pending: StoreEvent[] = [];
    let wake: (() => void) | undefined;
    const unsubscribe = this.store.subscribe((ev) => {
      if (ev.kind !== resource.kind) return;
      pending.push(ev);
      wake?.();
    });
    let ended = false;
    const end = (): void => {
      ended = true;
      wake?.();
    };
    const timer = this.store.clock.setTimer(end, request.timeoutSeconds * 1000);
    request.signal.addEventListener('abort', end, { once: true });
    try {
      let replay: StoreEvent[];
      try {
        replay = this.store.eventsSince(resource.kind, Number(request.resourceVersion || '0'));
      } catch (err) {
        throw new ResourceExpiredError(`watch ${resource.name}: ${(err as Error).message}`, { cause: err });
      }
      // Events already in the history are replayed; live ones after them are deduplicated by version.
      const last = replay[replay.length - 1]?.resourceVersion ?? Number(request.resourceVersion || '0');
      request.onOpen?.();
      for (const ev of replay) {
        const out = toWatchEvent(ev, inScope);
        if (out) yield out;
      }
      while (!ended) {
        const ev = pending.shift();
        if (!ev) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        if (ev.resourceVersion <= last) continue;
        const out = toWatchEvent(ev, inScope);
        if (out) yield out;
      }
    } finally {
      unsubscribe();
      this.store.clock.clearTimer(timer);
      request.signal.removeEventListener('abort', end);
    }
  }

  private matcher(resource: WatchedResource): (o: KubeObject) => boolean {
    const reqs = parseLabelSelector(resource.labelSelector ?? '');
    return (o) => matchesLabels(reqs, o.metadata.labels);
  }
}

/** The watch event a store change becomes for one selector (entering or leaving it too). */
function toWatchEvent(ev: StoreEvent, inScope: (o: KubeObject) => boolean): WatchEvent | undefined {
  const now = inScope(ev.object);
  const before = ev.previous ? inScope(ev.previous) : false;
  if (ev.type === 'ADDED') return now ? { type: 'ADDED', object: ev.object } : undefined;
  if (ev.type === 'DELETED') return now || before ? { type: 'DELETED', object: ev.object } : undefined;
  if (now && before) return { type: 'MODIFIED', object: ev.object };
  if (now) return { type: 'ADDED', object: ev.object };
  return before ? { type: 'DELETED', object: ev.object } : undefined;
}
