/**
 * `tidb-reconciler start` (what `npm start` runs): the simulated world on the real clock with the
 * embedded example TidbCluster applied through the API, as a user would with kubectl.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { RealClock } from '../platform/clock.js';
import { writeSimKubeconfig } from '../sim/kubeconfig.js';
import type { KubeObject } from '../sim/object.js';
import { SimWorld } from '../sim/world.js';
import { reportControllerError } from './report.js';

/** Help text of `start`. */
export const START_HELP = `Usage: tidb-reconciler start [--once] [--kubeconfig FILE] [--example FILE]

Starts the simulated world on the real clock, writes a kubeconfig for it, and applies the example
TidbCluster (examples/basic-tidbcluster.yaml) through the Kubernetes API.

This build ships the simulated world only: the reconcile handlers are not wired into the local stack
yet, so the TidbCluster is stored and shown but nothing creates its PD members.

Options:
  --once             apply the example, print what the API server holds, and exit
  --kubeconfig FILE  where to write the kubeconfig (default: ./sim.kubeconfig)
  --example FILE     a TidbCluster manifest to apply instead of the embedded example`;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs the local stack until interrupted (or once, with --once). */
export async function runStart(args: string[]): Promise<number> {
  let values: { once?: boolean; kubeconfig?: string; example?: string };
  try {
    values = parseArgs({ args, options: { once: { type: 'boolean' }, kubeconfig: { type: 'string' }, example: { type: 'string' } }, strict: true }).values;
  } catch (err) {
    console.error(`tidb-reconciler start: ${(err as Error).message}\n\n${START_HELP}`);
    return 2;
  }
  const examplePath = values.example ?? join(ROOT, 'examples', 'basic-tidbcluster.yaml');
  const manifest = loadManifest(examplePath);
  const kubeconfigPath = values.kubeconfig ?? 'sim.kubeconfig';
  const world = await SimWorld.start({ clock: new RealClock() });
  writeSimKubeconfig(kubeconfigPath, world.url);
  console.log(`simulated Kubernetes API server on ${world.url}; kubeconfig: ${kubeconfigPath}`);
  const stored = await applyManifest(world.url, manifest);
  console.log(`applied TidbCluster ${stored.metadata.namespace}/${stored.metadata.name} (uid ${stored.metadata.uid}, resourceVersion ${stored.metadata.resourceVersion})`);
  console.log('reconciler: not wired into the local stack in this build; no PD member will be created.');
  if (values.once) {
    await world.stop();
    return 0;
  }
  console.log(`try: kubectl --kubeconfig ${kubeconfigPath} get tidbclusters -A    (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await world.stop();
  return 0;
}

function loadManifest(path: string): KubeObject {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
  const obj = doc as KubeObject | null;
  if (!obj || typeof obj !== 'object' || obj.kind !== 'TidbCluster' || typeof obj.metadata?.name !== 'string') {
    throw new Error(`${path}: expected a TidbCluster manifest with metadata.name`);
  }
  return obj;
}

/** Creates the namespace (if missing) and the TidbCluster over HTTP, as `kubectl apply` would. */
async function applyManifest(baseUrl: string, tc: KubeObject): Promise<KubeObject> {
  const ns = tc.metadata.namespace ?? 'default';
  const headers = { 'Content-Type': 'application/json' };
  const nsRes = await fetch(`${baseUrl}/api/v1/namespaces`, { method: 'POST', headers, body: JSON.stringify({ metadata: { name: ns } }), signal: AbortSignal.timeout(5000) });
  if (!nsRes.ok && nsRes.status !== 409) throw new Error(`creating namespace ${ns}: HTTP ${nsRes.status} ${await nsRes.text()}`);
  const res = await fetch(`${baseUrl}/apis/pingcap.com/v1alpha1/namespaces/${ns}/tidbclusters`, { method: 'POST', headers, body: JSON.stringify({ ...tc, metadata: { ...tc.metadata, namespace: ns } }), signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`creating TidbCluster: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as KubeObject;
}
