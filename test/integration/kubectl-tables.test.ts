/**
 * kubectl 1.34 against `tidb-reconciler sim serve`, reading what `kubectl get` prints: the server's
 * tables, with the columns and cells the real API server gives on EKS, for a TidbCluster brought up
 * by the local stack (TiDB Operator's printer columns) and everything it owns.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kubectl } from '../support/kubectl.js';
import { type SimServe, startSimServe } from '../support/sim-serve.js';
import { prebuiltCli } from '../support/prebuilt-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
let sim: SimServe;
let kubectl: Kubectl;
let kubeconfigFile: string;

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(prebuiltCli().command, [...prebuiltCli().args, ...args], { cwd: mkdtempSync(join(tmpdir(), 'start-')) });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

beforeAll(async () => {
  sim = await startSimServe('500ms');
  kubectl = sim.kubectl;
  kubeconfigFile = sim.kubeconfigPath;
  // The local stack applies a three-member PD cluster (test/fixtures/pd-tidbcluster.yaml) and runs until it is Ready.
  const start = await run(['start', '--once', '--timeout', '2m', '--kubeconfig', kubeconfigFile, '--apply', join(ROOT, 'test', 'fixtures', 'pd-tidbcluster.yaml')]);
  if (start.code !== 0) throw new Error(`start --once failed (${start.code}): ${start.out}`);
}, 180000);

afterAll(async () => {
  await sim.stop();
}, 30000);

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, { input, timeoutMs: 60000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** One printed table: its header and its rows, each cell cut at its header's column (cells may be empty). */
type Printed = { header: string[]; rows: string[][] };

/** Splits kubectl's output into its tables (one per kind, blank-line separated), reading cells by column position. */
function tables(out: string): Printed[] {
  return out
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((l) => l.trim() !== ''))
    .filter((lines) => lines.length > 0)
    .map(([head = '', ...lines]) => {
      const starts = [...head.matchAll(/\S+(?: \S+)*/g)].map((m) => m.index);
      const header = starts.map((s, i) => head.slice(s, starts[i + 1]).trim());
      const rows = lines.map((l) => starts.map((s, i) => l.slice(s, starts[i + 1]).trim()));
      return { header, rows };
    });
}

const EVENT = `
apiVersion: v1
kind: Event
metadata: {name: basic.rehearsal, namespace: demo}
involvedObject: {apiVersion: pingcap.com/v1alpha1, kind: TidbCluster, name: basic, namespace: demo}
reason: Rehearsal
message: "  a printed event  "
type: Normal
firstTimestamp: "${new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')}"
count: 2
source: {component: tidb-reconciler}
`;

