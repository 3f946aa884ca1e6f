/**
 * kubectl 1.34's generator commands against a running `tidb-reconciler sim serve`: each `kubectl
 * create <generator>` (which sends protobuf) creates its object and the object reads back as asked;
 * a protobuf body for a custom resource is 415 naming the kind.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

const ROOT = join(import.meta.dirname, '..', '..');
let sim: SimServe;

beforeAll(async () => {
  sim = await startSimServe();
}, 90000);

afterAll(async () => {
  await sim.stop();
}, 30000);

const ok = (args: string[]): Promise<string> => sim.ok(args);

async function readBack(args: string[]): Promise<Record<string, unknown>> {
  return JSON.parse(await ok(['get', ...args, '-o', 'json'])) as Record<string, unknown>;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** Bytes that are not UTF-8, so kubectl sends them as binaryData / raw secret bytes. */
const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x81, 0x0a, 0x00, 0xc3, 0x28]);
const binaryFile = join(mkdtempSync(join(tmpdir(), 'kubectl-gen-bin-')), 'blob.bin');
writeFileSync(binaryFile, BINARY);

describe('kubectl create generators (protobuf bodies)', () => {
  it('create namespace makes the namespace', async () => {
    // Act
    const out = await ok(['create', 'namespace', 'gen']);
    // Assess
    expect(out).toContain('namespace/gen created');
    expect(await readBack(['namespace', 'gen'])).toMatchObject({ kind: 'Namespace', metadata: { name: 'gen' } });
  });

  it.each([
    {
      name: 'configmap --from-literal',
      args: ['create', 'configmap', 'c', '--from-literal=a=1', '--from-literal=mode=fast'],
      get: ['configmap', 'c'],
      want: { kind: 'ConfigMap', data: { a: '1', mode: 'fast' } },
    },
    {
      name: 'secret generic: data is the base64 of each literal',
      args: ['create', 'secret', 'generic', 's', '--from-literal=password=hunter2', '--type=Opaque'],
      get: ['secret', 's'],
      want: { kind: 'Secret', type: 'Opaque', data: { password: b64('hunter2') } },
    },
    {
      name: 'configmap --from-file of bytes that are not UTF-8: binaryData',
      args: ['create', 'configmap', 'bin', `--from-file=${binaryFile}`],
      get: ['configmap', 'bin'],
      want: { kind: 'ConfigMap', binaryData: { 'blob.bin': BINARY.toString('base64') } },
    },
    {
      name: 'secret generic --from-file keeps the bytes',
      args: ['create', 'secret', 'generic', 'blob', `--from-file=${binaryFile}`],
      get: ['secret', 'blob'],
      want: { kind: 'Secret', type: 'Opaque', data: { 'blob.bin': BINARY.toString('base64') } },
    },
    {
      name: 'service externalname',
      args: ['create', 'service', 'externalname', 'ext', '--external-name=db.example.com'],
      get: ['service', 'ext'],
      want: { kind: 'Service', spec: { type: 'ExternalName', externalName: 'db.example.com' } },
    },
    {
      name: 'serviceaccount',
      args: ['create', 'serviceaccount', 'builder'],
      get: ['serviceaccount', 'builder'],
      want: { kind: 'ServiceAccount', metadata: { name: 'builder' } },
    },
    {
      name: 'deployment with replicas and a port',
      args: ['create', 'deployment', 'web', '--image=nginx:1', '--replicas=2', '--port=80'],
      get: ['deployment', 'web'],
      want: {
        kind: 'Deployment',
        metadata: { labels: { app: 'web' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
        },
      },
    },
    {
      name: 'deployment with replicas 0 keeps 0 (a pointer field)',
      args: ['create', 'deployment', 'idle', '--image=nginx:1', '--replicas=0'],
      get: ['deployment', 'idle'],
      want: { kind: 'Deployment', spec: { replicas: 0 } },
    },
    {
      name: 'service clusterip: an int and a named target port',
      args: ['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '--tcp=443:https'],
      get: ['service', 'web'],
      want: {
        kind: 'Service',
        spec: {
          type: 'ClusterIP',
          selector: { app: 'web' },
          ports: [
            { name: '80-8080', port: 80, targetPort: 8080, protocol: 'TCP' },
            { name: '443-https', port: 443, targetPort: 'https', protocol: 'TCP' },
          ],
        },
      },
    },
    {
      name: 'role with verbs, resources and a resource name',
      args: ['create', 'role', 'reader', '--verb=get,list', '--resource=pods,deployments.apps', '--resource-name=web'],
      get: ['role', 'reader'],
      want: {
        kind: 'Role',
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'], resourceNames: ['web'] },
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'], resourceNames: ['web'] },
        ],
      },
    },
    {
      name: 'rolebinding to a user and a service account',
      args: ['create', 'rolebinding', 'reader', '--role=reader', '--user=alice', '--serviceaccount=gen:builder'],
      get: ['rolebinding', 'reader'],
      want: {
        kind: 'RoleBinding',
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
        subjects: [
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
          { kind: 'ServiceAccount', name: 'builder', namespace: 'gen' },
        ],
      },
    },
    {
      name: 'clusterrole with a non-resource URL',
      args: ['create', 'clusterrole', 'viewer', '--verb=get', '--resource=nodes', '--non-resource-url=/healthz'],
      get: ['clusterrole', 'viewer'],
      want: {
        kind: 'ClusterRole',
        rules: [
          { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
          { nonResourceURLs: ['/healthz'], verbs: ['get'] },
        ],
      },
    },
    {
      name: 'clusterrolebinding to a group',
      args: ['create', 'clusterrolebinding', 'viewer', '--clusterrole=viewer', '--group=devs'],
      get: ['clusterrolebinding', 'viewer'],
      want: {
        kind: 'ClusterRoleBinding',
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'viewer' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
      },
    },
  ])('create $name', async ({ args, get, want }) => {
    // Act
    const out = await ok([...args, '-n', 'gen']);
    // Assess
    expect(out).toContain('created');
    expect(await readBack([...get, '-n', 'gen'])).toMatchObject(want);
  });

  it("applies the reconciler's own RBAC (infra/k8s/reconciler-rbac.yaml: a ClusterRole and its binding)", async () => {
    // Act
    const out = await ok(['apply', '-f', join(ROOT, 'infra', 'k8s', 'reconciler-rbac.yaml')]);
    // Assess
    expect(out).toContain('clusterrole.rbac.authorization.k8s.io/tidb-reconciler created');
    expect(out).toContain('clusterrolebinding.rbac.authorization.k8s.io/tidb-reconciler created');
  });

  it('the created deployment rolls out its pods', async () => {
    // Act
    const status = await ok(['rollout', 'status', 'deployment/web', '-n', 'gen', '--timeout=60s']);
    // Assess
    expect(status).toContain('successfully rolled out');
  }, 90000);

  it('a protobuf body for the TidbCluster custom resource is 415 naming the kind', async () => {
    // Prepare: the k8s\0 magic and a runtime.Unknown whose TypeMeta names the kind (no raw object needed).
    const typeMeta = Buffer.concat([field(1, 'pingcap.com/v1alpha1'), field(2, 'TidbCluster')]);
    const body = Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta)]);
    // Act
    const res = await sim.request('POST', '/apis/pingcap.com/v1alpha1/namespaces/gen/tidbclusters', { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, body);
    // Assess
    expect(res.status).toBe(415);
    expect((JSON.parse(res.body) as { message: string }).message).toContain('kind TidbCluster (pingcap.com/v1alpha1)');
  });
});

/** A length-delimited protobuf field (wire type 2) with a one-byte length. */
function field(id: number, value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([Buffer.from([(id << 3) | 2, bytes.length]), bytes]);
}
