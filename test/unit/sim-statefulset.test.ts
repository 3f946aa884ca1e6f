import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { GarbageCollector } from '../../lib/sim/gc.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { statefulSetSpec } from '../../lib/sim/controllers/statefulset-pods.js';
import { listRevisions, syncRevisions } from '../../lib/sim/controllers/statefulset-revisions.js';
import { updateStatefulSet } from '../../lib/sim/controllers/statefulset-update.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

type StsOptions = {
  replicas?: number;
  parallel?: boolean;
  image?: string;
  partition?: number;
  onDelete?: boolean;
  claims?: boolean;
  historyLimit?: number;
  minReadySeconds?: number;
};

function statefulSet(name: string, o: StsOptions = {}): KubeObject {
  return {
    metadata: { name, namespace: NS },
    spec: {
      replicas: o.replicas ?? 3,
      serviceName: `${name}-peer`,
      selector: { matchLabels: { app: name } },
      ...(o.parallel ? { podManagementPolicy: 'Parallel' } : {}),
      updateStrategy: o.onDelete ? { type: 'OnDelete' } : { type: 'RollingUpdate', rollingUpdate: { partition: o.partition ?? 0 } },
      ...(o.historyLimit !== undefined ? { revisionHistoryLimit: o.historyLimit } : {}),
      ...(o.minReadySeconds !== undefined ? { minReadySeconds: o.minReadySeconds } : {}),
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: o.image ?? 'pingcap/pd:v8.1.0', ports: [{ name: 'client', containerPort: 2379 }] }] },
      },
      ...(o.claims === false
        ? {}
        : { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }] }),
    },
  };
}

/** A world on a virtual clock: store, namespace, controllers, and a log of pod lifecycle events. */
function world() {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 5000, nodes: 3 });
  const log: { atMs: number; what: string }[] = [];
  store.subscribe((ev) => {
    if (ev.kind !== 'Pod') return;
    const name = ev.object.metadata.name ?? '';
    const atMs = clock.nowMs() - START_MS;
    if (ev.type === 'ADDED') log.push({ atMs, what: `create ${name}` });
    else if (ev.type === 'DELETED') log.push({ atMs, what: `gone ${name}` });
    else if (ev.object.metadata.deletionTimestamp && !ev.previous?.metadata.deletionTimestamp) log.push({ atMs, what: `delete ${name}` });
  });
  controllers.start();
  const sinceMs = (): number => clock.nowMs() - START_MS;
  const pods = (): KubeObject[] => store.list('Pod', NS);
  const sts = (name: string): KubeObject => store.mustGet('StatefulSet', NS, name);
  const setTemplateImage = (name: string, image: string): void => {
    const s = structuredClone(sts(name));
    s.spec.template.spec.containers[0].image = image;
    store.update('StatefulSet', s);
  };
  return { clock, store, controllers, log, sinceMs, pods, sts, setTemplateImage };
}

const revisionOf = (pod: KubeObject): string => pod.metadata.labels?.['controller-revision-hash'] ?? '';

