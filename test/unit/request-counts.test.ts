import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { MemoryReconcileQueue, seededRandom } from '../../lib/queue/memory.js';
import type { OutgoingMessage } from '../../lib/queue/port.js';
import { apiRequestTarget, componentOfTarget, countExchanges } from '../../lib/local/request-boundaries.js';
import { componentOfLabels, countingQueue, countingScheduler, countingSend, REQUEST_TARGETS, RequestCounter } from '../../lib/local/request-counts.js';
import { ObjectStore } from '../../lib/sim/store.js';
import type { ScheduleRequest, SchedulerPort } from '../../lib/timer/port.js';

const NS = 'demo';
const messages = (n: number): OutgoingMessage[] => Array.from({ length: n }, (_, i) => ({ message: { key: `local/${NS}/tc-${i}`, reason: 'sweep', enqueuedAtMs: 0 } }));

/** A store with a PD pod (10.0.0.1), a Job pod (10.0.0.9) without a component, and TiDB's service. */
function store(): ObjectStore {
  const s = new ObjectStore(new VirtualClock());
  s.create('Namespace', { metadata: { name: NS } });
  const pod = (name: string, ip: string, labels: Record<string, string>) =>
    s.create('Pod', { metadata: { name, namespace: NS, labels }, spec: { containers: [{ name: 'main', image: 'busybox' }] }, status: { phase: 'Running', podIP: ip } });
  pod('basic-pd-0', '10.0.0.1', { 'app.kubernetes.io/component': 'pd' });
  pod('backup-b1-x', '10.0.0.9', { 'app.kubernetes.io/component': 'backup' });
  s.create('Service', { metadata: { name: 'basic-tidb', namespace: NS, labels: { 'app.kubernetes.io/component': 'tidb' } }, spec: { selector: { app: 'tidb' }, ports: [{ name: 'status', port: 10080 }] } });
  return s;
}

describe('RequestCounter', () => {
  it('reports every target, in the documented order, 0 when none was counted', () => {
    const counter = new RequestCounter();
    counter.count('pd', 2);
    counter.count('apiServer');
    expect(Object.keys(counter.snapshot())).toEqual([...REQUEST_TARGETS]);
    expect(counter.snapshot()).toMatchObject({ apiServer: 1, pd: 2, tidb: 0, sqs: 0 });
  });

  it('counts since an earlier snapshot, and the snapshot does not move with later counts', () => {
    const counter = new RequestCounter();
    counter.count('sqs', 3);
    const before = counter.snapshot();
    counter.count('sqs', 4);
    expect(before.sqs).toBe(3);
    expect(counter.since(before)).toMatchObject({ sqs: 4, apiServer: 0 });
  });

  it.each([
    { name: 'a negative count', n: -1 },
    { name: 'a fraction', n: 0.5 },
  ])('refuses $name', ({ n }) => {
    expect(() => new RequestCounter().count('pd', n)).toThrow(RangeError);
  });
});

describe('counting ports', () => {
  it.each([
    { name: 'a send of 25 messages is 3 SendMessageBatch requests', sent: 25, sqs: 3 },
    { name: 'a send of 10 is one', sent: 10, sqs: 1 },
    { name: 'a send of nothing is none', sent: 0, sqs: 0 },
  ])('$name', async ({ sent, sqs }) => {
    const counter = new RequestCounter();
    const queue = countingQueue(new MemoryReconcileQueue({ clock: new VirtualClock(), random: seededRandom(1) }), counter);
    await queue.send(messages(sent));
    expect(counter.snapshot().sqs).toBe(sqs);
  });

  it('a receive, a visibility change and a delete of 11 handles are 1 + 1 + 2 requests', async () => {
    const counter = new RequestCounter();
    const queue = countingQueue(new MemoryReconcileQueue({ clock: new VirtualClock(), random: seededRandom(1) }), counter);
    await queue.send(messages(10));
    const received = await queue.receive(10, 0);
    await queue.changeVisibility(received[0]?.receiptHandle ?? '', 0);
    await queue.delete([...received.map((r) => r.receiptHandle), 'stale-handle']);
    expect(counter.snapshot().sqs).toBe(1 + 1 + 1 + 2);
  });

  it('a due schedule delivering counts one SendMessageBatch per 10 messages', async () => {
    const counter = new RequestCounter();
    const sent: OutgoingMessage[] = [];
    await countingSend({ send: async (m) => void sent.push(...m) }, counter).send(messages(11));
    expect([sent.length, counter.snapshot().sqs]).toEqual([11, 2]);
  });

  it('each Scheduler call is one request, refused or not, reads too', async () => {
    const counter = new RequestCounter();
    const inner: SchedulerPort = {
      createSchedule: async () => undefined,
      updateSchedule: async () => undefined,
      deleteSchedule: async () => {
        throw new Error('ResourceNotFoundException');
      },
      getSchedule: async () => undefined,
    };
    const scheduler = countingScheduler(inner, counter);
    const request = { Name: 'n' } as ScheduleRequest;
    await scheduler.createSchedule(request);
    await scheduler.updateSchedule(request);
    await expect(scheduler.deleteSchedule('n')).rejects.toThrow('ResourceNotFoundException');
    await scheduler.getSchedule('n');
    expect(counter.snapshot().scheduler).toBe(4);
  });
});

