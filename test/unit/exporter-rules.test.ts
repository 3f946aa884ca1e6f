import { describe, expect, it } from '@jest/globals';
import { clusterKeyOf } from '../../lib/exporter/cluster-key.js';
import { Coalescer, reasonText } from '../../lib/exporter/coalescer.js';
import { parseExporterEnv } from '../../lib/exporter/config.js';
import { parseEvent } from '../../lib/exporter/kube-source.js';
import { ChangeFilter } from '../../lib/exporter/meaningful.js';
import { PowertoolsExporterMetrics } from '../../lib/exporter/metrics.js';
import { EXPORTER_METRIC, ResourceExpiredError } from '../../lib/exporter/ports.js';
import type { WatchedKind } from '../../lib/exporter/resources.js';
import { readLines } from '../../lib/exporter/stream-lines.js';
import type { Metrics as PtMetrics } from '@aws-lambda-powertools/metrics';
import type { KubeObject } from '../../lib/kube/port.js';
import { ConfigError } from '../../lib/platform/config.js';
import { TerminalError, TransientError } from '../../lib/platform/errors.js';

const MANAGED = { 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': 'tikv' };

const pod = (): KubeObject => ({
  metadata: { name: 'basic-tikv-0', namespace: 'demo', resourceVersion: '10', labels: { ...MANAGED } },
  spec: { nodeName: 'node-0', containers: [{ name: 'tikv', image: 'pingcap/tikv:v8.5.0' }] },
  status: {
    phase: 'Running',
    podIP: '10.0.0.1',
    conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }],
    containerStatuses: [{ name: 'tikv', ready: true, started: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:00Z' } }, containerID: 'c-1' }],
  },
});

const tc = (): KubeObject => ({
  metadata: { name: 'basic', namespace: 'demo', resourceVersion: '10', generation: 1, labels: {}, annotations: {} },
  spec: { pd: { replicas: 3 } },
  status: { phase: 'Normal' },
});

const sts = (): KubeObject => ({
  metadata: { name: 'basic-tikv', namespace: 'demo', resourceVersion: '10', labels: { ...MANAGED } },
  spec: { replicas: 3 },
  status: { readyReplicas: 3, currentRevision: 'r1', updateRevision: 'r1' },
});

const ti = (): KubeObject => ({
  metadata: { name: 'ti', namespace: 'demo', resourceVersion: '10', generation: 1 },
  spec: { image: 'tnir/mysqlclient', cluster: { name: 'basic' }, initSql: 'create database a;' },
  status: { phase: 'Running' },
});

type Row = { name: string; kind: WatchedKind; base: () => KubeObject; change: (o: KubeObject) => void; meaningful: boolean };

const rows: Row[] = [
  { name: 'only the resourceVersion of a Pod', kind: 'Pod', base: pod, change: (o) => (o.metadata.resourceVersion = '11'), meaningful: false },
  { name: 'only the managedFields of a StatefulSet', kind: 'StatefulSet', base: sts, change: (o) => (o.metadata.managedFields = [{ manager: 'x' }]), meaningful: false },
  { name: "a Pod condition's probe and transition times", kind: 'Pod', base: pod, change: (o) => Object.assign(o.status.conditions[0], { lastProbeTime: 'x', lastTransitionTime: 'y' }), meaningful: false },
  { name: "a Pod container's id and start time", kind: 'Pod', base: pod, change: (o) => Object.assign(o.status.containerStatuses[0], { containerID: 'c-2', state: { running: { startedAt: 'later' } } }), meaningful: false },
  { name: 'a Pod phase', kind: 'Pod', base: pod, change: (o) => (o.status.phase = 'Failed'), meaningful: true },
  { name: 'a Pod condition status', kind: 'Pod', base: pod, change: (o) => (o.status.conditions[0].status = 'False'), meaningful: true },
  { name: 'a Pod container readiness', kind: 'Pod', base: pod, change: (o) => (o.status.containerStatuses[0].ready = false), meaningful: true },
  { name: 'a Pod restart count', kind: 'Pod', base: pod, change: (o) => (o.status.containerStatuses[0].restartCount = 1), meaningful: true },
  { name: 'a Pod container going to CrashLoopBackOff', kind: 'Pod', base: pod, change: (o) => (o.status.containerStatuses[0].state = { waiting: { reason: 'CrashLoopBackOff' } }), meaningful: true },
  { name: 'a Pod deletionTimestamp', kind: 'Pod', base: pod, change: (o) => (o.metadata.deletionTimestamp = '2026-01-01T00:01:00Z'), meaningful: true },
  { name: 'a Pod annotation', kind: 'Pod', base: pod, change: (o) => (o.metadata.annotations = { evictLeaderBeginTime: 'now' }), meaningful: true },
  { name: 'a TidbCluster status only', kind: 'TidbCluster', base: tc, change: (o) => (o.status = { phase: 'Upgrade' }), meaningful: false },
  { name: 'a TidbCluster spec and generation', kind: 'TidbCluster', base: tc, change: (o) => ((o.spec.pd.replicas = 5), (o.metadata.generation = 2)), meaningful: true },
  { name: 'a TidbCluster annotation', kind: 'TidbCluster', base: tc, change: (o) => (o.metadata.annotations = { 'tidb.pingcap.com/force-upgrade': 'true' }), meaningful: true },
  { name: 'a TidbCluster label', kind: 'TidbCluster', base: tc, change: (o) => (o.metadata.labels = { team: 'x' }), meaningful: true },
  { name: 'a TidbCluster deletionTimestamp', kind: 'TidbCluster', base: tc, change: (o) => (o.metadata.deletionTimestamp = 'now'), meaningful: true },
  { name: 'a StatefulSet status (rolling update progress)', kind: 'StatefulSet', base: sts, change: (o) => (o.status.updateRevision = 'r2'), meaningful: true },
  { name: "a TidbInitializer status only (its controller's own write)", kind: 'TidbInitializer', base: ti, change: (o) => (o.status = { phase: 'Completed' }), meaningful: false },
  { name: 'a TidbInitializer spec', kind: 'TidbInitializer', base: ti, change: (o) => ((o.spec.initSql = 'create database b;'), (o.metadata.generation = 2)), meaningful: true },
];

describe('which MODIFIED events are meaningful', () => {
  it.each(rows)('a change of $name counts: $meaningful', ({ kind, base, change, meaningful }) => {
    // Prepare
    const filter = new ChangeFilter(kind);
    filter.observe({ type: 'ADDED', object: base() }, 'k');
    const next = base();
    change(next);
    // Act / Assess
    expect(filter.observe({ type: 'MODIFIED', object: next }, 'k')).toBe(meaningful);
  });

  it.each([
    { name: 'an object not seen before', type: 'MODIFIED' as const },
    { name: 'an ADDED event', type: 'ADDED' as const },
    { name: 'a DELETED event', type: 'DELETED' as const },
  ])('$name always counts', ({ type }) => {
    expect(new ChangeFilter('Pod').observe({ type, object: pod() }, 'k')).toBe(true);
  });

  it('a relist reports the keys of remembered objects that are gone', () => {
    const filter = new ChangeFilter('Pod');
    filter.observe({ type: 'ADDED', object: pod() }, 'eks/demo/basic');
    expect(filter.reset([])).toEqual(['eks/demo/basic']);
  });
});

describe('the cluster key of an event', () => {
  const owned = (labels: Record<string, string>, owner?: { kind: string; apiVersion: string; controller: boolean }): KubeObject => ({
    metadata: { name: 'x', namespace: 'demo', labels, ...(owner ? { ownerReferences: [{ ...owner, name: 'owner', uid: 'u' }] } : {}) },
  });
  it.each([
    { name: 'a TidbCluster is its own key', kind: 'TidbCluster' as const, obj: tc(), key: 'eks/demo/basic' },
    { name: 'a Pod maps by its instance label', kind: 'Pod' as const, obj: pod(), key: 'eks/demo/basic' },
    {
      name: 'a StatefulSet without instance label maps by its TidbCluster controller',
      kind: 'StatefulSet' as const,
      obj: owned({ 'app.kubernetes.io/managed-by': 'tidb-operator' }, { kind: 'TidbCluster', apiVersion: 'pingcap.com/v1alpha1', controller: true }),
      key: 'eks/demo/owner',
    },
    {
      name: 'a non-controller TidbCluster owner does not count',
      kind: 'StatefulSet' as const,
      obj: owned({ 'app.kubernetes.io/managed-by': 'tidb-operator' }, { kind: 'TidbCluster', apiVersion: 'pingcap.com/v1alpha1', controller: false }),
      key: undefined,
    },
    { name: 'an object not managed by tidb-operator has none', kind: 'Pod' as const, obj: owned({ 'app.kubernetes.io/instance': 'basic' }), key: undefined },
    { name: 'a TidbMonitor component has none', kind: 'Pod' as const, obj: owned({ ...MANAGED, 'app.kubernetes.io/component': 'monitor' }), key: undefined },
    { name: 'a name that cannot form a key has none', kind: 'Pod' as const, obj: owned({ ...MANAGED, 'app.kubernetes.io/instance': 'Not_A_Name' }), key: undefined },
  ])('$name', ({ kind, obj, key }) => {
    expect(clusterKeyOf(kind, obj, 'eks')).toBe(key);
  });
});

describe('coalescing', () => {
  it('a message lists the first three distinct reasons and counts the rest', () => {
    const c = new Coalescer();
    for (const r of ['a', 'b', 'a', 'c', 'd', 'e']) c.add('k', r);
    const [trigger] = c.take();
    expect(trigger && reasonText(trigger)).toBe('a; b; c (+3 more)');
    expect(c.size()).toBe(0);
  });

  it('triggers put back after a failed send merge with newer ones, older reasons first', () => {
    const c = new Coalescer();
    c.add('k', 'old');
    const taken = c.take();
    c.add('k', 'new');
    c.restore(taken);
    expect(c.take()).toEqual([{ key: 'k', reasons: ['old', 'new'], count: 2 }]);
  });
});

describe('watch stream parsing', () => {
  it.each([
    { name: 'an ERROR with code 410 asks for a relist', line: { type: 'ERROR', object: { kind: 'Status', code: 410, message: 'too old' } }, error: ResourceExpiredError },
    { name: 'an ERROR with code 500 is transient', line: { type: 'ERROR', object: { kind: 'Status', code: 500, message: 'boom' } }, error: TransientError },
    { name: 'an ERROR with code 403 is terminal', line: { type: 'ERROR', object: { kind: 'Status', code: 403, message: 'forbidden' } }, error: TerminalError },
  ])('$name', ({ line, error }) => {
    expect(() => parseEvent(JSON.stringify(line), 'watch pods')).toThrow(error);
  });

  it('a bookmark carries only its resourceVersion', () => {
    expect(parseEvent('{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"42"}}}', 'watch pods')).toEqual({ type: 'BOOKMARK', resourceVersion: '42' });
  });

  it('lines split across chunks, and a character split across chunks, arrive whole', async () => {
    const bytes = new TextEncoder().encode('{"a":"é"}\n{"b":2}\n{"c":3}');
    const chunks = [bytes.slice(0, 7), bytes.slice(7, 14), bytes.slice(14)];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
    const lines: string[] = [];
    for await (const line of readLines(stream)) lines.push(line);
    expect(lines).toEqual(['{"a":"é"}', '{"b":2}', '{"c":3}']);
  });
});

describe('exporter configuration', () => {
  it('a Lambda without its settings is refused, naming every missing or bad variable', () => {
    let error: unknown;
    try {
      parseExporterEnv({ KUBE_ENDPOINT: 'http://plain' }, 'lambda');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const fields = (error as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(fields).toEqual(['CLUSTER_NAME', 'STATE_TABLE', 'RECONCILE_QUEUE_URL', 'KUBE_ENDPOINT', 'KUBE_CA_DATA', 'AWS_REGION']);
  });

  it('a cluster name that cannot start a cluster key is refused rather than mapping every event to nothing', () => {
    expect(() => parseExporterEnv({ CLUSTER_NAME: 'eks/prod', STATE_TABLE: 't', RECONCILE_QUEUE_URL: 'q' }, 'daemon')).toThrow(/CLUSTER_NAME: "eks\/prod" is not a valid cluster name/);
  });

  it('a namespace list gives one watch per kind and namespace, each with its own checkpoint name', () => {
    const settings = parseExporterEnv({ CLUSTER_NAME: 'eks', STATE_TABLE: 't', RECONCILE_QUEUE_URL: 'q', EXPORTER_NAMESPACES: 'tidb, prod' }, 'daemon');
    expect(settings.resources.map((r) => r.name)).toEqual([...watchesIn('tidb'), ...watchesIn('prod')]);
    expect(settings.kube).toEqual({ kind: 'default' });
  });

  it.each([
    { name: 'WATCH_NAMESPACES alone scopes the watches', env: { WATCH_NAMESPACES: 'tidb' }, watches: watchesIn('tidb') },
    { name: 'EXPORTER_NAMESPACES narrows WATCH_NAMESPACES', env: { WATCH_NAMESPACES: 'tidb,prod', EXPORTER_NAMESPACES: 'prod' }, watches: watchesIn('prod') },
  ])('namespace-scoped: $name', ({ env, watches }) => {
    const settings = parseExporterEnv({ CLUSTER_NAME: 'eks', STATE_TABLE: 't', RECONCILE_QUEUE_URL: 'q', ...env }, 'daemon');
    expect(settings.resources.map((r) => r.name)).toEqual(watches);
  });

  it.each([
    { name: 'a Lambda keeps each watch open for its whole session, 15 minutes by default', mode: 'lambda' as const, env: {}, watchTimeoutSeconds: 900, sessionMs: 900_000 },
    { name: 'a shorter session is asked for in whole minutes', mode: 'lambda' as const, env: { EXPORTER_SESSION_MINUTES: '5' }, watchTimeoutSeconds: 900, sessionMs: 300_000 },
    { name: 'a daemon keeps client-go-like 5-minute watches', mode: 'daemon' as const, env: {}, watchTimeoutSeconds: 300, sessionMs: 900_000 },
    { name: 'an explicit watch timeout wins', mode: 'lambda' as const, env: { EXPORTER_WATCH_TIMEOUT_SECONDS: '120' }, watchTimeoutSeconds: 120, sessionMs: 900_000 },
  ])('session and watch length: $name', ({ mode, env, watchTimeoutSeconds, sessionMs }) => {
    const eks = mode === 'lambda' ? { KUBE_ENDPOINT: 'https://eks', KUBE_CA_DATA: 'Q0E=', AWS_REGION: 'us-east-1' } : {};
    const settings = parseExporterEnv({ CLUSTER_NAME: 'eks', STATE_TABLE: 't', RECONCILE_QUEUE_URL: 'q', ...eks, ...env }, mode);
    expect({ watchTimeoutSeconds: settings.watchTimeoutSeconds, sessionMs: settings.sessionMs }).toEqual({ watchTimeoutSeconds, sessionMs });
  });

  it.each([
    { name: 'past Lambda\'s 15-minute limit', value: '16', message: 'EXPORTER_SESSION_MINUTES: 16 is longer than Lambda\'s 15-minute limit' },
    { name: 'zero', value: '0', message: 'EXPORTER_SESSION_MINUTES: "0" is not a whole number of at least 1' },
  ])('a session length $name is refused, naming the variable', ({ value, message }) => {
    expect(() => parseExporterEnv({ CLUSTER_NAME: 'eks', STATE_TABLE: 't', RECONCILE_QUEUE_URL: 'q', EXPORTER_SESSION_MINUTES: value }, 'daemon')).toThrow(message);
  });

  it('an EXPORTER_NAMESPACES namespace outside WATCH_NAMESPACES is refused, naming it', () => {
    expect(() => parseExporterEnv({ CLUSTER_NAME: 'eks', STATE_TABLE: 't', RECONCILE_QUEUE_URL: 'q', WATCH_NAMESPACES: 'tidb', EXPORTER_NAMESPACES: 'tidb,other' }, 'daemon')).toThrow(
      'EXPORTER_NAMESPACES: "other" not in WATCH_NAMESPACES (tidb)',
    );
  });
});

/** Every controller's kinds and what its steps wait on, watched in `ns`. */
function watchesIn(ns: string): string[] {
  return ['tidbclusters', 'statefulsets', 'pods', 'persistentvolumeclaims', 'backups', 'restores', 'compactbackups', 'backupschedules', 'tidbinitializers', 'tidbmonitors', 'tidbdashboards', 'tidbngmonitorings', 'jobs', 'deployments'].map((plural) => `${plural}@${ns}`);
}

describe('exporter metrics on CloudWatch', () => {
  it('thousands of counts become one value per metric, written once at flush', () => {
    // Prepare
    const added: [string, number][] = [];
    let published = 0;
    const powertools = {
      addMetric: (name: string, _unit: string, value: number) => added.push([name, value]),
      hasStoredMetrics: () => added.length > 0,
      publishStoredMetrics: () => (published += 1),
    } as unknown as PtMetrics;
    const metrics = new PowertoolsExporterMetrics(powertools);
    // Act
    for (let i = 0; i < 5000; i++) metrics.count(EXPORTER_METRIC.eventsSeen);
    metrics.count(EXPORTER_METRIC.messagesSent, 7);
    const beforeFlush = added.length;
    metrics.flush();
    // Assess
    expect(beforeFlush).toBe(0);
    expect(added).toEqual([
      ['ExporterEventsSeen', 5000],
      ['ExporterMessagesSent', 7],
    ]);
    expect(published).toBe(1);
  });
});
