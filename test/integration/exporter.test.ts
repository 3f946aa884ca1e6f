/**
 * The exporter against the simulated API server (real HTTP watches with bookmarks, 410 Gone and
 * label selectors), the in-process queue and dynalite checkpoints, all on one virtual clock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Exporter } from '../../lib/exporter/exporter.js';
import type { StateStore } from '../../lib/state/port.js';
import type { DynamoStateStore } from '../../lib/state/dynamo.js';
import type { EmbeddedDynamo } from '../../lib/local/dynalite.js';
import {
  FLUSH_MS,
  RESOURCES,
  catchUp,
  drain,
  keysOf,
  managedLabels,
  startTable,
  startWorld,
  statefulSet,
  tidbCluster,
  tikvPod,
  until,
  watching,
  type ExporterWorld,
} from './exporter-harness.js';

let dynamo: EmbeddedDynamo;
let state: DynamoStateStore;
let world: ExporterWorld;

beforeAll(async () => {
  ({ dynamo, state } = await startTable());
});

afterAll(async () => {
  expect(dynamo.identities.iam.denials).toEqual([]);
  await dynamo.close();
});

afterEach(async () => {
  await world.close();
});

/** Starts an exporter, waits for its watches, and empties the queue of its initial list. */
async function running(make: () => Exporter = () => world.exporter()): Promise<Exporter> {
  const exporter = make();
  exporter.start();
  await watching(exporter);
  await catchUp(world, exporter);
  await drain(world.queue);
  return exporter;
}

describe('exporter: from watch events to reconcile messages', () => {
  it('creating a TidbCluster enqueues its key once the flush window passes', async () => {
    // Prepare
    world = await startWorld(state);
    const exporter = await running();
    // Act
    const tc = world.bare.store.create('TidbCluster', tidbCluster('basic'));
    await until(() => exporter.positions().get('tidbclusters') === tc.metadata.resourceVersion, 'the ADDED event arrived');
    await world.bare.clock.advance(FLUSH_MS);
    await until(() => exporter.stats().messagesSent === 1, 'the flush timer sent the message');
    // Assess
    const messages = await drain(world.queue);
    expect(messages).toEqual([{ key: world.key('basic'), reason: 'TidbCluster demo/basic added', enqueuedAtMs: world.bare.clock.nowMs() }]);
    await exporter.stop();
    expect(await state.getCheckpoint(world.k8sCluster, 'tidbclusters')).toBe(exporter.positions().get('tidbclusters'));
  });

  it('a burst of 50 Pod updates for one cluster yields at most 2 messages', async () => {
    // Prepare
    world = await startWorld(state);
    const { store, clock } = world.bare;
    store.create('TidbCluster', tidbCluster('basic'));
    for (let i = 0; i < 5; i++) store.create('Pod', tikvPod(`basic-tikv-${i}`, 'basic'));
    const exporter = await running();
    // Act: 50 restarts spread over half a flush window
    for (let i = 0; i < 50; i++) {
      // Stored objects are frozen: change a copy.
      const pod = structuredClone(store.mustGet('Pod', 'demo', `basic-tikv-${i % 5}`));
      pod.status.containerStatuses[0].restartCount = i + 1;
      store.update('Pod', pod, { subresource: 'status' });
      if (i % 10 === 9) await clock.advance(100);
    }
    await catchUp(world, exporter);
    // Assess
    const messages = await drain(world.queue);
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages.length).toBeLessThanOrEqual(2);
    expect(new Set(keysOf(messages))).toEqual(new Set([world.key('basic')]));
    expect(messages[0]?.reason).toMatch(/^Pod demo\/basic-tikv-0 modified; Pod demo\/basic-tikv-1 modified; Pod demo\/basic-tikv-2 modified \(\+\d+ more\)$/);
    expect(exporter.stats().eventsSeen).toBe(50);
  });

  it.each([
    {
      name: 'a TidbCluster status-only change (the reconciler writing its own status)',
      act: (w: ExporterWorld) => {
        const tc = w.bare.store.mustGet('TidbCluster', 'demo', 'basic');
        w.bare.store.update('TidbCluster', { ...tc, status: { phase: 'Normal' } }, { subresource: 'status' });
      },
    },
    {
      name: "a Pod condition's probe time",
      act: (w: ExporterWorld) => {
        const pod = structuredClone(w.bare.store.mustGet('Pod', 'demo', 'basic-tikv-0'));
        pod.status.conditions[0].lastProbeTime = '2026-01-01T00:00:05Z';
        w.bare.store.update('Pod', pod, { subresource: 'status' });
      },
    },
    {
      name: "a StatefulSet's managedFields",
      act: (w: ExporterWorld) => {
        const sts = w.bare.store.mustGet('StatefulSet', 'demo', 'basic-tikv');
        w.bare.store.update('StatefulSet', { ...sts, metadata: { ...sts.metadata, managedFields: [{ manager: 'kubectl', operation: 'Update' }] } });
      },
    },
  ])('a no-op update yields no message: $name', async ({ act }) => {
    // Prepare
    world = await startWorld(state);
    world.bare.store.create('TidbCluster', tidbCluster('basic'));
    world.bare.store.create('Pod', tikvPod('basic-tikv-0', 'basic'));
    world.bare.store.create('StatefulSet', statefulSet('basic-tikv', managedLabels('basic', 'tikv')));
    const exporter = await running();
    const sentByInitialList = exporter.stats().messagesSent;
    // Act
    act(world);
    await catchUp(world, exporter);
    // Assess
    expect(await drain(world.queue)).toEqual([]);
    expect(exporter.stats()).toMatchObject({ eventsSeen: 1, eventsDropped: 1, messagesSent: sentByInitialList });
  });

  it.each([
    { name: 'an unlabelled StatefulSet of another owner', labels: { app: 'web' }, seen: 0 },
    { name: "a StatefulSet of another resource's component (TidbMonitor)", labels: managedLabels('basic-monitor', 'monitor'), seen: 1 },
  ])('a StatefulSet that belongs to no TidbCluster yields no message: $name', async ({ labels, seen }) => {
    // Prepare
    world = await startWorld(state);
    const exporter = await running();
    // Act
    world.bare.store.create('StatefulSet', statefulSet('other', labels));
    await catchUp(world, exporter);
    // Assess
    expect(await drain(world.queue)).toEqual([]);
    expect(exporter.stats()).toMatchObject({ eventsSeen: seen, eventsUnmapped: seen, messagesSent: 0 });
  });
});