describe('what a request counts as', () => {
  it.each([
    { name: 'a component label', labels: { 'app.kubernetes.io/component': 'tikv' }, want: 'tikv' },
    { name: 'the discovery service', labels: { 'app.kubernetes.io/component': 'discovery' }, want: undefined },
    { name: 'no labels', labels: undefined, want: undefined },
  ])('$name → $want', ({ labels, want }) => {
    expect(componentOfLabels(labels)).toBe(want);
  });

  const callers = { functions: new Set(['reconcile-user']), exporter: new Set(['exporter-user']) };
  it.each([
    { name: "a function's read is the API server's", user: 'reconcile-user', path: `/api/v1/namespaces/${NS}/pods`, want: 'apiServer' },
    { name: "a function's request proxied to a PD pod is PD's", user: 'reconcile-user', path: `/api/v1/namespaces/${NS}/pods/basic-pd-0:2379/proxy/pd/api/v1/members`, want: 'pd' },
    { name: "a function's request proxied to TiDB's service is TiDB's", user: 'reconcile-user', path: `/api/v1/namespaces/${NS}/services/basic-tidb:status/proxy/status`, want: 'tidb' },
    { name: 'a proxied request to a pod of no component is the API server\'s', user: 'reconcile-user', path: `/api/v1/namespaces/${NS}/pods/backup-b1-x:80/proxy/`, want: 'apiServer' },
    { name: "the exporter's watch is the exporter's", user: 'exporter-user', path: '/apis/pingcap.com/v1alpha1/tidbclusters', want: 'exporter' },
    { name: "kubectl's (the timeline's) is not counted", user: 'kubernetes-admin', path: `/api/v1/namespaces/${NS}/pods`, want: undefined },
  ])('$name', ({ user, path, want }) => {
    expect(apiRequestTarget(store(), callers, path, { name: user, groups: [] })).toBe(want);
  });

  it.each([
    { name: 'the pod at the address names its component', ip: '10.0.0.1', serverName: 'unrelated.demo.svc', want: 'pd' },
    { name: 'a gone pod is known by its member name', ip: '10.9.9.9', serverName: 'basic-tikv-1.basic-tikv-peer.demo.svc', want: 'tikv' },
    { name: 'a service name names its component', ip: '10.9.9.9', serverName: 'basic-pd.demo.svc', want: 'pd' },
    { name: 'a pump member name', ip: '10.9.9.9', serverName: 'basic-pump-0.basic-pump.demo.svc', want: 'pump' },
    { name: 'an address of no component', ip: '10.0.0.9', serverName: 'backup.demo.svc', want: undefined },
  ])('an in-VPC exchange: $name', ({ ip, serverName, want }) => {
    const target = { ip, port: 2379, scheme: 'http' as const, serverName };
    expect(componentOfTarget(store(), target)).toBe(want);
    const counter = new RequestCounter();
    countExchanges(store(), counter)(target);
    expect(Object.values(counter.snapshot()).reduce((a, b) => a + b, 0)).toBe(want === undefined ? 0 : 1);
  });
});
