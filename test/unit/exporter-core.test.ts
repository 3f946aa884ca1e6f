/**
 * The exporter core against a scripted watch source, the in-process queue and the in-memory state
 * store, in virtual time: send failures, reconnect backoff, 410 relists and bookmarks.
 */
import { describe, expect, it } from '@jest/globals';
import { Exporter } from '../../lib/exporter/exporter.js';
import { ResourceExpiredError, type ListPage, type WatchEvent, type WatchRequest, type WatchSource } from '../../lib/exporter/ports.js';
import { watchedResources, type WatchedResource } from '../../lib/exporter/resources.js';
import type { KubeObject } from '../../lib/kube/port.js';
import { VirtualClock, settle } from '../../lib/platform/clock.js';
import { TransientError } from '../../lib/platform/errors.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import type { OutgoingMessage } from '../../lib/queue/port.js';
import { MemoryStateStore } from '../support/memory-state.js';

const TC_ONLY = watchedResources().filter((r) => r.kind === 'TidbCluster');
const PODS_ONLY = watchedResources().filter((r) => r.kind === 'Pod');

/** One step of a scripted watch: an event, an error to throw, a gate to wait for, or the end. */
type Step = WatchEvent | Error | Promise<void> | 'end';

/** A watch source whose every watch plays the next script (then stays quiet until stopped). */
class ScriptedSource implements WatchSource {
  readonly watches: { resource: string; resourceVersion: string }[] = [];
  readonly lists: { resource: string }[] = [];
  private readonly scripts: Step[][] = [];

  constructor(private readonly page: ListPage = { items: [], resourceVersion: '1' }) {}

  script(...steps: Step[]): this {
    this.scripts.push(steps);
    return this;
  }

  async list(resource: WatchedResource): Promise<ListPage> {
    this.lists.push({ resource: resource.name });
    return this.page;
  }

  async *watch(resource: WatchedResource, request: WatchRequest): AsyncGenerator<WatchEvent> {
    this.watches.push({ resource: resource.name, resourceVersion: request.resourceVersion });
    request.onOpen?.();
    for (const step of this.scripts.shift() ?? []) {
      if (step === 'end') return;
      if (step instanceof Error) throw step;
      if (step instanceof Promise) await step;
      else yield step;
    }
    if (!request.signal.aborted) await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
  }
}

