/**
 * Every scenario in test/scenarios runs through the real stack (exporter, handlers, engine, DynamoDB
 * state, simulated world) on a virtual clock, passes, breaks no invariant, and shows the behaviour
 * its story is about in the recorded actions.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import type { ActionRecord, ScenarioReport } from '../../lib/local/scenario/report.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';
import { DEFAULT_STEP_CONFIG } from '../../lib/platform/config.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'test', 'scenarios');

async function run(file: string, seed?: number): Promise<ScenarioReport> {
  const parsed = parseScenario(readFileSync(join(DIR, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  const stack = await SimStack.start(parsed.scenario, seed ?? parsed.scenario.seed);
  try {
    return await runScenario(stack, createProgress({ quiet: true }));
  } finally {
    await stack.stop();
  }
}

const byReconciler = (r: ScenarioReport): ActionRecord[] => r.actions.filter((a) => a.actor === 'reconciler');
const events = (r: ScenarioReport, reason: string): ActionRecord[] =>
  r.actions.filter((a) => a.verb === 'event' && (a.args as { reason?: string } | undefined)?.reason === reason);

describe('scenario files', () => {
  it.each(readdirSync(DIR).filter((f) => f.endsWith('.yaml')).map((file) => ({ name: file, file })))(
    '$name passes with no invariant violation',
    async ({ file }) => {
      const report = await run(file);
      expect(report.timeline.filter((t) => !t.ok)).toEqual([]);
      expect(report.invariants.flatMap((i) => i.violations)).toEqual([]);
      expect(report.invariants.length).toBeGreaterThanOrEqual(5);
      expect(report.passed).toBe(true);
    },
  );
});

describe('what each story shows', () => {
  it('failover: the member is marked at its deadline, not at a sweep, then deleted by id and replaced', async () => {
    const report = await run('pd-failover.yaml');
    const unhealthy = events(report, 'PDMemberUnhealthy')[0];
    const marked = events(report, 'Unhealthy')[0];
    const deleted = byReconciler(report).find((a) => a.verb === 'pd.deleteMember' && 'id' in ((a.args ?? {}) as object));
    expect(unhealthy && marked && deleted).toBeTruthy();
    const lateMs = (marked?.atMs ?? 0) - (unhealthy?.atMs ?? 0) - 5 * 60_000;
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(lateMs).toBeLessThan(2_000);
    expect((deleted?.atMs ?? 0) - (marked?.atMs ?? 0)).toBeLessThan(10_000);
  });

  it('scale-in: leadership leaves the member being removed before it is deleted from PD', async () => {
    const report = await run('pd-scale-out-in.yaml');
    const acts = byReconciler(report);
    const firstDelete = acts.findIndex((a) => a.verb === 'pd.deleteMember');
    const transfer = acts.findIndex((a) => a.verb === 'pd.transferLeader');
    expect(transfer).toBeGreaterThanOrEqual(0);
    expect(transfer).toBeLessThan(firstDelete);
    const deferred = acts.filter((a) => a.verb === 'patch' && a.kind === 'PersistentVolumeClaim');
    expect(deferred.length).toBe(2);
  });

  it('rolling upgrade: the leader is moved off before its pod restarts, one pod at a time', async () => {
    const report = await run('pd-rolling-upgrade.yaml');
    const acts = byReconciler(report);
    expect(acts.some((a) => a.verb === 'pd.transferLeader')).toBe(true);
    const partitions = acts
      .filter((a) => a.verb === 'update' && a.kind === 'StatefulSet')
      .map((a) => (a.object as { spec: { updateStrategy: { rollingUpdate?: { partition?: number } } } }).spec.updateStrategy.rollingUpdate?.partition);
    expect(partitions).toEqual(expect.arrayContaining([2, 1, 0]));
  });

  it('force upgrade: PD comes back from an all-crashing image and the annotation is removed afterwards', async () => {
    const report = await run('pd-force-upgrade.yaml');
    expect(events(report, 'ForceUpgradeAnnotationRemoved')).toHaveLength(1);
    const annotations = (report.final.tidbcluster as { metadata: { annotations?: Record<string, string> } } | null)?.metadata.annotations ?? {};
    expect(annotations['tidb.pingcap.com/force-upgrade']).toBeUndefined();
  });

  it('pause: while paused the reconciler writes only status', async () => {
    const report = await run('pd-pause.yaml');
    const pausedAt = report.actions.find((a) => a.actor === 'timeline' && JSON.stringify(a.object ?? {}).includes('"paused":true'))?.atMs ?? -1;
    const resumedAt = report.actions.find((a) => a.actor === 'timeline' && a.atMs > pausedAt && JSON.stringify(a.object ?? {}).includes('"paused":false'))?.atMs ?? -1;
    expect(pausedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeGreaterThan(pausedAt);
    const during = byReconciler(report).filter((a) => a.atMs > pausedAt && a.atMs < resumedAt);
    expect(during.filter((a) => a.verb !== 'updateStatus')).toEqual([]);
  });

  it('invalid spec: one FailedValidation event, nothing created, no retries', async () => {
    const report = await run('pd-invalid-spec.yaml');
    expect(events(report, 'FailedValidation')).toHaveLength(1);
    expect(byReconciler(report).filter((a) => a.verb === 'create' || a.verb.startsWith('pd.'))).toEqual([]);
    expect(report.steps).toBeLessThanOrEqual(3);
  });

  it('under faults: crashed steps leave their first write and are retried, and the cluster still gets Ready', async () => {
    const report = await run('pd-create-under-faults.yaml');
    const creates = byReconciler(report).filter((a) => a.verb === 'create');
    // Three invocations die after one write each, so the first three creates are minutes apart.
    const firstThree = creates.slice(0, 3).map((a) => a.atMs);
    expect(new Set(firstThree).size).toBe(3);
    expect(creates.map((a) => a.name)).toEqual(expect.arrayContaining(['basic-discovery', 'basic-pd', 'basic-pd-peer']));
    expect(report.passed).toBe(true);
  });

  it('a step crash during a scale-out costs at most its lease: triggers meanwhile arm its expiry wake-up', async () => {
    const { stallMs } = await crashStall('pd-scale-out-step-crash.yaml');
    // The crash really stalled the scale-out, by no more than the lease plus one step (10 s: the
    // step itself and the queue's whole-second delay), far from the 370 s visibility timeout.
    expect(stallMs).toBeGreaterThan(60_000);
    expect(stallMs).toBeLessThanOrEqual(DEFAULT_STEP_CONFIG.leaseForMs + 10_000);
  });

  it('a step crash during a scale-out with no other trigger costs at most its lease: its own record comes back when the lease ends', async () => {
    const { stallMs, crashed } = await crashStall('pd-scale-out-step-crash-alone.yaml');
    // The dead step's write never reached the API server, and nothing wrote during its lease.
    const patchAt = crashed.timeline.find((t) => t.verb === 'patch')?.startMs ?? 0;
    const firstWrite = byReconciler(crashed).find((a) => a.atMs >= patchAt);
    expect((firstWrite?.atMs ?? 0) - patchAt).toBeGreaterThanOrEqual(DEFAULT_STEP_CONFIG.leaseForMs);
    expect(stallMs).toBeGreaterThan(60_000);
    expect(stallMs).toBeLessThanOrEqual(DEFAULT_STEP_CONFIG.leaseForMs + 10_000);
  });

  it('the same file and seed give the same report', async () => {
    const strip = (r: ScenarioReport): string => JSON.stringify({ ...r, wallMs: 0 });
    expect(strip(await run('pd-create-ready.yaml', 7))).toBe(strip(await run('pd-create-ready.yaml', 7)));
  });
});

describe('tidb-reconciler simulate exit codes', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin', 'tidb-reconciler.js'), 'simulate', ...args], { encoding: 'utf8', timeout: 120_000 });

  it('an invalid file exits 2 with one line naming the field, and runs nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: bad\ncluster: {metadata: {name: basic}, spec: {}}\ntimeline:\n  - fault: {kind: pod-dwn, pod: basic-pd-0}\n');
    const r = cli([file]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('timeline[0].fault.kind');
    expect(r.stdout).toBe('');
  });

  it('a waitFor that times out exits 1 and the report says which entry failed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    const file = join(dir, 'late.yaml');
    const text = readFileSync(join(DIR, 'pd-create-ready.yaml'), 'utf8').replace(/timeline:[\s\S]*$/, 'timeline:\n  - waitFor: ready\n    timeout: 3s\n');
    writeFileSync(file, text);
    const r = cli([file, '--quiet']);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as ScenarioReport;
    expect(report.passed).toBe(false);
    expect(report.timeline[0]).toMatchObject({ index: 0, verb: 'waitFor', ok: false, endMs: 3000 });
  });
});

/**
 * Runs a crash story and its twin without the `step-crash` fault on the file's seed: the stall is the
 * difference of their convergence times (from the patch to the end of the timeline).
 */
async function crashStall(file: string): Promise<{ stallMs: number; crashed: ScenarioReport }> {
  const parsed = parseScenario(readFileSync(join(DIR, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  const timeline = parsed.scenario.timeline.filter((e) => !(e.verb === 'fault' && e.fault.kind === 'step-crash'));
  const converge = async (scenario: typeof parsed.scenario): Promise<{ ms: number; report: ScenarioReport }> => {
    const stack = await SimStack.start(scenario, scenario.seed);
    try {
      const report = await runScenario(stack, createProgress({ quiet: true }));
      expect(report.passed).toBe(true);
      const patch = report.timeline.find((t) => t.verb === 'patch');
      return { ms: (report.timeline[report.timeline.length - 1]?.endMs ?? 0) - (patch?.startMs ?? 0), report };
    } finally {
      await stack.stop();
    }
  };
  const crashed = await converge(parsed.scenario);
  const faultFree = await converge({ ...parsed.scenario, timeline });
  return { stallMs: crashed.ms - faultFree.ms, crashed: crashed.report };
}
