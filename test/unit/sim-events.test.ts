/**
 * The Events the simulated cluster's components record, against the real components' reasons and
 * messages: the shared recorder's aggregation (client-go's events_cache.go), the scheduler
 * (schedule_one.go), the kubelet (kuberuntime_container.go, image_manager.go, prober.go), the
 * StatefulSet controller (stateful_pod_control.go), the Job controller and CSI provisioning.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { eventRecorder, type EventReport } from '../../lib/sim/event-recorder.js';
import { GarbageCollector } from '../../lib/sim/gc.js';
import type { KubeObject } from '../../lib/sim/object.js';
import type { ContainerRuntime, SimProcess } from '../../lib/sim/runtime.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

/** Images `unready`: a process that never gets ready; `exit/<code>/<s>`: one that exits after <s> seconds. */
const runtime: ContainerRuntime = {
  start(pod, hooks): SimProcess | undefined {
    const image = ((pod.spec?.containers ?? []) as { name: string; image: string }[]).find((c) => c.name === hooks.container)?.image ?? '';
    if (image === 'unready') return { isReady: () => false, exitReason: () => undefined, stop: () => undefined };
    return undefined;
  },
};

function world() {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes: 3, runtimes: [runtime] });
  const gc = new GarbageCollector(store);
  controllers.start();
  /** The Events about `name` (any kind), oldest first, as kubectl describe lists them. */
  const events = (name: string): { type: string; reason: string; message: string; from: string; count: number }[] =>
    store
      .list('Event', NS, (e) => (e.involvedObject as { name?: string }).name === name)
      .sort((a, b) => String(a.firstTimestamp).localeCompare(String(b.firstTimestamp)) || Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
      .map((e) => {
        const source = e.source as { component: string; host?: string };
        return { type: String(e.type), reason: String(e.reason), message: String(e.message), from: source.host ? `${source.component}/${source.host}` : source.component, count: Number(e.count) };
      });
  return { clock, store, controllers, gc, events };
}

const pod = (name: string, spec: Record<string, unknown> = {}, image = 'nginx:1.27'): KubeObject => ({ metadata: { name, namespace: NS }, spec: { containers: [{ name: 'main', image }], ...spec } });

describe('the shared recorder aggregates as client-go does', () => {
  const base: EventReport = { type: 'Normal', reason: 'Pulled', message: 'Container image "a:1" already present on machine', source: { component: 'kubelet', host: 'node-0' }, fieldPath: 'spec.containers{main}' };
  it.each([
    { name: 'the same report twice is one Event counted twice', second: base, objects: 1, counts: [2] },
    { name: 'another message is another Event', second: { ...base, message: 'Container image "a:2" already present on machine' }, objects: 2, counts: [1, 1] },
    { name: 'another container (field path) is another Event', second: { ...base, fieldPath: 'spec.containers{side}' }, objects: 2, counts: [1, 1] },
    { name: 'another source host is another Event', second: { ...base, source: { component: 'kubelet', host: 'node-1' } }, objects: 2, counts: [1, 1] },
    { name: 'another type is another Event', second: { ...base, type: 'Warning' as const }, objects: 2, counts: [1, 1] },
  ])('$name', async ({ second, objects, counts }) => {
    // Prepare
    const w = world();
    const p = w.store.create('Pod', pod('p'));
    const recorder = eventRecorder(w.store);

    // Act
    recorder.record(p, base);
    await w.clock.advance(60_000);
    recorder.record(p, second);

    // Assess
    const stored = w.store.list('Event', NS, (e) => (e.involvedObject as { name: string }).name === 'p' && e.reason === 'Pulled' && (e.source as { component: string }).component === 'kubelet' && e.message !== undefined && String(e.message).includes('"a:'));
    expect(stored).toHaveLength(objects);
    expect(stored.map((e) => e.count).sort()).toEqual(counts);
    const counted = stored.find((e) => e.count === 2);
    if (counted) expect([counted.firstTimestamp, counted.lastTimestamp]).toEqual(['2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z']);
    for (const e of stored) expect(e.metadata.name).toMatch(/^p\.[0-9a-f]+$/);
    expect(stored[0]?.involvedObject).toEqual({ kind: 'Pod', namespace: NS, name: 'p', uid: p.metadata.uid, apiVersion: 'v1', fieldPath: 'spec.containers{main}' });
  });

  it.each([
    { name: 'nine similar reports (same reason, other messages) are nine Events', reports: 9, gapMs: 1_000, combined: undefined },
    { name: 'from the tenth within 10 minutes they are one combined Event with the latest message', reports: 12, gapMs: 1_000, combined: { count: 3, message: '(combined from similar events): create Pod web-11 in StatefulSet web successful' } },
    { name: 'similar reports more than 10 minutes apart are never combined', reports: 12, gapMs: 601_000, combined: undefined },
  ])('$name', async ({ reports, gapMs, combined }) => {
    // Prepare
    const w = world();
    const set = w.store.create('StatefulSet', { metadata: { name: 'web', namespace: NS }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } } } });
    const recorder = eventRecorder(w.store);

    // Act
    for (let i = 0; i < reports; i++) {
      recorder.record(set, { type: 'Normal', reason: 'SuccessfulCreate', message: `create Pod web-${i} in StatefulSet web successful`, source: { component: 'test' } });
      await w.clock.advance(gapMs);
    }

    // Assess
    const stored = w.store.list('Event', NS, (e) => (e.source as { component: string }).component === 'test');
    const combinedEvents = stored.filter((e) => String(e.message).startsWith('(combined'));
    expect(combinedEvents.map((e) => ({ count: e.count, message: e.message }))).toEqual(combined ? [combined] : []);
    expect(stored).toHaveLength(combined ? 10 : reports);
  });

  it('an Event the API refuses (its namespace is being deleted) is dropped, not thrown', () => {
    // Prepare
    const w = world();
    const p = w.store.create('Pod', pod('p'));
    w.store.delete('Namespace', undefined, NS);

    // Act
    const recorded = eventRecorder(w.store).record(p, base);

    // Assess
    expect(recorded).toBeUndefined();
  });
});

