/**
 * The exporter's HTTP watch client (`KubeWatchSource`) against the simulated API server: how HTTP
 * errors, 410 Gone, silence and stopping end a watch, and LIST paging.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeWatchSource } from '../../lib/exporter/kube-source.js';
import { listAll } from '../../lib/exporter/list.js';
import { ResourceExpiredError, type WatchEvent } from '../../lib/exporter/ports.js';
import { watchedResources } from '../../lib/exporter/resources.js';
import { TerminalError, TransientError } from '../../lib/platform/errors.js';
import { ApiError } from '../../lib/sim/api-error.js';
import { type BareServer, startBareServer } from '../support/api-server.js';
import { tidbCluster, until } from './exporter-harness.js';

const [TIDBCLUSTERS] = watchedResources();
let bare: BareServer;

afterEach(async () => {
  await bare.close();
});

function resource() {
  if (!TIDBCLUSTERS) throw new Error('no tidbclusters resource');
  return TIDBCLUSTERS;
}

/** Collects a watch's events until it ends; `opened` flips once the server accepted it. */
function collect(stream: AsyncIterable<WatchEvent>) {
  const events: WatchEvent[] = [];
  let opened = false;
  const done = (async () => {
    for await (const e of stream) events.push(e);
  })();
  return { events, done, opened: () => opened, open: () => (opened = true) };
}

describe('the watch client', () => {
  it.each([
    { name: 'HTTP 410 asks for a relist', code: 410, reason: 'Expired', error: ResourceExpiredError },
    { name: 'HTTP 503 is transient', code: 503, reason: 'ServiceUnavailable', error: TransientError },
    { name: 'HTTP 403 is terminal', code: 403, reason: 'Forbidden', error: TerminalError },
  ])('a watch answered with $name', async ({ code, reason, error }) => {
    // Prepare
    bare = await startBareServer();
    bare.server.requestHook = () => new ApiError(code, reason, `injected ${code}`);
    const source = new KubeWatchSource(bare.kubeConfig, { clock: bare.clock });
    // Act
    const run = collect(source.watch(resource(), { resourceVersion: '1', timeoutSeconds: 60, signal: new AbortController().signal }));
    // Assess
    await expect(run.done).rejects.toThrow(error);
  });

  it('a continue token the server no longer serves (its history overrun by writes: 410 Expired) asks for a relist', async () => {
    // Prepare: a first page, then more writes than the server's history keeps
    bare = await startBareServer({ historyLimit: 10 });
    for (const name of ['a', 'b', 'c']) bare.store.create('TidbCluster', tidbCluster(name));
    const source = new KubeWatchSource(bare.kubeConfig, { clock: bare.clock });
    const first = await source.list(resource(), { limit: 2 });
    for (let i = 0; i < 12; i++) bare.store.create('TidbCluster', tidbCluster(`x${i}`));
    // Act / Assess
    await expect(source.list(resource(), { limit: 2, continue: first.continue ?? '' })).rejects.toThrow(ResourceExpiredError);
  });

  it('a watch that hears nothing, not even a bookmark, ends quietly after its idle timeout', async () => {
    // Prepare: bookmarks come every 1000 ms on the sim's clock; the idle timeout is shorter
    bare = await startBareServer();
    const source = new KubeWatchSource(bare.kubeConfig, { clock: bare.clock, idleTimeoutMs: 500 });
    const run = collect(source.watch(resource(), { resourceVersion: '1', timeoutSeconds: 60, signal: new AbortController().signal, onOpen: () => run.open() }));
    await until(run.opened, 'the watch is open');
    // Act
    await bare.clock.advance(600);
    // Assess
    await expect(run.done).resolves.toBeUndefined();
    expect(run.events).toEqual([]);
  });

  it('a stopped watch ends quietly after delivering what came before', async () => {
    // Prepare
    bare = await startBareServer();
    const source = new KubeWatchSource(bare.kubeConfig, { clock: bare.clock });
    const stop = new AbortController();
    const run = collect(source.watch(resource(), { resourceVersion: String(bare.store.currentResourceVersion()), timeoutSeconds: 60, signal: stop.signal, onOpen: () => run.open() }));
    await until(run.opened, 'the watch is open');
    const tc = bare.store.create('TidbCluster', tidbCluster('a'));
    await until(() => run.events.length === 1, 'the event arrived');
    // Act
    stop.abort();
    // Assess
    await expect(run.done).resolves.toBeUndefined();
    expect(run.events).toEqual([{ type: 'ADDED', object: expect.objectContaining({ metadata: expect.objectContaining({ name: 'a', resourceVersion: tc.metadata.resourceVersion }) }) }]);
  });

  it('a LIST pages with continue tokens until every object was read', async () => {
    bare = await startBareServer();
    for (const name of ['a', 'b', 'c']) bare.store.create('TidbCluster', tidbCluster(name));
    const source = new KubeWatchSource(bare.kubeConfig, { clock: bare.clock });
    const first = await source.list(resource(), { limit: 2 });
    const second = await source.list(resource(), { limit: 2, continue: first.continue ?? '' });
    expect([...first.items, ...second.items].map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(first.continue).toBeDefined();
    expect(second.continue).toBeUndefined();
  });

  it('a full LIST of more objects than a page is one snapshot: a write between pages is not in it', async () => {
    // Prepare
    bare = await startBareServer();
    for (const name of ['a', 'b', 'c', 'd', 'e']) bare.store.create('TidbCluster', tidbCluster(name));
    const real = new KubeWatchSource(bare.kubeConfig, { clock: bare.clock });
    let pages = 0;
    const source = {
      list: async (r: ReturnType<typeof resource>, page: { limit: number; continue?: string }) => {
        // Between the first and the second page, a new cluster appears
        if (pages++ === 1) bare.store.create('TidbCluster', tidbCluster('bb'));
        return real.list(r, page);
      },
      watch: real.watch.bind(real),
    };
    // Act
    const list = await listAll(source, resource(), 2, () => false);
    // Assess
    expect(list.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pages).toBe(3);
    expect(Number(list.resourceVersion)).toBeLessThan(bare.store.currentResourceVersion());
  });
});
