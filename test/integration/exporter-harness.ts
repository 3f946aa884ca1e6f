/**
 * The exporter's integration world: a bare simulated API server (virtual clock, bookmarks every
 * virtual second), dynalite for the checkpoints and the in-process queue, all on one clock, plus
 * builders for the objects TiDB Operator manages and helpers that wait for conditions (never for
 * wall time).
 */
import type { ReconcileMessageBody } from '../../lib/queue/port.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { Exporter, type ExporterOptions } from '../../lib/exporter/exporter.js';
import { KubeWatchSource } from '../../lib/exporter/kube-source.js';
import type { WatchSource } from '../../lib/exporter/ports.js';
import { watchedResources } from '../../lib/exporter/resources.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import type { StateStore } from '../../lib/state/port.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { type BareServer, startBareServer } from '../support/api-server.js';
import { EXPORTER_GROUP } from '../../lib/local/function-rbac.js';

/** The exporter function's Kubernetes user (its access entry: README "Deploy to EKS", step 3). */
const EXPORTER_USER = { name: 'arn:aws:sts::000000000000:assumed-role/tidb-reconciler-dev-us-east-1-exporter/tidb-reconciler-dev-exporter', groups: [EXPORTER_GROUP] };
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../lib/local/dynalite.js';

/** The state table every test file creates in its own dynalite. */
export const TABLE = 'exporter-test-state';
/** The exporters' flush window in these tests. */
export const FLUSH_MS = 1_000;
/** The sim's bookmark interval (`startBareServer`): advancing this far makes every watch report its position. */
export const BOOKMARK_MS = 1_000;
/** The four cluster-wide watches every exporter here runs. */
export const RESOURCES = watchedResources();

let clusterSeq = 0;

/** One test's world. Each gets its own k8sCluster name, so checkpoints of tests never mix. */
export type ExporterWorld = {
  bare: BareServer;
  queue: MemoryReconcileQueue;
  state: StateStore;
  logger: MemoryLogger;
  k8sCluster: string;
  key: (name: string, namespace?: string) => string;
  exporter: (over?: { state?: StateStore; source?: WatchSource; options?: Partial<ExporterOptions> }) => Exporter;
  close: () => Promise<void>;
};

/** Starts dynalite once per file and creates the table; `state` is the exporter function's, under its role. */
export async function startTable(): Promise<{ dynamo: EmbeddedDynamo; state: DynamoStateStore }> {
  const dynamo = await startEmbeddedDynamo(TABLE);
  return { dynamo, state: new DynamoStateStore(dynamo.identities.dynamo('exporter'), { tableName: TABLE }) };
}

/** A fresh world on `state` (shared dynalite table). */
export async function startWorld(state: StateStore, opts: { historyLimit?: number } = {}): Promise<ExporterWorld> {
  // The exporter function's identity under infra/'s RBAC: a watch it may not make is refused (ADR 0017).
  const bare = await startBareServer({ ...opts, as: EXPORTER_USER });
  const queue = new MemoryReconcileQueue({ clock: bare.clock });
  const logger = new MemoryLogger();
  const k8sCluster = `sim-${++clusterSeq}`;
  const started: Exporter[] = [];
  const exporter: ExporterWorld['exporter'] = (over = {}) => {
    const source = over.source ?? new KubeWatchSource(bare.kubeConfig, { clock: bare.clock });
    const e = new Exporter(
      { source, queue, state: over.state ?? state, clock: bare.clock, logger, random: () => 0 },
      { k8sCluster, resources: RESOURCES, flushWindowMs: FLUSH_MS, ...over.options },
    );
    started.push(e);
    return e;
  };
  const close = async (): Promise<void> => {
    // Stopping an exporter twice is harmless; one a test forgot must not keep its watches open.
    await Promise.allSettled(started.map((e) => e.stop()));
    await bare.close();
  };
  return { bare, queue, state, logger, k8sCluster, key: (name, namespace = 'demo') => `${k8sCluster}/${namespace}/${name}`, exporter, close };
}

/** Waits (on real I/O, checking after each short pause) until `cond` holds; fails naming `what`. */
export async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (cond()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`gave up waiting until ${what}`);
}

/**
 * Waits until every watch loop of `exporter` has its watch open — or, for a backup controller's kind
 * the world does not serve (no Backup / Restore CRD), has found it not served.
 */
export async function watching(exporter: Exporter): Promise<void> {
  await until(() => Object.values(exporter.status()).every((s) => s === 'watching' || s === 'not-served'), `every watch is open (${JSON.stringify(exporter.status())})`);
}

/**
 * Lets the exporter catch up with everything written so far: advances one bookmark interval (every
 * watch then reports the current resourceVersion, after any event written before), waits until
 * every served resource's position reached it, and finishes any flush due.
 */
export async function catchUp(world: ExporterWorld, exporter: Exporter): Promise<void> {
  const target = world.bare.store.currentResourceVersion();
  await world.bare.clock.advance(BOOKMARK_MS);
  // A resource the world does not serve (no Backup / Restore CRD) has no position to reach.
  const served = RESOURCES.filter((r) => exporter.status()[r.name] !== 'not-served');
  const reached = (): boolean => served.every((r) => Number(exporter.positions().get(r.name) ?? 0) >= target);
  await until(reached, `every position reached ${target} (${JSON.stringify(Object.fromEntries(exporter.positions()))})`);
  await exporter.flush();
}

/** Receives and deletes every visible message. */
export async function drain(queue: MemoryReconcileQueue): Promise<ReconcileMessageBody[]> {
  const out: ReconcileMessageBody[] = [];
  for (;;) {
    const batch = await queue.receive(10, 0);
    if (batch.length === 0) return out;
    await queue.delete(batch.map((r) => r.receiptHandle));
    out.push(...batch.map((r) => JSON.parse(r.body) as ReconcileMessageBody));
  }
}

/** The sorted keys of `messages`. */
export const keysOf = (messages: readonly ReconcileMessageBody[]): string[] => messages.map((m) => m.key).sort();

const managed = (instance: string, component: string): Record<string, string> => ({
  'app.kubernetes.io/name': 'tidb-cluster',
  'app.kubernetes.io/managed-by': 'tidb-operator',
  'app.kubernetes.io/instance': instance,
  'app.kubernetes.io/component': component,
});

/** A TidbCluster. */
export function tidbCluster(name: string, namespace = 'demo'): KubeObject {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbCluster',
    metadata: { name, namespace },
    spec: { version: 'v8.5.0', pd: { baseImage: 'pingcap/pd', replicas: 3 }, tikv: { baseImage: 'pingcap/tikv', replicas: 3 } },
  };
}

/** A TiKV Pod of cluster `instance`. */
export function tikvPod(name: string, instance: string, namespace = 'demo'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: managed(instance, 'tikv') },
    spec: { containers: [{ name: 'tikv', image: 'pingcap/tikv:v8.5.0' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null }], containerStatuses: [{ name: 'tikv', ready: true, restartCount: 0 }] },
  };
}

/** A StatefulSet with `labels` (e.g. unlabelled, or another resource's component). */
export function statefulSet(name: string, labels: Record<string, string>, namespace = 'demo'): KubeObject {
  const selector = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace, labels },
    spec: { replicas: 1, serviceName: name, selector: { matchLabels: selector }, template: { metadata: { labels: selector }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  };
}

/** `labels` of an object TiDB Operator manages for cluster `instance`. */
export const managedLabels = managed;
