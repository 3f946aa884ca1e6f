/**
 * What each function's first invocation is in the cold-start runs (bench/cold-start.ts): its event,
 * its Lambda time left, and what it reads, created in the simulated world before it runs.
 */
import type { KubeObject } from '../lib/kube/port.js';
import type { SimWorld } from '../lib/sim/world.js';
import { watchedResources } from '../lib/exporter/resources.js';

/** The Kubernetes cluster name (CLUSTER_NAME) of the cold-start runs. */
export const K8S = 'bench';

/** The exporter's fixed world: this many paused TidbClusters in a namespace of their own. */
const EXPORTER_CLUSTERS = 5;
/**
 * The exporter's session (Lambda time left less EXPORTER_SAFETY_MARGIN_MS): its reads, sends and
 * writes end well inside it, even under callgrind on a loaded machine (at 200 ms they did not).
 * The idle rest of it costs nothing measurable (the same instructions at 300 ms and at 1 s). At
 * most 1 s, so that it opens no watch: the simulated server times watches out in real time while
 * the measured process's clock runs slower under callgrind, which would end its watches early.
 */
const EXPORTER_SESSION_MS = 1_000;

/**
 * A first invocation: its event and Lambda time left; environment variables of its own over the
 * ends' (`env`); and `check`, which reads the process's output and names what the invocation
 * failed to do, so a run that did less than its fixed work fails instead of being counted.
 */
export type FirstInvocation = {
  event: unknown;
  remainingMs: number;
  env?: Record<string, string>;
  check?: (stdout: string) => string | undefined;
};

/**
 * A TidbCluster whose reconciliation is paused (`spec.paused`, as TiDB Operator): a step reads and
 * validates it and changes nothing.
 */
function pausedCluster(name: string, namespace: string): KubeObject {
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name, namespace }, spec: { version: 'v8.5.0', paused: true, pd: { replicas: 3, baseImage: 'pingcap/pd' } } };
}

/** The kinds the baseline commit's exporter watched (TidbCluster, StatefulSet, Pod, PVC). */
export const BASELINE_EXPORTER_KINDS = 4;

/** The kinds this tree's exporter watches in one namespace. */
export function watchedKindCount(): number {
  return watchedResources(['bench']).length;
}

/**
 * The exporter's first invocation, the same work in every run whatever ran before it: a session
 * of EXPORTER_SESSION_MS watching (EXPORTER_NAMESPACES) a namespace of its own, made here with
 * EXPORTER_CLUSTERS paused TidbClusters in it. No checkpoint exists for that namespace's watches,
 * so the session reads a checkpoint per watched kind (none), LISTs each kind once, sends one trigger
 * per cluster, and at its end writes a checkpoint per kind: 4 kinds for the baseline's exporter, the
 * kinds `watchedResources` names for this tree's (`BASELINE_EXPORTER_KINDS`, `watchedKindCount`). It opens no watch: less than a second of it is
 * left after the lists, and the exporter opens none shorter than a second (timeoutSeconds ≥ 1).
 * The check fails a run that did anything else (a list cut short by the deadline, a failed send
 * or write).
 */
function exporterInvocation(world: SimWorld, n: number, baseline: boolean): FirstInvocation {
  const namespace = `exporter-${String(n).padStart(4, '0')}`;
  const kinds = baseline ? BASELINE_EXPORTER_KINDS : watchedKindCount();
  world.store.create('Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (let i = 0; i < EXPORTER_CLUSTERS; i++) world.store.create('TidbCluster', pausedCluster(`cluster-${i}`, namespace));
  const expected = { relists: kinds, messagesSent: EXPORTER_CLUSTERS, checkpointsWritten: kinds, eventsSeen: 0, watchErrors: 0, sendErrors: 0, checkpointErrors: 0 };
  const check = (stdout: string): string | undefined => {
    const ended = stdout.split('\n').find((line) => line.includes('"exporter session ended"'));
    if (ended === undefined) return 'no "exporter session ended" line';
    const counts = (JSON.parse(ended) as { counts?: Record<string, number> }).counts ?? {};
    const wrong = Object.entries(expected).filter(([name, value]) => (counts[name] ?? 0) !== value);
    return wrong.length === 0 ? undefined : `the session counted ${wrong.map(([name, value]) => `${name} ${counts[name] ?? 0} (expected ${value})`).join(', ')}`;
  };
  return { event: {}, remainingMs: 1_000 + EXPORTER_SESSION_MS, env: { EXPORTER_NAMESPACES: namespace }, check };
}

/**
 * Function `fn`'s first invocation in run `n`, with what it reads created in `world` first: a
 * reconcile step (SQS batch of one) for a paused TidbCluster, a sweep of the cluster, a timer
 * wake-up, an admin `status` of a paused TidbCluster, or the exporter's fixed session (above). `n`
 * makes every run's cluster its own, so no run finds another's lease or state.
 */
export function firstInvocation(world: SimWorld, fn: string, n: number, baseline = false): FirstInvocation {
  const name = `cold-${n}`;
  const key = `${K8S}/default/${name}`;
  const paused = (): void => {
    world.store.create('TidbCluster', pausedCluster(name, 'default'));
  };
  switch (fn) {
    case 'reconcile':
      paused();
      return {
        event: { Records: [{ messageId: `m-${n}`, receiptHandle: `rh-${n}`, body: JSON.stringify({ key, reason: 'bench' }), attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) }, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench-cold-reconcile', awsRegion: 'us-east-1' }] },
        remainingMs: 60_000,
      };
    case 'sweep':
      return { event: {}, remainingMs: 60_000 };
    case 'timer':
      return { event: { key, kind: 'resync' }, remainingMs: 30_000 };
    case 'admin':
      paused();
      return { event: { action: 'status', cluster: { namespace: 'default', name } }, remainingMs: 30_000 };
    case 'exporter':
      return exporterInvocation(world, n, baseline);
    default:
      throw new Error(`no first invocation for ${fn}`);
  }
}
