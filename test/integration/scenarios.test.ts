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

/** Runs `file` with its cluster's PD spec changed (e.g. another maxFailoverCount or replicas). */
async function runWithPd(file: string, seed: number, pd: Record<string, unknown>): Promise<ScenarioReport> {
  const parsed = parseScenario(readFileSync(join(DIR, file), 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  const { cluster } = parsed.scenario;
  const spec = { ...cluster.spec, pd: { ...(cluster.spec.pd as Record<string, unknown>), ...pd } } as typeof cluster.spec;
  const stack = await SimStack.start({ ...parsed.scenario, cluster: { ...cluster, spec } }, seed);
  try {
    return await runScenario(stack, createProgress({ quiet: true }));
  } finally {
    await stack.stop();
  }
}

/** When the `n`-th (0-based) timeline entry of `verb` ended. */
const entryAtMs = (r: ScenarioReport, verb: string, n: number): number => r.timeline.filter((t) => t.verb === verb)[n]?.endMs ?? Number.NaN;
/** The Ready condition of every status the reconciler wrote, with when. */
const readyWrites = (r: ScenarioReport) =>
  byReconciler(r)
    .filter((a) => a.verb === 'updateStatus')
    .map((a) => ({ atMs: a.atMs, ready: (a.object as { status?: { conditions?: { type: string; status: string; reason: string }[] } }).status?.conditions?.find((c) => c.type === 'Ready') }));
const partitionWrites = (r: ScenarioReport) =>
  byReconciler(r)
    .filter((a) => a.verb === 'update' && a.kind === 'StatefulSet')
    .map((a) => {
      const { spec } = a.object as { spec: { replicas: number; updateStrategy: { rollingUpdate?: { partition?: number } } } };
      const partition = spec.updateStrategy.rollingUpdate?.partition ?? 0;
      return { atMs: a.atMs, partition, rolls: partition < spec.replicas };
    });

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

  it('outage: Ready is never True while PD cannot be read, with PDUnreachable then PDQuorumLost, and True after each heal', async () => {
    const report = await run('pd-outage-ready.yaml');
    const outages = [
      { from: entryAtMs(report, 'fault', 2), to: entryAtMs(report, 'heal', 2), reason: 'PDUnreachable' },
      { from: entryAtMs(report, 'fault', 4), to: entryAtMs(report, 'heal', 4), reason: 'PDQuorumLost' },
    ];
    for (const { from, to, reason } of outages) {
      const during = readyWrites(report).filter((w) => w.atMs > from && w.atMs <= to);
      expect(during.map((w) => w.ready?.status)).not.toContain('True');
      expect(during.map((w) => w.ready?.reason)).toContain(reason);
      // The truth is reported promptly, not at the next sweep.
      const first = during.find((w) => w.ready?.reason === reason);
      expect((first?.atMs ?? Number.POSITIVE_INFINITY) - from).toBeLessThan(10_000);
      // And Ready comes back within seconds of the heal, not after a failure backoff or a sweep.
      const back = readyWrites(report).find((w) => w.atMs > to && w.ready?.status === 'True');
      expect((back?.atMs ?? Number.POSITIVE_INFINITY) - to).toBeLessThan(15_000);
    }
  });

  it('upgrade with a member down: waits with a PDQuorumAtRisk Warning, restarts nothing until it is back, then rolls', async () => {
    const report = await run('pd-upgrade-member-down.yaml');
    const downAt = entryAtMs(report, 'fault', 0);
    const healAt = entryAtMs(report, 'heal', 0);
    expect(events(report, 'PDQuorumAtRisk')).toHaveLength(1);
    const rolls = partitionWrites(report).filter((w) => w.atMs > downAt && w.rolls);
    expect(rolls.length).toBeGreaterThanOrEqual(3);
    expect(rolls.every((w) => w.atMs > healAt)).toBe(true);
    // Resumed by itself, within seconds of the member being back.
    expect((rolls[0]?.atMs ?? Number.POSITIVE_INFINITY) - healAt).toBeLessThan(15_000);
  });

  it('upgrade with a member down and failover on: rolls on only once failover has replaced the member', async () => {
    const report = await run('pd-upgrade-member-failover.yaml');
    expect(events(report, 'PDQuorumAtRisk')).toHaveLength(1);
    const deletedAt = byReconciler(report).find((a) => a.verb === 'pd.deleteMember' && 'id' in ((a.args ?? {}) as object))?.atMs ?? Number.NaN;
    const firstRoll = partitionWrites(report).find((w) => w.atMs > entryAtMs(report, 'fault', 0) && w.rolls);
    expect(firstRoll?.atMs).toBeGreaterThan(deletedAt);
    expect(firstRoll?.atMs).toBeLessThan(entryAtMs(report, 'heal', 0));
  });

  it.each([{ name: '1 replica', replicas: 1 }, { name: '3 replicas', replicas: 3 }])(
    'maxFailoverCount 0, $name: create→Ready within 1.2× the time with failover (status does not wait for the sweep)',
    async ({ replicas }) => {
      const without = await runWithPd('pd-create-ready-no-failover.yaml', 1, { replicas, maxFailoverCount: 0 });
      const withFailover = await runWithPd('pd-create-ready-no-failover.yaml', 1, { replicas, maxFailoverCount: 3 });
      expect(without.passed && withFailover.passed).toBe(true);
      expect(without.timeline[0]?.endMs ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(1.2 * (withFailover.timeline[0]?.endMs ?? 0));
    },
  );

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
