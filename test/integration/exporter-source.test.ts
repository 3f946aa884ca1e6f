/**
 * The exporter's HTTP watch client (`KubeWatchSource`) against the simulated API server: how HTTP
 * errors, 410 Gone, silence and stopping end a watch, and LIST paging.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeWatchSource } from '../../lib/exporter/kube-source.js';
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

  it('a LIST answered with 410 (an expired continue token) asks for a relist', async () => {
    bare = await startBareServer();
    bare.server.requestHook = () => new ApiError(410, 'Expired', 'continue token expired');
    const source = new KubeWatchSource(bare.kubeConfig, { clock: bare.clock });
    await expect(source.list(resource(), { limit: 10, continue: 'x' })).rejects.toThrow(ResourceExpiredError);
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
});
