/**
 * The exporter as a Lambda watch session (lib/exporter/lambda.ts and the functions/exporter.ts
 * handler) against the simulated API server, the in-process queue and dynalite, in virtual time:
 * the session ends within its budget, leaves its checkpoints, and the next one resumes there.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { createExporterHandler } from '../../functions/exporter.js';
import { STATS_INTERVAL_MS, runDaemon } from '../../lib/exporter/daemon.js';
import { KubeWatchSource } from '../../lib/exporter/kube-source.js';
import { LambdaExporter } from '../../lib/exporter/lambda.js';
import type { WatchRequest, WatchSource } from '../../lib/exporter/ports.js';
import { NotFoundError } from '../../lib/platform/errors.js';
import type { DynamoStateStore } from '../../lib/state/dynamo.js';
import type { EmbeddedDynamo } from '../../lib/local/dynalite.js';
import { FLUSH_MS, RESOURCES, drain, keysOf, startTable, startWorld, tidbCluster, until, type ExporterWorld } from './exporter-harness.js';

const REMAINING_MS = 60_000;
const MARGIN_MS = 10_000;

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

/** A source that records each watch request and counts the watches the server accepted. */
function recordingSource(inner: WatchSource) {
  const requests: Omit<WatchRequest, 'signal' | 'onOpen'>[] = [];
  const lists: string[] = [];
  const watched: string[] = [];
  let opened = 0;
  const source: WatchSource = {
    list: (resource, page) => (lists.push(resource.name), inner.list(resource, page)),
    watch: (resource, request) => {
      requests.push({ resourceVersion: request.resourceVersion, timeoutSeconds: request.timeoutSeconds });
      watched.push(resource.name);
      return inner.watch(resource, { ...request, onOpen: () => (opened += 1, request.onOpen?.()) });
    },
  };
  return { source, requests, lists, watched, opened: () => opened };
}

function lambdaExporter(w: ExporterWorld, over: { sessionMs?: number; watchTimeoutSeconds?: number } = {}) {
  const { clock } = w.bare;
  const recorded: ReturnType<typeof recordingSource>[] = [];
  const source = (deadlineAtMs: number): WatchSource => {
    const r = recordingSource(new KubeWatchSource(w.bare.kubeConfig, { clock, deadlineAtMs }));
    recorded.push(r);
    return r.source;
  };
  const settings = { k8sCluster: w.k8sCluster, resources: RESOURCES, flushWindowMs: FLUSH_MS, checkpointIntervalMs: 5_000, watchTimeoutSeconds: over.watchTimeoutSeconds ?? 300, safetyMarginMs: MARGIN_MS, sessionMs: over.sessionMs ?? 900_000 };
  const exporter = new LambdaExporter({ clock, logger: w.logger, queue: w.queue, state, source }, settings);
  const session = (): ReturnType<typeof recordingSource> => {
    const last = recorded[recorded.length - 1];
    if (!last) throw new Error('no session has started');
    return last;
  };
  return { exporter, session };
}

describe('exporter as a Lambda watch session', () => {
  it('a session stops within its time budget and leaves a checkpoint for every resource', async () => {
    // Prepare
    world = await startWorld(state);
    const { store, clock } = world.bare;
    store.create('TidbCluster', tidbCluster('a'));
    const { exporter, session } = lambdaExporter(world);
    const startedAtMs = clock.nowMs();
    // Act
    const run = exporter.run(REMAINING_MS);
    await until(() => session().opened() === RESOURCES.length, 'every watch is open');
    store.create('TidbCluster', tidbCluster('b'));
    await clock.advance(REMAINING_MS - MARGIN_MS);
    const summary = await run;
    // Assess
    expect(clock.nowMs() - startedAtMs).toBeLessThanOrEqual(REMAINING_MS - MARGIN_MS);
    expect(summary).toMatchObject({ runForMs: REMAINING_MS - MARGIN_MS, ranForMs: REMAINING_MS - MARGIN_MS });
    expect(session().requests.every((r) => r.timeoutSeconds <= (REMAINING_MS - MARGIN_MS) / 1000)).toBe(true);
    for (const r of RESOURCES) {
      expect(await state.getCheckpoint(world.k8sCluster, r.name)).toBe(summary.positions[r.name]);
    }
    expect(Number(summary.positions['tidbclusters'])).toBeGreaterThanOrEqual(Number(store.mustGet('TidbCluster', 'demo', 'b').metadata.resourceVersion));
    expect(keysOf(await drain(world.queue))).toEqual([world.key('a'), world.key('b')]);
  });

  it("the handler's next session resumes at the checkpoint and, warm, drops the echo of the reconciler's own status write", async () => {
    // Prepare: a first session through the handler
    world = await startWorld(state);
    const { store, clock } = world.bare;
    store.create('TidbCluster', tidbCluster('a'));
    const { exporter, session } = lambdaExporter(world);
    const handler = createExporterHandler(() => exporter);
    const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => REMAINING_MS } as unknown as Context;
    const invoke = async (): Promise<void> => {
      const run = handler({}, context);
      await until(() => session().opened() === RESOURCES.length, 'every watch is open');
      await clock.advance(REMAINING_MS - MARGIN_MS);
      await run;
    };
    await invoke();
    const firstCheckpoint = await state.getCheckpoint(world.k8sCluster, 'tidbclusters');
    expect(keysOf(await drain(world.queue))).toEqual([world.key('a')]);
    // Act: between sessions, a status-only write to a and a new cluster c
    const a = store.mustGet('TidbCluster', 'demo', 'a');
    store.update('TidbCluster', { ...a, status: { phase: 'Normal' } }, { subresource: 'status' });
    store.create('TidbCluster', tidbCluster('c'));
    await invoke();
    // Assess
    expect(session().requests.find((r) => r.resourceVersion === firstCheckpoint)).toBeDefined();
    expect(keysOf(await drain(world.queue))).toEqual([world.key('c')]);
  });
});

