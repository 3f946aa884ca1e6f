/**
 * kubectl 1.34's generator commands and `kubectl explain` against a running `tidb-reconciler sim
 * serve`: each `kubectl create <generator>` (which sends protobuf) creates its object and the object
 * reads back as asked; `explain` prints the field docs of the built-in kinds from /openapi/v3.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type Kubectl, kubectlFor } from '../support/kubectl.js';

const ROOT = join(import.meta.dirname, '..', '..');
let server: ChildProcess;
let kubectl: Kubectl;
let baseUrl: string;
let token: string;

beforeAll(async () => {
  const kubeconfigPath = join(mkdtempSync(join(tmpdir(), 'sim-serve-gen-')), 'kubeconfig');
  server = spawn(process.execPath, [join(ROOT, 'bin', 'tidb-reconciler.js'), 'sim', 'serve', '--kubeconfig', kubeconfigPath, '--pod-startup', '200ms'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`sim serve did not start: ${out}`)), 30000);
    server.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('kubeconfig written')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    server.on('exit', (code) => reject(new Error(`sim serve exited with ${code}: ${out}`)));
  });
  const kubeconfig = parse(readFileSync(kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { server: string } }[];
    users: { user: { token?: string } }[];
  };
  baseUrl = kubeconfig.clusters[0]?.cluster.server ?? '';
  token = kubeconfig.users[0]?.user.token ?? '';
  kubectl = kubectlFor(kubeconfig as unknown as Record<string, unknown>);
}, 60000);

afterAll(async () => {
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGINT');
  await exited;
}, 30000);

async function ok(args: string[]): Promise<string> {
  const r = await kubectl(args, { timeoutMs: 60000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

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
    const res = await fetch(`${baseUrl}/apis/pingcap.com/v1alpha1/namespaces/gen/tidbclusters`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body,
    });
    // Assess
    expect(res.status).toBe(415);
    expect(((await res.json()) as { message: string }).message).toContain('kind TidbCluster (pingcap.com/v1alpha1)');
  });
});

/** A length-delimited protobuf field (wire type 2) with a one-byte length. */
function field(id: number, value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([Buffer.from([(id << 3) | 2, bytes.length]), bytes]);
}

const TYPO_DEPLOYMENT = (spec: string): string => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: typo, namespace: gen}
spec:
  ${spec}
  selector: {matchLabels: {app: typo}}
  template:
    metadata: {labels: {app: typo}}
    spec: {containers: [{name: web, image: "nginx:1"}]}
`;

describe('kubectl apply of a built-in kind is read through its Go type', () => {
  it.each([
    { name: 'an unknown field is refused (kubectl asks for Strict)', spec: 'replica: 3', error: 'strict decoding error: unknown field "spec.replica"' },
    { name: 'a string for an integer is refused', spec: 'replicas: three', error: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' },
  ])('$name', async ({ spec, error }) => {
    // Act
    const r = await kubectl(['apply', '-f', '-'], { input: TYPO_DEPLOYMENT(spec) });
    // Assess
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`Deployment in version "v1" cannot be handled as a Deployment: ${error}`);
  });

  it('with --validate=false the unknown field is dropped, never stored', async () => {
    // Act
    const r = await kubectl(['apply', '--validate=false', '-f', '-'], { input: TYPO_DEPLOYMENT('replica: 3') });
    // Assess
    expect(r.code).toBe(0);
    const spec = (await readBack(['deployment', 'typo', '-n', 'gen'])).spec as Record<string, unknown>;
    expect(spec.replica).toBeUndefined();
    expect(spec.replicas).toBe(1);
  });

  it('a patch adding an unknown field (kubectl patch asks for no validation) keeps the rest and drops the field', async () => {
    // Act
    await ok(['patch', 'deployment', 'typo', '-n', 'gen', '-p', '{"spec":{"replica":2,"minReadySeconds":5}}']);
    // Assess
    const spec = (await readBack(['deployment', 'typo', '-n', 'gen'])).spec as Record<string, unknown>;
    expect(spec.replica).toBeUndefined();
    expect(spec.minReadySeconds).toBe(5);
  });

  it('a patch with a wrong type is refused', async () => {
    // Act
    const r = await kubectl(['patch', 'deployment', 'typo', '-n', 'gen', '-p', '{"spec":{"replicas":"two"}}']);
    // Assess
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
  });
});

describe('kubectl explain of built-in kinds', () => {
  it.each([
    { name: 'pods.spec.containers', args: ['pods.spec.containers'], has: ['KIND:       Pod', 'FIELD: containers <[]Container>', 'image\t<string>', 'List of containers belonging to the pod.'] },
    { name: 'pods.spec.containers.resources (a map of Quantity)', args: ['pods.spec.containers.resources'], has: ['FIELD: resources <ResourceRequirements>', 'limits\t<map[string]Quantity>'] },
    { name: 'sts.spec.updateStrategy', args: ['sts.spec.updateStrategy'], has: ['GROUP:      apps', 'KIND:       StatefulSet', 'rollingUpdate\t<RollingUpdateStatefulSetStrategy>', 'type\t<string>'] },
    { name: 'svc', args: ['svc'], has: ['KIND:       Service', 'Service is a named abstraction of software service', 'spec\t<ServiceSpec>'] },
    { name: 'pvc.spec', args: ['pvc.spec'], has: ['FIELD: spec <PersistentVolumeClaimSpec>', 'storageClassName\t<string>', 'accessModes\t<[]string>'] },
    { name: 'rolebinding.roleRef', args: ['rolebinding.roleRef'], has: ['GROUP:      rbac.authorization.k8s.io', 'FIELD: roleRef <RoleRef>', 'apiGroup\t<string> -required-'] },
    { name: 'deployments --recursive', args: ['deployments', '--recursive'], has: ['progressDeadlineSeconds\t<integer>', 'maxSurge\t<IntOrString>', 'resources\t<ResourceRequirements>'] },
  ])('explain $name prints its field docs', async ({ args, has }) => {
    // Act
    const out = await ok(['explain', ...args]);
    // Assess
    for (const text of has) expect(out).toContain(text);
  });

  it('explain of a field that does not exist says so', async () => {
    // Act
    const r = await kubectl(['explain', 'deploy.spec.nosuch']);
    // Assess
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('field "nosuch" does not exist');
  });
});