describe('kubectl get prints the API server\'s tables', () => {
  it('get tc,sts,pods,pvc,pv,events prints the real column headers and the cluster\'s values', async () => {
    // Prepare
    await ok(['create', '-f', '-'], EVENT);

    // Act
    const [tc, sts, pods, pvc, pv, events] = tables(await ok(['get', 'tc,sts,pods,pvc,pv,events', '-n', 'demo']));

    // Assess
    expect(tc?.header).toEqual(['NAME', 'READY', 'PD', 'STORAGE', 'READY', 'DESIRE', 'TIKV', 'STORAGE', 'READY', 'DESIRE', 'TIDB', 'READY', 'DESIRE', 'AGE']);
    expect(tc?.rows.map((r) => r.slice(0, 13))).toEqual([['tidbcluster.pingcap.com/basic', 'True', 'pingcap/pd:v8.5.0', '1Gi', '3', '3', '', '', '', '', '', '', '']]);
    expect(sts?.header).toEqual(['NAME', 'READY', 'AGE']);
    expect(sts?.rows.map((r) => r.slice(0, 2))).toEqual([['statefulset.apps/basic-pd', '3/3']]);
    expect(pods?.header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(pods?.rows.filter((r) => r[0]?.startsWith('pod/basic-pd-')).map((r) => r.slice(0, 4))).toEqual([0, 1, 2].map((i) => [`pod/basic-pd-${i}`, '1/1', 'Running', '0']));
    expect(pvc?.header).toEqual(['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE']);
    expect(pvc?.rows.map((r) => [r[0], r[1], r[3], r[4], r[5], r[6]])).toEqual([0, 1, 2].map((i) => [`persistentvolumeclaim/pd-basic-pd-${i}`, 'Bound', '1Gi', 'RWO', 'gp2', '<unset>']));
    expect(pv?.header).toEqual(['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE']);
    expect(pv?.rows.map((r) => [r[1], r[3], r[4], r[5]]).sort((a, b) => String(a[3]).localeCompare(String(b[3])))).toEqual([0, 1, 2].map((i) => ['1Gi', 'Retain', 'Bound', `demo/pd-basic-pd-${i}`]));
    expect(events?.header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    const [lastSeen, ...event] = events?.rows.find((r) => r[2] === 'Rehearsal') ?? [];
    expect(event).toEqual(['Normal', 'Rehearsal', 'tidbcluster/basic', 'a printed event']);
    expect(lastSeen).toMatch(/^\d+s$/);
    // Every age is kubectl's duration format.
    for (const t of [tc, sts, pods, pvc, pv]) for (const row of t?.rows ?? []) expect(row[row.length - 1]).toMatch(/^(\d+[smhdy])+$/);
  }, 60000);

  it('-o wide adds the pods\' IP, NODE, NOMINATED NODE and READINESS GATES, and the cluster\'s STATUS', async () => {
    // Act
    const [pods] = tables(await ok(['get', 'pods', '-n', 'demo', '-o', 'wide']));
    const [tc] = tables(await ok(['get', 'tc', '-n', 'demo', '-o', 'wide']));
    const placed = (await ok(['get', 'pods', '-n', 'demo', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.spec.nodeName}{"\\n"}{end}'])).trim().split('\n');

    // Assess
    expect(pods?.header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(pods?.rows.map((r) => [r[0], r[5], r[6]].join(' '))).toEqual(placed);
    expect(pods?.rows.map((r) => [r[7], r[8]])).toEqual(placed.map(() => ['<none>', '<none>']));
    expect(placed.every((l) => /^\S+ 10\.\d+\.\d+\.\d+ node-\d+$/.test(l))).toBe(true);
    expect(tc?.header.slice(-2)).toEqual(['STATUS', 'AGE']);
    expect(tc?.rows[0]?.[13]).toBe('TiDB cluster is fully up and running');
  }, 60000);

  it('the kinds the cluster owns print as on EKS: services, endpoints, deployments, config maps, service accounts, revisions, namespaces', async () => {
    // Act
    const [svc, ep, deploy, cm, sa, cr] = tables(await ok(['get', 'svc,ep,deploy,cm,sa,controllerrevision', '-n', 'demo']));
    const [ns] = tables(await ok(['get', 'ns', 'demo']));
    const [nodes] = tables(await ok(['get', 'nodes']));

    // Assess
    expect(svc?.header).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    expect(svc?.rows.find((r) => r[0] === 'service/basic-pd-peer')?.slice(1, 5)).toEqual(['ClusterIP', 'None', '<none>', '2380/TCP,2379/TCP']);
    expect(svc?.rows.find((r) => r[0] === 'service/basic-pd')?.[4]).toBe('2379/TCP');
    expect(ep?.header).toEqual(['NAME', 'ENDPOINTS', 'AGE']);
    expect(ep?.rows.find((r) => r[0] === 'endpoints/basic-pd-peer')?.[1]).toMatch(/^(10\.[\d.]+:2380,){2}10\.[\d.]+:2380 \+ 3 more\.\.\.$/);
    expect(deploy?.header).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(deploy?.rows.map((r) => r.slice(0, 4))).toEqual([['deployment.apps/basic-discovery', '1/1', '1', '1']]);
    expect(cm?.header).toEqual(['NAME', 'DATA', 'AGE']);
    expect(sa?.header).toEqual(['NAME', 'SECRETS', 'AGE']);
    expect(cr?.header).toEqual(['NAME', 'CONTROLLER', 'REVISION', 'AGE']);
    expect(cr?.rows.map((r) => r[1])).toContain('statefulset.apps/basic-pd');
    expect(ns?.rows.map((r) => r.slice(0, 2))).toEqual([['demo', 'Active']]);
    expect(nodes?.header).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(nodes?.rows.every((r) => r[1] === 'Ready')).toBe(true);
  }, 60000);

  it('get -w prints the header once and a row per change', async () => {
    // Prepare
    const watcher = kubectl(['get', 'configmaps', '-n', 'default', '-w'], { timeoutMs: 6000 });
    await new Promise((r) => setTimeout(r, 1500));

    // Act
    await ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched, namespace: default}\ndata: {a: "1", b: "2"}\n');
    const out = (await watcher).stdout;

    // Assess
    const [printed] = tables(out);
    expect(printed?.header).toEqual(['NAME', 'DATA', 'AGE']);
    expect(printed?.rows.map((r) => r.slice(0, 2))).toContainEqual(['watched', '2']);
    expect(out.match(/NAME/g)).toHaveLength(1);
  }, 30000);
});