describe('exporter: checkpoints and restarts', () => {
  it('a restart resumes from the checkpoint: old events are not re-sent, events written while down are not lost', async () => {
    // Prepare
    world = await startWorld(state);
    const { store } = world.bare;
    const first = await running();
    store.create('TidbCluster', tidbCluster('a'));
    await catchUp(world, first);
    expect(keysOf(await drain(world.queue))).toEqual([world.key('a')]);
    await first.stop();
    // Act: written while no exporter runs
    store.create('TidbCluster', tidbCluster('b'));
    store.create('Pod', tikvPod('b-tikv-0', 'b'));
    const second = world.exporter();
    second.start();
    await watching(second);
    await catchUp(world, second);
    // Assess
    expect(keysOf(await drain(world.queue))).toEqual([world.key('b')]);
    expect(second.stats()).toMatchObject({ relists: 0, eventsSeen: 2, messagesSent: 1 });
  });

  it('a checkpoint older than the server history (410 Gone) relists and enqueues every cluster', async () => {
    // Prepare
    world = await startWorld(state, { historyLimit: 5 });
    const { store } = world.bare;
    store.create('TidbCluster', tidbCluster('a'));
    store.create('TidbCluster', tidbCluster('b'));
    const first = await running();
    await first.stop();
    store.create('TidbCluster', tidbCluster('c'));
    for (let i = 0; i < 8; i++) store.create('ConfigMap', { metadata: { name: `noise-${i}`, namespace: 'demo' }, data: { i: String(i) } });
    // Act: pages of two, so the relist of three clusters needs a continue token
    const second = world.exporter({ options: { listPageSize: 2 } });
    second.start();
    await watching(second);
    await catchUp(world, second);
    // Assess
    const messages = await drain(world.queue);
    expect(keysOf(messages)).toEqual([world.key('a'), world.key('b'), world.key('c')]);
    expect(messages.map((m) => m.reason)).toEqual(Array(3).fill('relist after 410 Gone: tidbclusters'));
    expect(second.stats().relists).toBe(RESOURCES.length);
  });

  it('a crash between send and checkpoint re-sends (at-least-once) and loses nothing', async () => {
    // Prepare: a checkpoint to fall back to
    world = await startWorld(state);
    const { store } = world.bare;
    await (await running()).stop();
    const failingCheckpoints: StateStore = Object.assign(Object.create(state) as StateStore, {
      putCheckpoint: async () => Promise.reject(new Error('process killed before the checkpoint write')),
    });
    const crashing = await running(() => world.exporter({ state: failingCheckpoints }));
    // Act
    store.create('TidbCluster', tidbCluster('a'));
    await catchUp(world, crashing);
    const beforeCrash = keysOf(await drain(world.queue));
    await crashing.stop();
    store.create('TidbCluster', tidbCluster('b'));
    const restarted = world.exporter();
    restarted.start();
    await watching(restarted);
    await catchUp(world, restarted);
    // Assess
    expect(beforeCrash).toEqual([world.key('a')]);
    expect(crashing.stats().checkpointErrors).toBeGreaterThan(0);
    expect(keysOf(await drain(world.queue))).toEqual([world.key('a'), world.key('b')]);
  });
});