describe('StatefulSet controller: scaling', () => {
  it.each([
    {
      name: 'OrderedReady creates ordinals 0, 1, 2 one after another, each once the previous is Running and Ready',
      parallel: false,
      creates: [
        { atMs: 0, what: 'create pd-0' },
        { atMs: 5000, what: 'create pd-1' },
        { atMs: 10_000, what: 'create pd-2' },
      ],
    },
    {
      name: 'Parallel creates every ordinal at once',
      parallel: true,
      creates: [
        { atMs: 0, what: 'create pd-0' },
        { atMs: 0, what: 'create pd-1' },
        { atMs: 0, what: 'create pd-2' },
      ],
    },
  ])('$name', async ({ parallel, creates }) => {
    // Prepare
    const w = world();

    // Act
    w.store.create('StatefulSet', statefulSet('pd', { parallel }));
    await w.clock.advance(30_000);

    // Assess
    expect(w.log.filter((e) => e.what.startsWith('create'))).toEqual(creates);
    expect(w.sts('pd').status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3 });
  });

  it('zero omitempty counters are left out of the status, as the API server serialises them', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('StatefulSet', statefulSet('pd'));
    await w.clock.advance(1);

    // Assess
    const status = w.sts('pd').status;
    expect(status).toEqual({
      observedGeneration: 1,
      replicas: 1,
      availableReplicas: 0,
      updatedReplicas: 1,
      currentReplicas: 1,
      currentRevision: status.updateRevision,
      updateRevision: expect.stringMatching(/^pd-/),
      collisionCount: 0,
    });
  });

  it('scale-down removes the highest ordinal first, one at a time, and keeps every claim', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd'));
    await w.clock.advance(20_000);
    const s = w.sts('pd');
    w.log.length = 0;
    const t0 = w.sinceMs();

    // Act
    w.store.update('StatefulSet', { ...s, spec: { ...s.spec, replicas: 1 } });
    await w.clock.advance(10_000);

    // Assess
    expect(w.log.map((e) => ({ ...e, atMs: e.atMs - t0 }))).toEqual([
      { atMs: 0, what: 'delete pd-2' },
      { atMs: 1000, what: 'gone pd-2' },
      { atMs: 1000, what: 'delete pd-1' },
      { atMs: 2000, what: 'gone pd-1' },
    ]);
    expect(w.store.list('PersistentVolumeClaim', NS).map((c) => c.metadata.name)).toEqual(['data-pd-0', 'data-pd-1', 'data-pd-2']);
    expect(w.sts('pd').status).toMatchObject({ replicas: 1, readyReplicas: 1 });
  });

  it.each([
    { name: 'a Failed pod (OrderedReady) is deleted at once, and recreated only by the next pass', phase: 'Failed', parallel: false },
    { name: 'a Succeeded pod (OrderedReady) is deleted at once, and recreated only by the next pass', phase: 'Succeeded', parallel: false },
    { name: 'a Failed pod (Parallel) is deleted at once, and recreated only by the next pass', phase: 'Failed', parallel: true },
  ])('$name', async ({ phase, parallel }) => {
    // Prepare: stateful_set_control.go processReplica deletes a terminal pod and returns — "a new
    // pod should be generated on the next sync"; the pod strategy gives a terminal pod no grace.
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { replicas: 2, parallel }));
    await w.clock.advance(20_000);
    w.controllers.stop();
    const before = w.store.mustGet('Pod', NS, 'pd-0');
    w.store.update('Pod', { ...before, status: { ...before.status, phase } }, { subresource: 'status' });
    const pass = (): void => {
      const set = w.sts('pd');
      const pair = syncRevisions(w.store, set, listRevisions(w.store, set));
      updateStatefulSet({ store: w.store, set, spec: statefulSetSpec(set), pods: w.pods(), pair, nowMs: w.clock.nowMs() });
    };

    // Act
    pass();
    const afterFirst = w.store.get('Pod', NS, 'pd-0');
    pass();

    // Assess
    expect(afterFirst).toBeUndefined();
    expect(w.store.mustGet('Pod', NS, 'pd-0').metadata.uid).not.toBe(before.metadata.uid);
  });

  it('a Failed pod is deleted and recreated under the same name', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { replicas: 1 }));
    await w.clock.advance(6000);
    const before = w.store.mustGet('Pod', NS, 'pd-0');

    // Act
    w.store.update('Pod', { ...before, status: { ...before.status, phase: 'Failed' } }, { subresource: 'status' });
    await w.clock.advance(10_000);

    // Assess
    const after = w.store.mustGet('Pod', NS, 'pd-0');
    expect(after.metadata.uid).not.toBe(before.metadata.uid);
    expect(after.status.phase).toBe('Running');
  });

  it('minReadySeconds holds the next ordinal and availableReplicas until the pod has been ready that long', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('StatefulSet', statefulSet('pd', { replicas: 2, minReadySeconds: 10 }));
    await w.clock.advance(6000);
    const early = w.sts('pd').status;
    await w.clock.advance(20_000);

    // Assess
    expect(early).toMatchObject({ readyReplicas: 1, availableReplicas: 0 });
    expect(w.log.filter((e) => e.what.startsWith('create'))).toEqual([
      { atMs: 0, what: 'create pd-0' },
      { atMs: 15_000, what: 'create pd-1' },
    ]);
  });
});

