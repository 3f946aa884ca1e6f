/**
 * `tidb-reconciler plan` against a served simulated world (what `sim serve` runs) with the local
 * stack reconciling it: "nothing to do" at rest, the scale-out after a replicas patch, and not one
 * write request from the plan itself. Then `simulate --from-kubeconfig` rehearses that pending
 * scale-out on a twin of the same cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runPlan } from '../../lib/cli/plan.js';
import { runSimulate } from '../../lib/cli/simulate.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { startLocalStack, type LocalStack } from '../../lib/local/local-stack.js';
import { RealClock } from '../../lib/platform/clock.js';
import { silentLogger } from '../../lib/platform/logger.js';
import { writeSimKubeconfig } from '../../lib/sim/kubeconfig.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { TidbSimulation } from '../../lib/sim/tidb/simulation.js';
import { SimWorld } from '../../lib/sim/world.js';

const ROOT = join(import.meta.dirname, '..', '..');
const POD_STARTUP_MS = 300;

async function plan(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPlan(args, { env: {}, out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

let world: SimWorld;
let sim: TidbSimulation;
let stack: LocalStack | undefined;
let kubeconfig: string;

/** HTTP requests other than GET the API server has served so far. */
const writes = (): number => [...world.server.requestCounts].filter(([method]) => method !== 'GET').reduce((n, [, count]) => n + count, 0);

