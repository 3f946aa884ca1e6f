/**
 * kubectl 1.34 against a running `tidb-reconciler sim serve`, as a user would drive it: the
 * StatefulSet story of the foundation issue, end to end, on the real clock.
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

beforeAll(async () => {
  sim = await startSimServe('500ms');
  kubectl = sim.kubectl;
  kubeconfigFile = sim.kubeconfigPath;
}, 60000);

afterAll(async () => {
  // The server stops cleanly on SIGINT; wait for it, so no process or pipe outlives the tests.
  await sim.stop();
}, 30000);

const MANIFEST = `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80, name: web}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 3
  podManagementPolicy: OrderedReady
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: "nginx:1", ports: [{containerPort: 80, name: web}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, { input, timeoutMs: 90000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

async function podImages(): Promise<Record<string, string>> {
  const pods = JSON.parse(await ok(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as { items: { metadata: { name: string }; spec: { containers: { image: string }[] } }[] };
  return Object.fromEntries(pods.items.map((p) => [p.metadata.name, p.spec.containers[0]?.image ?? '']));
}

async function eventually<T>(read: () => Promise<T>, want: (v: T) => boolean, ms = 60000): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!want(last)) {
    if (Date.now() > end) throw new Error(`not reached; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

describe('kubectl against sim serve', () => {
  it('applies a 3-replica OrderedReady StatefulSet that rolls out in ordinal order', async () => {
    expect(await ok(['apply', '-f', '-'], MANIFEST)).toContain('statefulset.apps/web created');
    const status = await ok(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    expect(status).toContain('roll out complete');
    const pods = JSON.parse(await ok(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as { items: { metadata: { name: string }; status: { conditions: { type: string; lastTransitionTime: string }[] } }[] };
    const readyAt = pods.items.map((p) => ({ name: p.metadata.name, at: p.status.conditions.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '' }));
    const order = [...readyAt].sort((a, b) => a.at.localeCompare(b.at) || a.name.localeCompare(b.name)).map((p) => p.name);
    expect(order).toEqual(['web-0', 'web-1', 'web-2']);
    const pvcs = await ok(['get', 'pvc', '-o', 'name']);
    expect(pvcs.trim().split('\n').sort()).toEqual(['persistentvolumeclaim/data-web-0', 'persistentvolumeclaim/data-web-1', 'persistentvolumeclaim/data-web-2']);
  }, 90000);

  it('with partition 2, a new image updates only pod 2', async () => {
    await ok(['patch', 'statefulset', 'web', '-p', '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}']);
    await ok(['set', 'image', 'statefulset/web', 'app=nginx:2']);
    const images = await eventually(podImages, (m) => m['web-2'] === 'nginx:2' && Object.keys(m).length === 3);
    await ok(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    expect(await podImages()).toEqual({ 'web-0': 'nginx:1', 'web-1': 'nginx:1', 'web-2': 'nginx:2' });
    expect(images['web-2']).toBe('nginx:2');
  }, 90000);

  it('scaling to 1 removes the highest ordinals and keeps every PVC', async () => {
    await ok(['scale', 'statefulset', 'web', '--replicas=1']);
    await eventually(podImages, (m) => Object.keys(m).join() === 'web-0');
    const pvcs = await ok(['get', 'pvc', '-o', 'name']);
    expect(pvcs.trim().split('\n')).toHaveLength(3);
  }, 90000);

  it('a stale kubectl replace is refused with a conflict', async () => {
    const stale = await ok(['get', 'statefulset', 'web', '-o', 'json']);
    await ok(['annotate', 'statefulset', 'web', 'example.com/touched=yes']);
    const r = await kubectl(['replace', '-f', '-'], { input: stale });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the object has been modified');
  }, 30000);

  it('get -w streams ADDED, MODIFIED and DELETED', async () => {
    const watcher = kubectl(['get', 'configmaps', '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name}{"\\n"}'], { timeoutMs: 8000 });
    await new Promise((r) => setTimeout(r, 1500));
    await ok(['create', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched}\ndata: {a: "1"}\n');
    await ok(['label', 'configmap', 'watched', 'x=y']);
    await ok(['delete', 'configmap', 'watched']);
    const out = (await watcher).stdout;
    const lines = out.trim().split('\n').filter((l) => l.endsWith(' watched'));
    expect(lines).toEqual(['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
  }, 30000);

  it('get sc shows EKS\'s classes, gp2 the default', async () => {
    const lines = (await ok(['get', 'sc'])).trim().split('\n').map((l) => l.split(/\s{2,}/));
    expect(lines[0]).toEqual(['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    expect(lines.slice(1).map((l) => l.slice(0, 5))).toEqual([
      ['gp2 (default)', 'ebs.csi.aws.com', 'Delete', 'WaitForFirstConsumer', 'true'],
      ['gp3', 'ebs.csi.aws.com', 'Delete', 'WaitForFirstConsumer', 'true'],
    ]);
  }, 30000);

  it('with the reconciler running against it, get pv shows Retain for the TidbCluster that asks for it', async () => {
    // The local stack applies examples/basic-tidbcluster.yaml (pvReclaimPolicy: Retain), as asked, and runs until Ready.
    const example = join(ROOT, 'examples', 'basic-tidbcluster.yaml');
    const start = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const cli = prebuiltCli();
      const child = spawn(cli.command, [...cli.args, 'start', '--once', '--timeout', '2m', '--kubeconfig', kubeconfigFile, '--apply', example], { cwd: mkdtempSync(join(tmpdir(), 'start-')) });
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => resolve({ code, out }));
    });
    expect(start.code).toBe(0);
    const rows = await eventually(
      async () => (await ok(['get', 'pv'])).trim().split('\n').map((l) => l.split(/\s{2,}/)),
      (r) => r.filter((l) => (l[5] ?? '').startsWith('demo/pd-basic-pd-')).every((l) => l[3] === 'Retain') && r.filter((l) => (l[5] ?? '').startsWith('demo/pd-basic-pd-')).length === 3,
    );
    expect(rows[0]?.slice(0, 7)).toEqual(['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS']);
    const pd = rows.filter((l) => (l[5] ?? '').startsWith('demo/pd-basic-pd-')).map((l) => [l[2], l[3], l[4], l[5], l[6]]);
    expect(pd.sort((a, b) => String(a[3]).localeCompare(String(b[3])))).toEqual([0, 1, 2].map((i) => ['RWO', 'Retain', 'Bound', `demo/pd-basic-pd-${i}`, 'gp2']));
    // The StatefulSet story's volumes did not ask for anything: they keep their class's Delete.
    expect(rows.filter((l) => (l[5] ?? '').startsWith('default/data-web-')).map((l) => l[3])).toEqual(['Delete', 'Delete', 'Delete']);
  }, 180000);

  it('deleting the StatefulSet garbage-collects its pods and keeps its PVCs', async () => {
    await ok(['delete', 'statefulset', 'web']);
    await eventually(podImages, (m) => Object.keys(m).length === 0);
    expect((await ok(['get', 'pvc', '-o', 'name'])).trim().split('\n')).toHaveLength(3);
  }, 90000);
});