describe('StatefulSet controller: pods and claims', () => {
  it('a pod carries its identity: labels, hostname/subdomain, owner reference, claim volume', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('StatefulSet', statefulSet('pd', { replicas: 2 }));
    await w.clock.advance(12_000);

    // Assess
    const s = w.sts('pd');
    const pod = w.store.mustGet('Pod', NS, 'pd-1');
    expect(pod.metadata.labels).toEqual({
      app: 'pd',
      'controller-revision-hash': s.status.updateRevision,
      'statefulset.kubernetes.io/pod-name': 'pd-1',
      'apps.kubernetes.io/pod-index': '1',
    });
    expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'pd', uid: s.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(pod.spec).toMatchObject({ hostname: 'pd-1', subdomain: 'pd-peer', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-pd-1' } }] });
  });

  it('claims are named <template>-<set>-<ordinal>, carry the selector labels and are Bound', async () => {
    // Prepare
    const w = world();

    // Act
    w.store.create('StatefulSet', statefulSet('pd', { parallel: true }));
    await w.clock.advance(1000);

    // Assess
    const claims = w.store.list('PersistentVolumeClaim', NS);
    expect(claims.map((c) => [c.metadata.name, c.metadata.labels, c.status?.phase, c.spec.volumeName])).toEqual(
      claims.map((c, i) => [`data-pd-${i}`, { app: 'pd' }, 'Bound', `pvc-${c.metadata.uid}`]),
    );
  });
});

describe('StatefulSet controller: revisions and updates', () => {
  it('a rolling update with partition 2 on 3 replicas updates only pod 2', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { partition: 2 }));
    await w.clock.advance(20_000);
    const oldRevision = w.sts('pd').status.currentRevision;

    // Act
    w.setTemplateImage('pd', 'pingcap/pd:v8.5.0');
    await w.clock.advance(30_000);

    // Assess
    const s = w.sts('pd');
    expect(w.pods().map((p) => [p.metadata.name, revisionOf(p)])).toEqual([
      ['pd-0', oldRevision],
      ['pd-1', oldRevision],
      ['pd-2', s.status.updateRevision],
    ]);
    expect(s.status).toMatchObject({ currentRevision: oldRevision, currentReplicas: 2, updatedReplicas: 1, readyReplicas: 3 });
  });

  it.each([
    { name: 'partition 0 updates 2, 1, 0 in that order, each after the previous is back Running and Ready', parallel: false },
    { name: 'the rolling update goes one pod at a time under Parallel too', parallel: true },
  ])('$name', async ({ parallel }) => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { parallel }));
    await w.clock.advance(20_000);
    w.log.length = 0;
    const t0 = w.sinceMs();

    // Act
    w.setTemplateImage('pd', 'pingcap/pd:v8.5.0');
    await w.clock.advance(30_000);

    // Assess
    expect(w.log.filter((e) => !e.what.startsWith('gone')).map((e) => ({ ...e, atMs: e.atMs - t0 }))).toEqual([
      { atMs: 0, what: 'delete pd-2' },
      { atMs: 1000, what: 'create pd-2' },
      { atMs: 6000, what: 'delete pd-1' },
      { atMs: 7000, what: 'create pd-1' },
      { atMs: 12_000, what: 'delete pd-0' },
      { atMs: 13_000, what: 'create pd-0' },
    ]);
    const s = w.sts('pd');
    expect(s.status.currentRevision).toBe(s.status.updateRevision);
    expect(w.pods().every((p) => revisionOf(p) === s.status.updateRevision && p.spec.containers[0].image === 'pingcap/pd:v8.5.0')).toBe(true);
  });

  it('a template that returns to an old value reuses its revision with a bumped revision number', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { replicas: 1 }));
    await w.clock.advance(7000);
    const first = w.sts('pd').status.updateRevision;
    w.setTemplateImage('pd', 'pingcap/pd:v8.5.0');
    await w.clock.advance(7000);
    const second = w.sts('pd').status.updateRevision;

    // Act
    w.setTemplateImage('pd', 'pingcap/pd:v8.1.0');
    await w.clock.advance(7000);

    // Assess
    const revisions = w.store.list('ControllerRevision', NS);
    expect(w.sts('pd').status.updateRevision).toBe(first);
    expect(second).not.toBe(first);
    expect(revisions.map((r) => [r.metadata.name, r.revision]).sort()).toEqual([[first, 3], [second, 2]].sort());
    expect(first).toMatch(/^pd-[bcdfghjklmnpqrstvwxz2456789]+$/);
    const stored = revisions.find((r) => r.metadata.name === first);
    // The revision holds the template as stored, i.e. with the API server's defaults applied.
    expect(stored?.data).toEqual({ spec: { template: { ...w.sts('pd').spec.template, $patch: 'replace' } } });
    expect(stored?.data).toMatchObject({ spec: { template: statefulSet('pd').spec.template } });
  });

  it('revisionHistoryLimit prunes the oldest revisions no pod uses', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { replicas: 1, historyLimit: 1 }));
    await w.clock.advance(7000);
    const names: string[] = [w.sts('pd').status.updateRevision];

    // Act
    for (const version of ['v8.2.0', 'v8.3.0', 'v8.4.0']) {
      w.setTemplateImage('pd', `pingcap/pd:${version}`);
      await w.clock.advance(7000);
      names.push(w.sts('pd').status.updateRevision);
    }

    // Assess
    expect(w.store.list('ControllerRevision', NS).map((r) => r.metadata.name).sort()).toEqual([names[2], names[3]].sort());
  });

  it('OnDelete leaves pods alone until one is deleted, which comes back at the update revision', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { onDelete: true }));
    await w.clock.advance(20_000);
    const oldRevision = w.sts('pd').status.currentRevision;
    w.setTemplateImage('pd', 'pingcap/pd:v8.5.0');
    await w.clock.advance(60_000);
    const untouched = w.pods().map(revisionOf);

    // Act
    w.store.delete('Pod', NS, 'pd-1');
    await w.clock.advance(10_000);

    // Assess
    const s = w.sts('pd');
    expect(untouched).toEqual([oldRevision, oldRevision, oldRevision]);
    expect(w.pods().map(revisionOf)).toEqual([oldRevision, s.status.updateRevision, oldRevision]);
    expect(s.status).toMatchObject({ currentRevision: oldRevision, currentReplicas: 2, updatedReplicas: 1 });
  });
});