async function until(what: string, holds: () => boolean, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const cluster = (): KubeObject | undefined => world.store.get('TidbCluster', 'demo', 'basic');
const isReady = (): boolean => (cluster()?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');

beforeAll(async () => {
  sim = new TidbSimulation({ seed: 1, knobs: { podStartupMs: POD_STARTUP_MS } });
  world = await SimWorld.start({ clock: new RealClock(), podStartupMs: POD_STARTUP_MS, runtimes: [sim.runtime], random: sim.random, proxyRandom: sim.proxyRandom });
  sim.attach(world);
  kubeconfig = join(mkdtempSync(join(tmpdir(), 'plan-')), 'sim.kubeconfig');
  writeSimKubeconfig(kubeconfig, world.url);
  world.store.create('Namespace', { metadata: { name: 'demo' } });
  world.store.create('TidbCluster', parse(readFileSync(join(ROOT, 'test', 'fixtures', 'pd-tidbcluster.yaml'), 'utf8')) as KubeObject);
  stack = await startLocalStack({ kubeconfigPath: kubeconfig, logger: silentLogger });
  await until('the example is Ready', isReady);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  sim.stop();
  await world.stop();
});

describe('plan against a live cluster', () => {
  it('at rest, with the reconciler running, the next step has nothing to do, and planning writes nothing', async () => {
    // Prepare: give the reconciler a moment to settle after Ready (its last status write).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const before = writes();
    // Act
    const r = await plan(['--kubeconfig', kubeconfig, 'demo/basic']);
    // Assess
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^demo\/basic {3}\(PD: 3 member\(s\), leader basic-pd-\d\)\n {2}nothing to do\n {2}outcome: complete/);
    expect(writes()).toBe(before);
  });

  it('after a patch of spec.pd.replicas the next step scales PD out: the StatefulSet update, the status it would write, a wake-up; and nothing is written', async () => {
    // Prepare: the reconciler is stopped, so the change waits for the step the plan describes.
    await stack?.stop();
    stack = undefined;
    const tc = cluster();
    if (!tc) throw new Error('no TidbCluster');
    world.store.update('TidbCluster', { ...tc, spec: { ...tc.spec, pd: { ...tc.spec.pd, replicas: 5 } } });
    const before = writes();
    const stsBefore = world.store.get('StatefulSet', 'demo', 'basic-pd')?.spec?.replicas;
    // Act
    const r = await plan(['--kubeconfig', kubeconfig, '-n', 'demo']);
    const json = await plan(['--kubeconfig', kubeconfig, '-A', '--json']);
    // Assess
    expect(r.code).toBe(0);
    expect(r.out).toContain('  actions, in order:\n    1. update StatefulSet demo/basic-pd');
    expect(r.out).toContain('    status.pd.phase: "Normal" → "Scale"');
    expect(r.out).toMatch(/ {2}would wake: \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \(in \d+s\)/);
    const [planned] = JSON.parse(json.out) as { cluster: string; nothingToDo: boolean; actions: { kind: string; object?: { spec: { replicas: number } } }[] }[];
    expect(planned?.cluster).toBe('demo/basic');
    expect(planned?.nothingToDo).toBe(false);
    // As TiDB Operator: one member at a time.
    expect(planned?.actions.find((a) => a.kind === 'update')?.object?.spec.replicas).toBe(4);
    expect(writes()).toBe(before);
    expect(world.store.get('StatefulSet', 'demo', 'basic-pd')?.spec?.replicas).toBe(stsBefore);
  });

  it.each([
    { name: 'no kubeconfig', args: ['demo/basic'], want: '--kubeconfig is missing' },
    { name: 'a bad ref', args: ['--kubeconfig', 'k', 'basic'], want: 'cluster: "basic" is not <namespace>/<name>' },
    { name: 'a ref and -A', args: ['--kubeconfig', 'k', 'demo/basic', '-A'], want: 'not with a <namespace>/<name>' },
    { name: 'a kubeconfig that does not exist', args: ['--kubeconfig', join(tmpdir(), 'no-such.kubeconfig'), 'demo/basic'], want: 'ENOENT' },
  ])('usage errors exit 2 naming the problem: $name', async ({ args, want }) => {
    const r = await plan(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(want);
  });

  it('a cluster that does not exist exits 1, saying so', async () => {
    const r = await plan(['--kubeconfig', kubeconfig, 'demo/other']);
    expect(r).toEqual({ code: 1, out: '', err: 'tidb-reconciler plan: demo/other: TidbCluster not found' });
  });
});

describe('simulate --from-kubeconfig: a twin of the live cluster', () => {
  const scenario = (lines: string[]): { file: string; out: string } => {
    const dir = mkdtempSync(join(tmpdir(), 'twin-'));
    const file = join(dir, 'rehearse.yaml');
    writeFileSync(file, [...lines, ''].join('\n'));
    return { file, out: join(dir, 'report.json') };
  };
  const REHEARSAL = ['name: rehearse-scale-out', 'timeline:', '  - waitFor: ready', '    timeout: 10m', '  - patch: {spec: {pd: {replicas: 5}}}', '  - waitFor:', '      jsonpath: $.status.pd.statefulSet.readyReplicas', '      equals: 5', '    timeout: 10m', '  - waitFor: ready'];

  it('a cluster with a change the reconciler has not made yet (spec 5, StatefulSet 3) is refused, saying why', async () => {
    // Prepare: the live cluster as the previous test left it.
    const { file, out } = scenario(REHEARSAL);
    // Act
    const code = await runSimulate([file, '--from-kubeconfig', kubeconfig, 'demo/basic', '--quiet', '--out', out]);
    // Assess: an invalid start, like an invalid file: nothing runs.
    expect(code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('carries the TidbCluster and what it owns, rehearses a scale-out on the twin, and writes nothing to the live cluster', async () => {
    // Prepare: the live cluster back at rest (spec and StatefulSet at 3).
    const tc = cluster();
    if (!tc) throw new Error('no TidbCluster');
    world.store.update('TidbCluster', { ...tc, spec: { ...tc.spec, pd: { ...tc.spec.pd, replicas: 3 } } });
    const { file, out } = scenario(REHEARSAL);
    const livePvs = world.store.list('PersistentVolume').map((pv) => pv.metadata.name).sort();
    const before = writes();
    // Act
    const code = await runSimulate([file, '--from-kubeconfig', kubeconfig, 'demo/basic', '--quiet', '--out', out]);
    // Assess
    const report = JSON.parse(readFileSync(out, 'utf8')) as ScenarioReport;
    expect(report.timeline.filter((t) => !t.ok)).toEqual([]);
    expect(code).toBe(0);
    const reconciler = report.actions.filter((a) => a.actor === 'reconciler');
    // Everything the live cluster had was carried: the reconciler created none of it again.
    expect(reconciler.filter((a) => a.verb === 'create').map((a) => a.kind)).toEqual([]);
    expect(reconciler.some((a) => a.verb === 'update' && a.kind === 'StatefulSet')).toBe(true);
    const twinPvs = Object.keys(report.final.objects).filter((k) => k.startsWith('PersistentVolume/')).map((k) => k.slice('PersistentVolume/'.length));
    expect(twinPvs).toEqual(expect.arrayContaining(livePvs));
    expect(twinPvs).toHaveLength(livePvs.length + 2);
    expect(writes()).toBe(before);
    expect(world.store.get('StatefulSet', 'demo', 'basic-pd')?.spec?.replicas).toBe(3);
  }, 120_000);
});