describe('scheduler Events (schedule_one.go)', () => {
  it('a bound pod has Scheduled "Successfully assigned ns/pod to node" from default-scheduler', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('Pod', pod('p'));
    await w.clock.advance(10);

    // Assess
    expect(w.events('p')[0]).toEqual({ type: 'Normal', reason: 'Scheduled', message: 'Successfully assigned demo/p to node-0', from: 'default-scheduler', count: 1 });
  });

  it('an unschedulable pod has one FailedScheduling Event, counted once per attempt (at most one per 10 s back-off)', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', pod('p', { nodeSelector: { disk: 'nvme' } }));
    await w.clock.advance(10);

    // Act: other pods wake the scheduler within the back-off, then after it
    w.store.create('Pod', pod('q', { nodeSelector: { disk: 'nvme' } }));
    await w.clock.advance(5_000);
    w.store.create('Pod', pod('r', { nodeSelector: { disk: 'nvme' } }));
    await w.clock.advance(6_000);
    w.store.create('Pod', pod('s', { nodeSelector: { disk: 'nvme' } }));
    await w.clock.advance(10);

    // Assess
    expect(w.events('p')).toEqual([{ type: 'Warning', reason: 'FailedScheduling', message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", from: 'default-scheduler', count: 2 }]);
  });
});

describe('kubelet Events (kuberuntime_container.go, image_manager.go, prober.go)', () => {
  it.each([
    { name: 'a tagged image (IfNotPresent) is already present, then Created and Started', image: 'nginx:1.27', pulls: [['Pulled', 'Container image "nginx:1.27" already present on machine']] },
    {
      name: 'a :latest image (Always) is pulled first',
      image: 'busybox:latest',
      pulls: [
        ['Pulling', 'Pulling image "busybox:latest"'],
        ['Pulled', 'Successfully pulled image "busybox:latest" in 0s (0s including waiting)'],
      ],
    },
  ])('$name', async ({ image, pulls }) => {
    // Prepare
    const w = world();

    // Act
    w.store.create('Pod', pod('p', {}, image));
    await w.clock.advance(2_000);

    // Assess
    const kubelet = w.events('p').filter((e) => e.from === 'kubelet/node-0');
    expect(kubelet.map((e) => [e.reason, e.message])).toEqual([...pulls, ['Created', 'Created container: main'], ['Started', 'Started container main']]);
    const started = w.store.list('Event', NS, (e) => e.reason === 'Started')[0];
    expect(started?.involvedObject).toMatchObject({ kind: 'Pod', name: 'p', fieldPath: 'spec.containers{main}' });
  });

  it('deleting a running pod records Killing "Stopping container main"', async () => {
    // Prepare
    const w = world();
    w.store.create('Pod', pod('p'));
    await w.clock.advance(2_000);

    // Act
    w.store.delete('Pod', NS, 'p');
    await w.clock.advance(10);

    // Assess
    expect(w.events('p').at(-1)).toEqual({ type: 'Normal', reason: 'Killing', message: 'Stopping container main', from: 'kubelet/node-0', count: 1 });
  });

  it('a crash-looping container has one BackOff Warning counted per deferred restart, and Started counted per start', async () => {
    // Prepare
    const w = world();
    const p = w.store.create('Pod', pod('p', {}, 'pingcap/pd:v99'));
    w.controllers.kubelet.breakImage('pingcap/pd:v99', true);

    // Act: crashes at 1 s (restart at once), 2 s (back-off 10 s), 13 s (20 s)
    await w.clock.advance(40_000);

    // Assess
    const byReason = Object.fromEntries(w.events('p').map((e) => [e.reason, e]));
    expect(byReason['BackOff']).toEqual({ type: 'Warning', reason: 'BackOff', message: `Back-off restarting failed container main in pod p_demo(${p.metadata.uid ?? ''})`, from: 'kubelet/node-0', count: 3 });
    expect(byReason['Started']?.count).toBe(4);
    expect(w.store.list('Event', NS, (e) => e.reason === 'Started')).toHaveLength(1);
  });

  it.each([
    { name: 'a TCP probe on a process that is not serving: connection refused', probe: { tcpSocket: { port: 4000 } }, output: 'dial tcp 10.1.0.2:4000: connect: connection refused' },
    { name: 'an HTTP probe answered by a running, unready server: 503', probe: { httpGet: { port: 2379, path: '/health' } }, output: 'HTTP probe failed with statuscode: 503' },
  ])('each failed readiness probe counts on one Unhealthy Warning — $name', async ({ probe, output }) => {
    // Prepare
    const w = world();

    // Act: probes every 10 s from the start at 1 s, read after 60 s
    w.store.create('Pod', { metadata: { name: 'p', namespace: NS }, spec: { containers: [{ name: 'main', image: 'unready', readinessProbe: { ...probe, periodSeconds: 10 } }] } });
    await w.clock.advance(61_500);
    w.store.update('Pod', { ...w.store.mustGet('Pod', NS, 'p'), metadata: { ...w.store.mustGet('Pod', NS, 'p').metadata, labels: { touched: 'yes' } } });
    await w.clock.advance(10);

    // Assess
    const unhealthy = w.events('p').filter((e) => e.reason === 'Unhealthy');
    expect(unhealthy).toEqual([{ type: 'Warning', reason: 'Unhealthy', message: `Readiness probe failed: ${output}`, from: 'kubelet/node-0', count: 7 }]);
  });
});

const statefulSet = (replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web', namespace: NS },
  spec: {
    replicas,
    serviceName: 'web',
    podManagementPolicy: 'Parallel',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
});

describe('StatefulSet controller Events (stateful_pod_control.go)', () => {
  it('creating pods records the claim and pod creations; scaling in records the deletion', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet(2));
    await w.clock.advance(5_000);

    // Act
    const set = w.store.mustGet('StatefulSet', NS, 'web');
    w.store.update('StatefulSet', { ...set, spec: { ...set.spec, replicas: 1 } });
    await w.clock.advance(5_000);

    // Assess
    expect(w.events('web').map((e) => [e.type, e.reason, e.message, e.from])).toEqual([
      ['Normal', 'SuccessfulCreate', 'create Claim data-web-0 Pod web-0 in StatefulSet web success', 'statefulset-controller'],
      ['Normal', 'SuccessfulCreate', 'create Pod web-0 in StatefulSet web successful', 'statefulset-controller'],
      ['Normal', 'SuccessfulCreate', 'create Claim data-web-1 Pod web-1 in StatefulSet web success', 'statefulset-controller'],
      ['Normal', 'SuccessfulCreate', 'create Pod web-1 in StatefulSet web successful', 'statefulset-controller'],
      ['Normal', 'SuccessfulDelete', 'delete Pod web-1 in StatefulSet web successful', 'statefulset-controller'],
    ]);
  });

  it('a claim provisioned by the EBS CSI driver records the PV controller and provisioner Events', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('StatefulSet', statefulSet(1));
    await w.clock.advance(5_000);

    // Assess
    const pv = w.store.mustGet('PersistentVolumeClaim', NS, 'data-web-0').spec?.volumeName as string;
    const provisioning = w.events('data-web-0').filter((e) => e.reason !== 'WaitForFirstConsumer');
    expect(provisioning.map((e) => [e.reason, e.message, e.from])).toEqual([
      [
        'ExternalProvisioning',
        "Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
        'persistentvolume-controller',
      ],
      ['Provisioning', 'External provisioner is provisioning volume for claim "demo/data-web-0"', 'ebs.csi.aws.com_ebs-csi-controller'],
      ['ProvisioningSucceeded', `Successfully provisioned volume ${pv}`, 'ebs.csi.aws.com_ebs-csi-controller'],
    ]);
  });
});

describe('Job controller Events (controller_utils.go, job_controller.go)', () => {
  it('a Job records SuccessfulCreate "Created pod: <name>" and Completed when its pod succeeds', async () => {
    // Prepare
    const w = world();
    const job = { metadata: { name: 'backup-b1', namespace: NS }, spec: { backoffLimit: 0, template: { metadata: { labels: { app: 'backup' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'backup', image: 'busybox:1' }] } } } };

    // Act: a DefaultProcess keeps running; mark it done as the kubelet would
    w.store.create('Job', job);
    await w.clock.advance(2_000);
    const jobPod = w.store.list('Pod', NS)[0] as KubeObject;
    w.store.update('Pod', { ...jobPod, status: { ...jobPod.status, phase: 'Succeeded' } }, { subresource: 'status' });
    await w.clock.advance(2_000);

    // Assess
    expect(w.events('backup-b1').map((e) => [e.reason, e.message, e.from])).toEqual([
      ['SuccessfulCreate', `Created pod: ${jobPod.metadata.name ?? ''}`, 'job-controller'],
      ['Completed', 'Job completed', 'job-controller'],
    ]);
  });
});