const tc = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'demo', resourceVersion: rv }, spec: {} });
const pod = (name: string, instance: string, rv: string): KubeObject => ({
  metadata: { name, namespace: 'demo', resourceVersion: rv, labels: { 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': instance } },
});

/** Lets promise chains and stream steps run until `cond` holds. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await settle();
  expect(cond()).toBe(true);
}

function world(source: ScriptedSource, resources: readonly WatchedResource[] = TC_ONLY) {
  const clock = new VirtualClock();
  const state = new MemoryStateStore();
  const queue = new MemoryReconcileQueue({ clock });
  const exporter = new Exporter({ source, queue, state, clock, logger: new MemoryLogger(), random: () => 0 }, { k8sCluster: 'eks', resources, flushWindowMs: 1_000, checkpointIntervalMs: 0 });
  const sent = async (): Promise<string[]> => (await queue.receive(10, 0)).map((r) => (JSON.parse(r.body) as { key: string }).key).sort();
  return { clock, state, queue, exporter, sent };
}

describe('exporter core', () => {
  it('a send that fails keeps the keys pending and the checkpoint behind until a send succeeds', async () => {
    // Prepare
    const source = new ScriptedSource().script({ type: 'ADDED', object: tc('a', '10') });
    const w = world(source);
    await w.state.putCheckpoint('eks', 'tidbclusters', '5');
    const realSend = w.queue.send.bind(w.queue);
    let failures = 1;
    w.queue.send = async (messages: readonly OutgoingMessage[]) => (failures-- > 0 ? Promise.reject(new TransientError('throttled')) : realSend(messages));
    w.exporter.start();
    await until(() => w.exporter.positions().get('tidbclusters') === '10');
    // Act
    await w.exporter.flush();
    const afterFailure = { checkpoint: await w.state.getCheckpoint('eks', 'tidbclusters'), queued: w.queue.stats().visible };
    await w.clock.advance(500);
    await w.exporter.flush();
    // Assess
    expect(afterFailure).toEqual({ checkpoint: '5', queued: 0 });
    expect(await w.sent()).toEqual(['eks/demo/a']);
    expect(await w.state.getCheckpoint('eks', 'tidbclusters')).toBe('10');
    expect(w.exporter.stats()).toMatchObject({ sendErrors: 1, messagesSent: 1 });
    await w.exporter.stop();
  });

  it('a failed watch reconnects after a backoff, from the last position it reached', async () => {
    // Prepare
    const source = new ScriptedSource().script({ type: 'ADDED', object: tc('a', '10') }, new TransientError('connection reset'));
    const w = world(source);
    await w.state.putCheckpoint('eks', 'tidbclusters', '5');
    // Act
    w.exporter.start();
    await until(() => w.exporter.status()['tidbclusters'] === 'waiting');
    const watchesDuringBackoff = source.watches.length;
    await w.clock.advance(500);
    await until(() => source.watches.length === 2);
    // Assess
    expect(watchesDuringBackoff).toBe(1);
    expect(source.watches).toEqual([
      { resource: 'tidbclusters', resourceVersion: '5' },
      { resource: 'tidbclusters', resourceVersion: '10' },
    ]);
    expect(w.exporter.stats()).toMatchObject({ watchErrors: 1, relists: 0 });
    await w.exporter.stop();
  });

  it('410 Gone relists at once, enqueues every listed cluster, and watches from the list version', async () => {
    // Prepare
    const source = new ScriptedSource({ items: [tc('a', '15'), tc('b', '18')], resourceVersion: '20' }).script(new ResourceExpiredError('too old'));
    const w = world(source);
    await w.state.putCheckpoint('eks', 'tidbclusters', '5');
    // Act
    w.exporter.start();
    await until(() => source.watches.length === 2);
    await w.exporter.flush();
    // Assess
    expect(source.watches.map((x) => x.resourceVersion)).toEqual(['5', '20']);
    expect(await w.sent()).toEqual(['eks/demo/a', 'eks/demo/b']);
    expect(await w.state.getCheckpoint('eks', 'tidbclusters')).toBe('20');
    await w.exporter.stop();
  });

  it('a relist enqueues the cluster of an object deleted while the watch could not see it', async () => {
    // Prepare: the initial list knows a pod of cluster x; it is gone by the relist after a 410
    let page: ListPage = { items: [pod('x-tikv-0', 'x', '3')], resourceVersion: '4' };
    let expire: () => void = () => undefined;
    const source = new ScriptedSource();
    source.list = async () => page;
    source.script(new Promise<void>((resolve) => (expire = resolve)), new ResourceExpiredError('too old'));
    const w = world(source, PODS_ONLY);
    w.exporter.start();
    await until(() => source.watches.length === 1);
    await w.exporter.flush();
    const fromInitialList = await w.sent();
    page = { items: [], resourceVersion: '9' };
    // Act
    expire();
    await until(() => source.watches.length === 2);
    await w.exporter.flush();
    // Assess
    expect(fromInitialList).toEqual(['eks/demo/x']);
    expect(await w.sent()).toEqual(['eks/demo/x']);
    expect(source.watches.map((x) => x.resourceVersion)).toEqual(['4', '9']);
    await w.exporter.stop();
  });

  it('a bookmark moves the checkpoint without sending anything', async () => {
    // Prepare
    const source = new ScriptedSource().script({ type: 'BOOKMARK', resourceVersion: '42' }, 'end');
    const w = world(source);
    await w.state.putCheckpoint('eks', 'tidbclusters', '5');
    // Act
    w.exporter.start();
    await until(() => w.exporter.positions().get('tidbclusters') === '42');
    await w.exporter.stop();
    // Assess
    expect(await w.state.getCheckpoint('eks', 'tidbclusters')).toBe('42');
    expect(w.queue.stats().visible).toBe(0);
    expect(w.exporter.stats()).toMatchObject({ bookmarks: 1, messagesSent: 0 });
  });

  it('stop ends a reconnect backoff at once and still writes the final checkpoint', async () => {
    // Prepare: the watch fails right after an event, so the loop sits in its backoff
    const source = new ScriptedSource().script({ type: 'MODIFIED', object: tc('a', '11') }, new TransientError('reset'));
    const w = world(source);
    await w.state.putCheckpoint('eks', 'tidbclusters', '5');
    w.exporter.start();
    await until(() => w.exporter.status()['tidbclusters'] === 'waiting');
    // Act: no clock advance at all
    await w.exporter.stop();
    // Assess
    expect(w.exporter.status()).toEqual({ tidbclusters: 'stopped' });
    expect(await w.sent()).toEqual(['eks/demo/a']);
    expect(await w.state.getCheckpoint('eks', 'tidbclusters')).toBe('11');
  });
});

describe('exporter: clusters that name another in spec.cluster', () => {
  const withStores = (name: string, rv: string, ...ids: string[]): KubeObject => ({
    metadata: { name, namespace: 'demo', resourceVersion: rv },
    spec: { pd: { replicas: 3 } },
    status: { tikv: { stores: Object.fromEntries(ids.map((id) => [id, { id, state: 'Up' }])) } },
  });
  const hetero: KubeObject = { metadata: { name: 'basic-hetero', namespace: 'demo', resourceVersion: '3' }, spec: { cluster: { name: 'basic' } } };

  it("resumed from a checkpoint, the index is rebuilt from one list; the referenced cluster's new store queues the referrer, not itself", async () => {
    // Prepare: the first event of basic after the restart counts for basic itself (not seen yet)
    let go: () => void = () => undefined;
    const source = new ScriptedSource({ items: [withStores('basic', '4', '1'), hetero], resourceVersion: '7' }).script(
      { type: 'MODIFIED', object: withStores('basic', '11', '1') },
      new Promise<void>((resolve) => (go = resolve)),
      { type: 'MODIFIED', object: withStores('basic', '12', '1', '2') },
      { type: 'MODIFIED', object: withStores('basic', '13', '1', '2') },
    );
    const w = world(source);
    await w.state.putCheckpoint('eks', 'tidbclusters', '5');
    w.exporter.start();
    await until(() => w.exporter.positions().get('tidbclusters') === '11');
    await w.exporter.flush();
    const first = await w.sent();
    // Act: status-only writes of basic, the first with a new store
    go();
    await until(() => w.exporter.positions().get('tidbclusters') === '13');
    await w.exporter.flush();
    // Assess
    expect(first).toEqual(['eks/demo/basic', 'eks/demo/basic-hetero']);
    expect(await w.sent()).toEqual(['eks/demo/basic-hetero']);
    expect([source.lists.length, source.watches.map((x) => x.resourceVersion)]).toEqual([1, ['5']]);
    expect(w.exporter.stats()).toMatchObject({ relists: 0, eventsDropped: 2 });
    await w.exporter.stop();
  });

  it('a session resuming where the last one stopped takes its index over without listing', async () => {
    // Prepare: a first session learns the reference from its initial list and stops at 11
    const first = new ScriptedSource({ items: [withStores('basic', '4', '1'), hetero], resourceVersion: '7' }).script({ type: 'MODIFIED', object: withStores('other', '11') });
    const w1 = world(first);
    w1.exporter.start();
    await until(() => w1.exporter.positions().get('tidbclusters') === '11');
    await w1.exporter.stop();
    const carry = w1.exporter.carry();
    const second = new ScriptedSource().script({ type: 'MODIFIED', object: withStores('basic', '12', '1', '2') });
    const clock = new VirtualClock();
    const queue = new MemoryReconcileQueue({ clock });
    const exporter = new Exporter({ source: second, queue, state: w1.state, clock, logger: new MemoryLogger(), random: () => 0 }, { k8sCluster: 'eks', resources: TC_ONLY, flushWindowMs: 1_000, checkpointIntervalMs: 0, carry });
    // Act
    exporter.start();
    await until(() => exporter.positions().get('tidbclusters') === '12');
    await exporter.flush();
    // Assess
    expect((await queue.receive(10, 0)).map((r) => (JSON.parse(r.body) as { key: string }).key)).toEqual(['eks/demo/basic-hetero']);
    expect(second.lists).toEqual([]);
    await exporter.stop();
  });
});
