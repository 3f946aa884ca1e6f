/**
 * The simulated batch/v1 Job controller against Kubernetes' pkg/controller/job behaviour: pod
 * naming and ownership, restartPolicy Never pods running to Succeeded/Failed, backoffLimit with the
 * 10 s doubling pod back-off, activeDeadlineSeconds, a deleted pod counted as failed, deletion
 * through the garbage collector, the server's defaults and validation, and the printed table.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import { GarbageCollector } from '../../lib/sim/gc.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { JOB_PRINTER } from '../../lib/sim/printers/job.js';
import type { ContainerRuntime, SimProcess } from '../../lib/sim/runtime.js';
import { ObjectStore } from '../../lib/sim/store.js';

const START_MS = Date.UTC(2026, 0, 1);
const NS = 'demo';

/** Images `exit/<code>/<seconds>`: a process that exits with <code> after <seconds>. */
function exitingRuntime(clock: VirtualClock): ContainerRuntime {
  return {
    start(pod, hooks): SimProcess | undefined {
      const image = ((pod.spec?.containers ?? []) as { name: string; image: string }[]).find((c) => c.name === hooks.container)?.image ?? '';
      const m = /^exit\/(\d+)\/(\d+)$/.exec(image);
      if (!m) return undefined;
      let exited = false;
      let stopped = false;
      clock.setTimer(() => {
        if (stopped) return;
        exited = true;
        hooks.onChange();
      }, Number(m[2]) * 1000);
      return { isReady: () => true, exitReason: () => (exited ? { reason: Number(m[1]) === 0 ? 'Completed' : 'Error', exitCode: Number(m[1]) } : undefined), stop: () => void (stopped = true) };
    },
  };
}

function world() {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: NS } });
  const controllers = new SimControllers(store, { podStartupMs: 1000, nodes: 1, runtimes: [exitingRuntime(clock)] });
  const gc = new GarbageCollector(store);
  const created: number[] = [];
  store.subscribe((ev) => {
    if (ev.kind === 'Pod' && ev.type === 'ADDED') created.push((clock.nowMs() - START_MS) / 1000);
  });
  controllers.start();
  const job = (name = 'backup-b1'): KubeObject => store.mustGet('Job', NS, name);
  return { clock, store, gc, created, job };
}

function newJob(image: string, spec: Record<string, unknown> = {}, name = 'backup-b1'): KubeObject {
  return { metadata: { name, namespace: NS }, spec: { backoffLimit: 0, ...spec, template: { metadata: { labels: { app: 'backup' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'backup', image }] } } } };
}

const conditionTypes = (job: KubeObject): string[] => ((job.status?.conditions ?? []) as { type: string }[]).map((c) => c.type);

