/**
 * The exporter's watch of TiDB Operator's controller-manager Deployments (lib/exporter/operators.ts,
 * docs/adr/0024): a meaningful change of one steps the TidbClusters it may manage with a verdict
 * re-check; nothing else does. Against a per-resource scripted source, the in-process queue and the
 * in-memory state store, in virtual time.
 */
import { describe, expect, it } from '@jest/globals';
import { Exporter } from '../../lib/exporter/exporter.js';
import type { ListPage, WatchEvent, WatchRequest, WatchSource } from '../../lib/exporter/ports.js';
import { watchedResources, type WatchedResource } from '../../lib/exporter/resources.js';
import type { KubeObject } from '../../lib/kube/port.js';
import { VirtualClock, settle } from '../../lib/platform/clock.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { MemoryStateStore } from '../support/memory-state.js';

const RESOURCES = watchedResources().filter((r) => r.kind === 'TidbCluster' || r.kind === 'Deployment');

/** Per resource name: the LIST it answers and the events its first watch delivers. */
class PerResourceSource implements WatchSource {
  constructor(
    private readonly lists: Record<string, KubeObject[]>,
    private readonly events: Record<string, WatchEvent[]>,
  ) {}

  async list(resource: WatchedResource): Promise<ListPage> {
    return { items: this.lists[resource.name] ?? [], resourceVersion: '1' };
  }

  async *watch(resource: WatchedResource, request: WatchRequest): AsyncGenerator<WatchEvent> {
    request.onOpen?.();
    const events = this.events[resource.name] ?? [];
    this.events[resource.name] = [];
    for (const event of events) yield event;
    if (!request.signal.aborted) await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
  }
}

const tc = (namespace: string, name: string): KubeObject => ({ metadata: { name, namespace, resourceVersion: '1' }, spec: {} });

/** A controller-manager Deployment as TiDB Operator's chart makes it. */
function operator(opts: { name?: string; namespace?: string; ready?: number; scoped?: boolean; rv: string }): KubeObject {
  const args = opts.scoped === false ? ['-cluster-scoped=false'] : [];
  return {
    metadata: { name: opts.name ?? 'tidb-controller-manager', namespace: opts.namespace ?? 'tidb-admin', resourceVersion: opts.rv },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'tidb-operator', command: ['/usr/local/bin/tidb-controller-manager', ...args] }] } } },
    status: { readyReplicas: opts.ready ?? 0 },
  };
}

const CLUSTERS = [tc('a', 'one'), tc('a', 'two'), tc('b', 'three')];

type Sent = { key: string; checkTidbOperator?: boolean };

/** Runs the exporter over `events` of the Deployment watch (from a checkpoint, so no initial list triggers) and returns what it sent. */
async function sentFor(events: WatchEvent[], deployments: KubeObject[] = []): Promise<Sent[]> {
  const clock = new VirtualClock();
  const state = new MemoryStateStore();
  const queue = new MemoryReconcileQueue({ clock });
  await state.putCheckpoint('eks', 'tidbclusters', '1');
  if (deployments.length === 0) await state.putCheckpoint('eks', 'deployments', '1');
  const source = new PerResourceSource({ tidbclusters: CLUSTERS, deployments }, { deployments: events });
  const exporter = new Exporter({ source, queue, state, clock, logger: new MemoryLogger(), random: () => 0 }, { k8sCluster: 'eks', resources: RESOURCES, flushWindowMs: 1_000, checkpointIntervalMs: 0 });
  exporter.start();
  for (let i = 0; i < 200 && !Object.values(exporter.status()).every((s) => s === 'watching'); i++) await settle();
  for (let i = 0; i < 50; i++) await settle();
  await exporter.flush(true);
  const records = await queue.receive(10, 0);
  await exporter.stop();
  return records.map((r) => JSON.parse(r.body) as Sent).map(({ key, checkTidbOperator }) => ({ key, ...(checkTidbOperator === undefined ? {} : { checkTidbOperator }) })).sort((x, y) => x.key.localeCompare(y.key));
}

const ALL = ['eks/a/one', 'eks/a/two', 'eks/b/three'].map((key) => ({ key, checkTidbOperator: true }));

describe("exporter: TiDB Operator's controller managers", () => {
  it.each([
    { name: 'a cluster-scoped controller manager added re-checks every TidbCluster', events: [{ type: 'ADDED', object: operator({ rv: '2' }) }], want: ALL },
    { name: 'one whose replica became ready re-checks them too', events: [{ type: 'ADDED', object: operator({ rv: '2' }) }, { type: 'MODIFIED', object: operator({ rv: '3', ready: 1 }) }], want: ALL },
    { name: 'a namespaced one (-cluster-scoped=false) re-checks the TidbClusters of its namespace only', events: [{ type: 'ADDED', object: operator({ namespace: 'a', scoped: false, rv: '2' }) }], want: ALL.filter((s) => s.key.startsWith('eks/a/')) },
    { name: 'a Deployment not named as the controller manager steps nothing', events: [{ type: 'ADDED', object: operator({ name: 'tidb-scheduler', rv: '2' }) }], want: [] },
  ] as { name: string; events: WatchEvent[]; want: Sent[] }[])('$name', async ({ events, want }) => {
    // Act
    const sent = await sentFor(events);
    // Assess
    expect(sent).toEqual(want);
  });

  it('a MODIFIED that changes nothing the verdict reads (its resourceVersion only) steps nothing', async () => {
    // Prepare: the ADDED is remembered, then the same object at a new resourceVersion
    const clock = new VirtualClock();
    const state = new MemoryStateStore();
    const queue = new MemoryReconcileQueue({ clock });
    await state.putCheckpoint('eks', 'tidbclusters', '1');
    await state.putCheckpoint('eks', 'deployments', '1');
    const source = new PerResourceSource({ tidbclusters: CLUSTERS }, { deployments: [{ type: 'ADDED', object: operator({ rv: '2' }) }, { type: 'MODIFIED', object: operator({ rv: '3' }) }] });
    const exporter = new Exporter({ source, queue, state, clock, logger: new MemoryLogger(), random: () => 0 }, { k8sCluster: 'eks', resources: RESOURCES, flushWindowMs: 1_000, checkpointIntervalMs: 0 });
    // Act
    exporter.start();
    for (let i = 0; i < 300; i++) await settle();
    await exporter.flush(true);
    // Assess
    expect(exporter.stats()).toMatchObject({ eventsDropped: 1 });
    expect((await queue.receive(10, 0)).length).toBe(3);
    await exporter.stop();
  });

  it('an initial list that finds a controller manager re-checks every TidbCluster', async () => {
    // Act: no checkpoint for deployments, so the watch starts with a LIST
    const sent = await sentFor([], [operator({ rv: '1', ready: 1 })]);
    // Assess
    expect(sent).toEqual(ALL);
  });
});