describe('exporter sessions of 15 minutes at rest', () => {
  it.each([
    { name: 'the schedule\'s 15 minutes bound the session', remainingMs: 900_000, sessionMs: 900_000, runForMs: 890_000 },
    { name: 'a shorter session length wins over a longer timeout', remainingMs: 900_000, sessionMs: 300_000, runForMs: 290_000 },
    { name: 'the invocation\'s remaining time wins over a longer session', remainingMs: 120_000, sessionMs: 900_000, runForMs: 110_000 },
  ])('$name', async ({ remainingMs, sessionMs, runForMs }) => {
    // Prepare
    world = await startWorld(state);
    const { exporter } = lambdaExporter(world, { sessionMs, watchTimeoutSeconds: 900 });
    // Act
    const run = exporter.run(remainingMs);
    await world.bare.clock.advance(runForMs);
    const summary = await run;
    // Assess
    expect(summary.runForMs).toBe(runForMs);
  });

  it('a resumed session asks the API server once per watched kind — no LIST, each watch open for the whole session (issue 30: ≤ 60 an hour)', async () => {
    // Prepare: a first session leaves checkpoints
    world = await startWorld(state);
    const { store, clock } = world.bare;
    store.create('TidbCluster', tidbCluster('a'));
    const { exporter, session } = lambdaExporter(world, { watchTimeoutSeconds: 900 });
    const first = exporter.run(900_000);
    await clock.advance(890_000);
    await first;
    await drain(world.queue);
    // Act: the next session, resumed in the same warm container, at rest
    const second = exporter.run(900_000);
    await until(() => session().requests.length + session().lists.length >= RESOURCES.length, 'every kind asked');
    for (let t = 0; t < 890_000; t += 10_000) await clock.advance(10_000);
    await second;
    // Assess: one request per kind — a watch from its checkpoint, or one ask of a kind the world does not serve
    const { requests, lists, watched } = session();
    expect([...watched, ...lists].sort()).toEqual(RESOURCES.map((r) => r.name).sort());
    expect(requests.every((r) => r.timeoutSeconds >= 889)).toBe(true);
    expect(keysOf(await drain(world.queue))).toEqual([]);
  }, 120_000);
});

describe('a kind the API server does not serve', () => {
  it.each([
    { name: 'a 15-minute session asks once, leaving the next ask to the next session', session: true, min: 1, max: 1 },
    // About 880 s at one ask a minute: the first ask waits for the checkpoint read (real I/O), so 14 or 15.
    { name: 'an exporter without a deadline (the daemon) asks again every minute', session: false, min: 14, max: 15 },
  ])('$name', async ({ session, min, max }) => {
    // Prepare: Backups are not served (their CRD is not installed)
    world = await startWorld(state);
    const { clock } = world.bare;
    let backupAsks = 0;
    const inner = new KubeWatchSource(world.bare.kubeConfig, { clock });
    const source: WatchSource = {
      list: (resource, page) => (resource.kind === 'Backup' ? (backupAsks++, Promise.reject(new NotFoundError('backups: 404'))) : inner.list(resource, page)),
      watch: (resource, request) => inner.watch(resource, request),
    };
    const startedAtMs = clock.nowMs();
    const exporter = world.exporter({ source, options: { watchTimeoutSeconds: 900, ...(session ? { deadlineAtMs: startedAtMs + 890_000 } : {}) } });
    // Act
    exporter.start();
    for (let t = 0; t < 880_000; t += 10_000) await clock.advance(10_000);
    await exporter.stop();
    // Assess
    expect(exporter.status()['backups']).toBe('stopped');
    expect(backupAsks).toBeGreaterThanOrEqual(min);
    expect(backupAsks).toBeLessThanOrEqual(max);
  }, 120_000);
});

describe('exporter as a daemon', () => {
  it('the daemon forwards triggers until told to stop, logs its counters, and leaves its checkpoints', async () => {
    // Prepare
    world = await startWorld(state);
    const { store, clock } = world.bare;
    store.create('TidbCluster', tidbCluster('a'));
    let stop: () => void = () => undefined;
    const stopWhen = new Promise<void>((resolve) => (stop = resolve));
    const env = { CLUSTER_NAME: world.k8sCluster, STATE_TABLE: 'unused', RECONCILE_QUEUE_URL: 'unused' };
    const ends = { kubeConfig: world.bare.kubeConfig, queue: world.queue, state };
    // Act
    const daemon = runDaemon({ env, clock, logger: world.logger, stopWhen, ends });
    for (let i = 0; i < 500 && world.queue.stats().visible === 0; i++) {
      await clock.advance(FLUSH_MS / 10);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await clock.advance(STATS_INTERVAL_MS);
    stop();
    await daemon;
    // Assess
    expect(keysOf(await drain(world.queue))).toEqual([world.key('a')]);
    expect(world.logger.withMessage('exporter stats')[0]?.fields).toMatchObject({ counts: expect.objectContaining({ relists: RESOURCES.length }) });
    expect(world.logger.withMessage('exporter stopped')).toHaveLength(1);
    for (const r of RESOURCES) expect(await state.getCheckpoint(world.k8sCluster, r.name)).toBeDefined();
  });
});