describe('Job controller', () => {
  it('creates <job>-<5 chars> owned by the Job, labelled with its uid and name, and holding the tracking finalizer', async () => {
    // Prepare
    const w = world();

    // Act
    const job = w.store.create('Job', newJob('exit/0/60'));
    await w.clock.advance(2000);

    // Assert
    const [pod, ...others] = w.store.list('Pod', NS);
    expect(others).toEqual([]);
    expect(pod?.metadata.name).toMatch(/^backup-b1-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod?.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'Job', name: 'backup-b1', uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(pod?.metadata.labels).toEqual({ app: 'backup', 'batch.kubernetes.io/controller-uid': job.metadata.uid, 'batch.kubernetes.io/job-name': 'backup-b1', 'controller-uid': job.metadata.uid, 'job-name': 'backup-b1' });
    expect(pod?.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    expect(job.spec?.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': job.metadata.uid } });
    expect(w.job().status).toMatchObject({ active: 1, ready: 1, terminating: 0, startTime: '2026-01-01T00:00:00Z' });
  });

  it('a pod that exits 0 makes the Job Complete (SuccessCriteriaMet first), its pod Succeeded and released', async () => {
    // Prepare
    const w = world();
    w.store.create('Job', newJob('exit/0/60'));

    // Act
    await w.clock.advance(65_000);

    // Assert
    const [pod] = w.store.list('Pod', NS);
    expect(pod?.status?.phase).toBe('Succeeded');
    expect(pod?.metadata.finalizers).toBeUndefined();
    expect(conditionTypes(w.job())).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(w.job().status).toMatchObject({ succeeded: 1, completionTime: '2026-01-01T00:01:01Z', ready: 0 });
    expect(w.job().status?.active).toBeUndefined();
  });

  // backoffLimit n allows n+1 pods; each replacement waits 10 s × 2^(failures−1) after the last failure.
  it.each([
    { backoffLimit: 0, podsAt: [0] },
    { backoffLimit: 1, podsAt: [0, 16] },
    { backoffLimit: 3, podsAt: [0, 16, 42, 88] },
  ])('backoffLimit $backoffLimit: pods created at $podsAt s, then Failed BackoffLimitExceeded', async ({ backoffLimit, podsAt }) => {
    // Prepare
    const w = world();

    // Act: each pod starts 1 s after creation and exits 1 after 5 s.
    w.store.create('Job', newJob('exit/1/5', { backoffLimit }));
    await w.clock.advance(600_000);

    // Assert
    expect(w.created).toEqual(podsAt);
    expect(w.store.list('Pod', NS).map((p) => p.status?.phase)).toEqual(podsAt.map(() => 'Failed'));
    expect(conditionTypes(w.job())).toEqual(['FailureTarget', 'Failed']);
    expect(((w.job().status?.conditions ?? []) as { reason?: string; message?: string }[])[1]).toMatchObject({ reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    expect(w.job().status).toMatchObject({ failed: backoffLimit + 1 });
    expect(w.job().status?.completionTime).toBeUndefined();
  });

  it('activeDeadlineSeconds: the running pod is deleted and the Job fails with DeadlineExceeded', async () => {
    // Prepare
    const w = world();
    w.store.create('Job', newJob('exit/0/3600', { activeDeadlineSeconds: 30, backoffLimit: 6 }));

    // Act
    await w.clock.advance(40_000);

    // Assert
    expect(w.store.list('Pod', NS)).toEqual([]);
    expect(conditionTypes(w.job())).toEqual(['FailureTarget', 'Failed']);
    expect(((w.job().status?.conditions ?? []) as { reason?: string }[]).map((c) => c.reason)).toEqual(['DeadlineExceeded', 'DeadlineExceeded']);
  });

  it('a pod deleted while running (a drain, a kill) counts as failed: with backoffLimit 0 the Job fails', async () => {
    // Prepare
    const w = world();
    w.store.create('Job', newJob('exit/0/3600'));
    await w.clock.advance(5000);
    const [pod] = w.store.list('Pod', NS);

    // Act
    w.store.delete('Pod', NS, pod?.metadata.name ?? '');
    await w.clock.advance(5000);

    // Assert
    expect(w.store.list('Pod', NS)).toEqual([]);
    expect(w.job().status).toMatchObject({ failed: 1 });
    expect(conditionTypes(w.job())).toEqual(['FailureTarget', 'Failed']);
  });

  it('deleting the Job removes its pods through the garbage collector, running or finished', async () => {
    // Prepare
    const w = world();
    w.store.create('Job', newJob('exit/0/3600'));
    w.store.create('Job', newJob('exit/0/1', {}, 'done'));
    await w.clock.advance(5000);

    // Act
    w.store.delete('Job', NS, 'backup-b1', { propagationPolicy: 'Foreground' });
    w.store.delete('Job', NS, 'done', { propagationPolicy: 'Background' });
    await w.clock.advance(10_000);

    // Assert
    expect(w.store.list('Pod', NS)).toEqual([]);
    expect(w.store.list('Job', NS)).toEqual([]);
  });

  it.each([
    { name: 'restartPolicy Always', spec: { template: { spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'x' }] } } }, message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"' },
    { name: 'no restartPolicy (defaulted to Always)', spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } }, message: 'Unsupported value: "Always"' },
    { name: 'negative backoffLimit', spec: { backoffLimit: -1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } }, message: 'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0' },
  ])('the API server refuses a Job with $name', ({ spec, message }) => {
    // Prepare
    const w = world();

    // Act
    const create = (): unknown => w.store.create('Job', { metadata: { name: 'bad', namespace: NS }, spec });

    // Assert
    expect(create).toThrow(message);
  });

  it('the server defaults completions, parallelism, backoffLimit, completionMode, suspend and podReplacementPolicy', () => {
    // Act
    const w = world();
    const job = w.store.create('Job', { metadata: { name: 'j', namespace: NS }, spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'x' }] } } } });

    // Assert
    expect(job.spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed' });
  });
  it.each([
    { name: 'backoffLimit 2: fails at the second restart (the first is immediate, the second after the kubelet\'s 10 s back-off), its one pod deleted and counted', backoffLimit: 2, beforeS: 19, afterS: 23 },
    { name: 'backoffLimit 0: fails at the first restart', backoffLimit: 0, beforeS: 5, afterS: 8 },
  ])('restartPolicy OnFailure — $name (pastBackoffLimitOnFailure)', async ({ backoffLimit, beforeS, afterS }) => {
    // Prepare: a container that exits 1 after 5 s, restarted in place by the kubelet.
    const w = world();
    const job = newJob('exit/1/5', { backoffLimit });
    (job.spec as { template: { spec: { restartPolicy: string } } }).template.spec.restartPolicy = 'OnFailure';
    w.store.create('Job', job);

    // Act
    await w.clock.advance(beforeS * 1000);
    const before = conditionTypes(w.job());
    await w.clock.advance((afterS - beforeS) * 1000);

    // Assert: not failed while restarts are below the limit; then Failed BackoffLimitExceeded with no pod left and no new pod.
    expect(before).not.toContain('Failed');
    expect(conditionTypes(w.job())).toEqual(['FailureTarget', 'Failed']);
    expect(((w.job().status?.conditions ?? []) as { reason?: string }[]).map((c) => c.reason)).toEqual(['BackoffLimitExceeded', 'BackoffLimitExceeded']);
    expect(w.job().status?.failed).toBe(1);
    expect(w.created).toHaveLength(1);
  });
});