describe('StatefulSet controller: faults and deletion', () => {
  it('a pod whose process is down makes readyReplicas drop, and recover when it heals', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd'));
    await w.clock.advance(20_000);

    // Act
    w.controllers.kubelet.setProcessDown(NS, 'pd-1', true);
    await w.clock.advance(1000);
    const down = w.sts('pd').status.readyReplicas;
    w.controllers.kubelet.setProcessDown(NS, 'pd-1', false);
    await w.clock.advance(1000);

    // Assess
    expect(down).toBe(2);
    expect(w.sts('pd').status.readyReplicas).toBe(3);
  });

  it('deleting the set in the background collects its pods and keeps its claims', async () => {
    // Prepare
    const w = world();
    const gc = new GarbageCollector(w.store);
    w.store.create('StatefulSet', statefulSet('pd'));
    await w.clock.advance(20_000);

    // Act
    w.store.delete('StatefulSet', NS, 'pd', { propagationPolicy: 'Background' });
    await w.clock.advance(5000);

    // Assess
    gc.stop();
    expect(w.pods()).toEqual([]);
    expect(w.store.list('PersistentVolumeClaim', NS).map((c) => c.metadata.name)).toEqual(['data-pd-0', 'data-pd-1', 'data-pd-2']);
  });

  it('a set being deleted creates nothing, not even a pod a user deleted', async () => {
    // Prepare
    const w = world();
    w.store.create('StatefulSet', statefulSet('pd', { replicas: 2 }));
    await w.clock.advance(12_000);
    // Orphan propagation without a garbage collector: the set stays with its deletionTimestamp.
    w.store.delete('StatefulSet', NS, 'pd', { propagationPolicy: 'Orphan' });

    // Act
    w.store.delete('Pod', NS, 'pd-1');
    await w.clock.advance(10_000);

    // Assess
    expect(w.pods().map((p) => p.metadata.name)).toEqual(['pd-0']);
  });
});
