/**
 * Regenerates test/fixtures/kubectl-protobuf.json: for each kubectl generator command, the protobuf
 * request body kubectl 1.34 sends (read from its `-v=9` request dump) and the object it prints for
 * the same command with `--dry-run=client -o json` (what a JSON client would have sent). The unit
 * test decodes each body and expects that object.
 *
 *   npx tsx scripts/capture-kubectl-protobuf.ts KUBECONFIG   (against a running `sim serve`)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlPath } from '../test/support/kubectl.js';

const COMMANDS: Record<string, string[]> = {
  Namespace: ['create', 'namespace', 'captured'],
  ConfigMap: ['create', 'configmap', 'settings', '-n', 'default', '--from-literal=a=1', '--from-literal=mode=fast'],
  Secret: ['create', 'secret', 'generic', 'creds', '-n', 'default', '--from-literal=password=hunter2', '--from-literal=user=root'],
  'Secret (docker-registry)': ['create', 'secret', 'docker-registry', 'pull', '-n', 'default', '--docker-server=r.example', '--docker-username=u', '--docker-password=p'],
  ServiceAccount: ['create', 'serviceaccount', 'builder', '-n', 'default'],
  Service: ['create', 'service', 'clusterip', 'web', '-n', 'default', '--tcp=80:8080', '--tcp=443:https'],
  'Service (nodeport)': ['create', 'service', 'nodeport', 'edge', '-n', 'default', '--tcp=80:8080', '--node-port=30080'],
  Deployment: ['create', 'deployment', 'web', '-n', 'default', '--image=nginx:1', '--replicas=0', '--port=80'],
  Role: ['create', 'role', 'reader', '-n', 'default', '--verb=get,list,watch', '--resource=pods,deployments.apps', '--resource-name=a'],
  RoleBinding: ['create', 'rolebinding', 'reader', '-n', 'default', '--role=reader', '--user=alice', '--serviceaccount=default:builder'],
  ClusterRole: ['create', 'clusterrole', 'viewer', '--verb=get', '--resource=nodes', '--non-resource-url=/healthz'],
  'ClusterRole (aggregated)': ['create', 'clusterrole', 'aggregate', '--aggregation-rule=rbac.example.com/aggregate=true'],
  ClusterRoleBinding: ['create', 'clusterrolebinding', 'viewer', '--clusterrole=viewer', '--group=devs'],
};

/** The bytes of the first `"Request Body" body=<` hex dump in kubectl's -v=9 output. */
function requestBody(log: string): Buffer {
  const start = log.indexOf('"Request Body" body=<');
  if (start < 0) throw new Error(`no request body in:\n${log}`);
  const lines = log.slice(start).split('\n').slice(1);
  const bytes: number[] = [];
  for (const line of lines) {
    const m = /^\s*[0-9a-f]{8}\s+((?:[0-9a-f]{2}\s+)+)/.exec(line);
    if (!m?.[1]) break;
    bytes.push(...m[1].trim().split(/\s+/).map((h) => parseInt(h, 16)));
  }
  return Buffer.from(bytes);
}

function main(kubeconfig: string): void {
  const kubectl = kubectlPath();
  const base = ['--kubeconfig', kubeconfig, '--cache-dir', join('/tmp', 'capture-kubectl-cache')];
  const rows = Object.entries(COMMANDS).map(([name, args]) => {
    const run = spawnSync(kubectl, [...base, ...args, '--dry-run=server', '-v=9'], { encoding: 'utf8' });
    const expected = JSON.parse(execFileSync(kubectl, [...base, ...args, '--dry-run=client', '-o', 'json'], { encoding: 'utf8' })) as unknown;
    return { name, args, body: requestBody(run.stderr).toString('base64'), expected };
  });
  writeFileSync(join(import.meta.dirname, '..', 'test', 'fixtures', 'kubectl-protobuf.json'), JSON.stringify(rows, null, 1) + '\n');
  console.log(`${rows.length} bodies captured`);
}

main(process.argv[2] ?? 'kubeconfig');
