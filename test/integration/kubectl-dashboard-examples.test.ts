/**
 * TiDB Operator's TidbDashboard and TidbNGMonitoring examples (release-1.6 `examples/basic/` and
 * `examples/tngm/`, copied unchanged into test/fixtures/tidb-operator-examples/) as a user runs them:
 * `tidb-reconciler sim serve`, `tidb-reconciler start` against its kubeconfig, and `kubectl apply -f`
 * of every document of each example. Each example's TidbCluster becomes Ready and its dashboard or
 * ng-monitoring StatefulSet runs a Ready pod, with the status v1 reports; `kubectl get td,tngm`
 * finds them by their short names.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SimServe, startSimServe } from '../support/sim-serve.js';
import { prebuiltCli } from '../support/prebuilt-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'tidb-operator-examples');
let sim: SimServe;
let reconciler: ChildProcess;
let output = '';

beforeAll(async () => {
  sim = await startSimServe('200ms');
  // The local stack, as `tidb-reconciler start --kubeconfig` runs it: applies nothing, reconciles what kubectl creates.
  reconciler = spawn(prebuiltCli().command, [...prebuiltCli().args, 'start', '--kubeconfig', sim.kubeconfigPath], { cwd: mkdtempSync(join(tmpdir(), 'start-')) });
  reconciler.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  reconciler.stderr?.on('data', (d: Buffer) => (output += d.toString()));
}, 90000);

afterAll(async () => {
  if (reconciler.exitCode === null) {
    const exited = new Promise((resolve) => reconciler.once('exit', resolve));
    reconciler.kill('SIGINT');
    await exited;
  }
  await sim.stop();
}, 60000);

async function eventually<T>(read: () => Promise<T>, want: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!want(last)) {
    if (Date.now() > end) throw new Error(`not reached; last value: ${JSON.stringify(last)}\nreconciler output (tail): ${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 1000));
    last = await read();
  }
  return last;
}

const isReady = (tc: Record<string, unknown>): boolean =>
  ((tc['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

const jsonOf = async (args: string[]): Promise<Record<string, unknown>> => JSON.parse(await sim.ok([...args, '-o', 'json'])) as Record<string, unknown>;

describe("TiDB Operator's dashboard and ng-monitoring examples through kubectl and start", () => {
  // Concurrently: the examples live in namespaces of their own on the one server and reconciler, and
  // spend most of their time waiting on its wall clock (pod start-ups, batching windows).
  it.concurrent.each([
    { name: 'tngm', namespace: 'tngm', files: ['tngm/tidb-cluster.yaml', 'tngm/tidb-ng-monitoring.yaml'], created: ['tidbcluster.pingcap.com/basic created', 'tidbngmonitoring.pingcap.com/basic created'], sts: 'basic-ng-monitoring', resource: 'tngm', statusPath: ['status', 'ngMonitoring'] },
    { name: 'basic dashboard', namespace: 'dashboard', files: ['basic/tidb-cluster.yaml', 'basic/tidb-dashboard.yaml'], created: ['tidbcluster.pingcap.com/basic created', 'tidbdashboard.pingcap.com/basic created'], sts: 'basic-tidb-dashboard', resource: 'td', statusPath: ['status'] },
  ])('$name: every document applies unchanged and reaches ready', async ({ namespace, files, created, sts, resource, statusPath }) => {
    // Arrange
    await sim.ok(['create', 'namespace', namespace]);

    // Act
    const out = await sim.ok(['apply', '-n', namespace, ...files.flatMap((f) => ['-f', join(FIXTURES, f)])]);

    // Assert: the TidbCluster Ready, the StatefulSet's pod Ready, the status as v1 writes it.
    for (const line of created) expect(out).toContain(line);
    await eventually(async () => jsonOf(['get', 'tc', 'basic', '-n', namespace]), (tc) => isReady(tc), 240000);
    await eventually(async () => (await sim.ok(['get', 'pod', `${sts}-0`, '-n', namespace, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).trim(), (v) => v === 'True', 120000);
    const status = await eventually(
      async () => statusPath.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], await jsonOf(['get', resource, 'basic', '-n', namespace])) as { synced?: boolean; phase?: string; statefulSet?: { readyReplicas?: number } } | undefined,
      (s) => s?.statefulSet?.readyReplicas === 1,
      120000,
    );
    expect(status).toMatchObject({ synced: true, phase: 'Normal', statefulSet: { replicas: 1, readyReplicas: 1 } });
    const listed = await sim.ok(['get', resource, '-n', namespace]);
    expect(listed.split('\n')[0]?.trim().split(/\s+/)).toEqual(['NAME', 'AGE']);
  }, 420000);
});
