/**
 * TiDB Operator's examples/initialize (release-1.6) as its README runs it, against `sim serve` with
 * `start` reconciling: the Secret created with `kubectl create secret generic tidb-secret
 * --from-literal=root=…`, the directory applied with `kubectl apply -f ./` (the TidbCluster and the
 * TidbInitializer, both files copied unchanged into test/fixtures/tidb-operator-examples/initialize),
 * and the initializer's pod `initialize-demo-tidb-initializer-…` Completed — `kubectl get
 * tidbinitializer` showing it as on a cluster running TiDB Operator (v1's CRD: NAME and AGE).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SimServe, startSimServe } from '../support/sim-serve.js';
import { prebuiltCli } from '../support/prebuilt-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'test', 'fixtures', 'tidb-operator-examples', 'initialize');
let sim: SimServe;
let start: ChildProcess | undefined;
let startOutput = '';

beforeAll(async () => {
  sim = await startSimServe('500ms');
}, 60_000);

afterAll(async () => {
  if (start && start.exitCode === null) {
    const exited = new Promise((resolve) => start?.once('exit', resolve));
    start.kill('SIGINT');
    await exited;
  }
  await sim.stop();
}, 60_000);

async function eventually<T>(read: () => Promise<T>, want: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!want(last)) {
    if (Date.now() > end) throw new Error(`not reached; last value: ${JSON.stringify(last)}; start said: ${startOutput.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 1000));
    last = await read();
  }
  return last;
}

describe('examples/initialize through kubectl', () => {
  it('the README\'s Secret and `kubectl apply -f ./` reach a Completed TidbInitializer whose pod completed', async () => {
    expect(await sim.ok(['create', 'secret', 'generic', 'tidb-secret', '--from-literal=root=s3cr3t-root', '--namespace=default'])).toContain('secret/tidb-secret created');
    const applied = await sim.ok(['-n', 'default', 'apply', '-f', EXAMPLE]);
    expect(applied).toContain('tidbcluster.pingcap.com/initialize-demo created');
    expect(applied).toContain('tidbinitializer.pingcap.com/initialize-demo created');
    start = spawn(prebuiltCli().command, [...prebuiltCli().args, 'start', '--kubeconfig', sim.kubeconfigPath], { cwd: mkdtempSync(join(tmpdir(), 'start-')) });
    start.stdout?.on('data', (d: Buffer) => (startOutput += d.toString()));
    start.stderr?.on('data', (d: Buffer) => (startOutput += d.toString()));
    const phase = await eventually(async () => (await sim.kubectl(['get', 'tidbinitializer', 'initialize-demo', '-o', 'jsonpath={.status.phase}'])).stdout, (p) => p === 'Completed' || p === 'Failed', 240_000);
    expect(phase).toBe('Completed');
    const table = (await sim.ok(['get', 'ti'])).trim().split('\n').map((l) => l.split(/\s{2,}/));
    expect(table[0]).toEqual(['NAME', 'AGE']);
    expect(table[1]?.[0]).toBe('initialize-demo');
    const pods = (await sim.ok(['get', 'pod', '-n', 'default'])).split('\n').filter((l) => l.startsWith('initialize-demo-tidb-initializer'));
    expect(pods).toHaveLength(1);
    expect(pods[0]?.split(/\s+/).slice(1, 4)).toEqual(['0/1', 'Completed', '0']);
    const job = JSON.parse(await sim.ok(['get', 'job', 'initialize-demo-tidb-initializer', '-o', 'json'])) as { status: { succeeded?: number }; metadata: { ownerReferences: { kind: string; name: string }[] } };
    expect(job.status.succeeded).toBe(1);
    expect(job.metadata.ownerReferences.map((r) => `${r.kind}/${r.name}`)).toEqual(['TidbInitializer/initialize-demo']);
  }, 300_000);
});
