/**
 * TiDB Operator's examples/basic/pd-micro-service-cluster.yaml (release-1.6, the fixture copy)
 * applied unchanged with `kubectl apply -f` against `sim serve`, then reconciled by `tidb-reconciler
 * start --once --kubeconfig` as a user runs it: the cluster becomes Ready, the tso and scheduling
 * StatefulSets run their replicas, and `status.pdms` lists every server PD registered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type SimServe, startSimServe } from '../support/sim-serve.js';
import { prebuiltCli } from '../support/prebuilt-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'test', 'fixtures', 'tidb-operator-examples', 'basic', 'pd-micro-service-cluster.yaml');
let sim: SimServe;

beforeAll(async () => {
  sim = await startSimServe('500ms');
}, 60000);

afterAll(async () => {
  await sim.stop();
}, 30000);

/** Runs `start --once` against the served world until every TidbCluster is Ready (or the timeout). */
function startOnce(kubeconfig: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const cli = prebuiltCli();
    const child = spawn(cli.command, [...cli.args, 'start', '--once', '--timeout', '3m', '--kubeconfig', kubeconfig], { cwd: mkdtempSync(join(tmpdir(), 'start-')) });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('the pd-micro-service example through kubectl', () => {
  it('applies unchanged and reaches Ready with its tso and scheduling servers registered', async () => {
    // Act
    expect(await sim.ok(['apply', '-f', EXAMPLE])).toContain('tidbcluster.pingcap.com/basic created');
    const start = await startOnce(sim.kubeconfigPath);
    // Assess
    expect(start.code).toBe(0);
    expect((await sim.ok(['get', 'tc', 'basic', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).trim()).toBe('True');
    const sets = (await sim.ok(['get', 'sts', 'basic-tso', 'basic-scheduling', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.readyReplicas} {end}'])).trim();
    expect(sets).toBe('basic-tso=2 basic-scheduling=2');
    const members = JSON.parse(await sim.ok(['get', 'tc', 'basic', '-o', 'jsonpath={.status.pdms.tso.members}'])) as string[];
    expect(members.sort()).toEqual(['http://basic-tso-0.basic-tso-peer.default.svc:2379', 'http://basic-tso-1.basic-tso-peer.default.svc:2379']);
  }, 240000);
});