describe('printJob', () => {
  const NOW_MS = Date.UTC(2026, 0, 1, 1, 0, 0);
  const at = (s: number): string => new Date(NOW_MS - s * 1000).toISOString().replace('.000Z', 'Z');
  const job = (status: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'backup-b1', creationTimestamp: at(600), ...extra }, spec: { completions: 1, parallelism: 1, template: { spec: { containers: [{ name: 'backup', image: 'pingcap/tidb-backup-manager:v1.6.6' }] } } }, status });
  const cond = (type: string) => ({ conditions: [{ type, status: 'True' }] });

  it.each([
    { name: 'running', j: job({ startTime: at(300), active: 1 }), want: ['backup-b1', 'Running', '0/1', '5m', '10m'] },
    { name: 'complete', j: job({ startTime: at(300), completionTime: at(240), succeeded: 1, ...cond('Complete') }), want: ['backup-b1', 'Complete', '1/1', '60s', '10m'] },
    { name: 'failed', j: job({ startTime: at(300), failed: 1, ...cond('Failed') }), want: ['backup-b1', 'Failed', '0/1', '5m', '10m'] },
    { name: 'failing', j: job({ startTime: at(300), ...cond('FailureTarget') }), want: ['backup-b1', 'FailureTarget', '0/1', '5m', '10m'] },
    { name: 'terminating', j: job({ startTime: at(300) }, { deletionTimestamp: at(1) }), want: ['backup-b1', 'Terminating', '0/1', '5m', '10m'] },
    { name: 'not started', j: job({}), want: ['backup-b1', 'Running', '0/1', '', '10m'] },
  ])('$name: $want', ({ j, want }) => {
    // Assert
    expect(JOB_PRINTER.columns.filter((c) => !c.priority).map((c) => c.name)).toEqual(['Name', 'Status', 'Completions', 'Duration', 'Age']);
    expect(JOB_PRINTER.cells(j, NOW_MS).slice(0, 5)).toEqual(want);
  });
});
