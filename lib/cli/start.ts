/**
 * `tidb-reconciler start` (what `npm start` runs): the local stack — simulated world, embedded
 * DynamoDB, local SQS, exporter, the real handlers — with the example TidbCluster applied through
 * the Kubernetes API as a user would, and a live view until it is Ready (then it keeps running).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { startLocalStack } from '../local/local-stack.js';
import { Activity, ViewPrinter, clusterViewOf, isReadyView, renderView } from '../local/progress-view.js';
import { parseDuration } from '../platform/duration.js';
import { StreamLogger, silentLogger } from '../platform/logger.js';
import { writeSimKubeconfig } from '../sim/kubeconfig.js';

/** Help text of `start`. */
export const START_HELP = `Usage: tidb-reconciler start [--once] [--timeout D] [--kubeconfig FILE] [--example FILE] [--verbose]

Runs the local stack on the real clock: the simulated world (Kubernetes API server, StatefulSet
controller, kubelet, simulated PD), an embedded DynamoDB, a local SQS server, the exporter and the
real reconcile and sweep handlers. Applies the example TidbCluster (examples/basic-tidbcluster.yaml)
and shows per component the desired and ready replicas, the phase and the last action until the
cluster is Ready, then keeps running (Ctrl-C stops). A kubeconfig for the simulated API server is
written to ./sim.kubeconfig, so kubectl can watch along.

Options:
  --once             exit 0 as soon as the cluster is Ready; exit 1 with the reason if it is not
                     Ready within --timeout
  --timeout D        how long --once waits (default 5m)
  --kubeconfig FILE  run against the cluster of this kubeconfig instead of the simulated world
  --example FILE     apply this TidbCluster manifest instead of the embedded example
  --verbose          one JSON line per reconcile step on stderr`;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

type StartOptions = { once: boolean; timeoutMs: number; kubeconfig?: string; example: string; verbose: boolean };

/** Parses the options of `start`; throws a message naming the bad option. */
export function parseStartArgs(args: string[]): StartOptions {
  const { values } = parseArgs({
    args,
    options: { once: { type: 'boolean' }, timeout: { type: 'string' }, kubeconfig: { type: 'string' }, example: { type: 'string' }, verbose: { type: 'boolean' } },
    strict: true,
  });
  let timeoutMs = 300_000;
  if (values.timeout !== undefined) {
    try {
      timeoutMs = parseDuration(values.timeout);
    } catch (err) {
      throw new Error(`--timeout: ${(err as Error).message}`);
    }
  }
  return { once: values.once === true, timeoutMs, kubeconfig: values.kubeconfig, example: values.example ?? join(ROOT, 'examples', 'basic-tidbcluster.yaml'), verbose: values.verbose === true };
}

/** Runs the local stack until interrupted (or until Ready, with --once). */
export async function runStart(args: string[]): Promise<number> {
  let opts: StartOptions;
  let manifest: Record<string, any>;
  try {
    opts = parseStartArgs(args);
    manifest = loadManifest(opts.example);
  } catch (err) {
    console.error(`tidb-reconciler start: ${(err as Error).message}\n\n${START_HELP}`);
    return 2;
  }
  const activity = new Activity(opts.verbose ? new StreamLogger(() => Date.now()) : silentLogger);
  const stack = await startLocalStack({ kubeconfigPath: opts.kubeconfig, logger: activity });
  const stop = (): Promise<void> => stack.stop();
  try {
    if (stack.world) writeSimKubeconfig('sim.kubeconfig', stack.world.url);
    console.log(`${stack.world ? 'simulated Kubernetes API server' : 'Kubernetes API server'}: ${stack.apiServerUrl}${stack.world ? '   (kubectl --kubeconfig sim.kubeconfig get pods -A)' : ''}`);
    const ns = manifest.metadata.namespace ?? 'default';
    console.log(await applyManifest(stack.kubeConfig, ns, manifest));
    return await watchUntil(stack.kubeConfig, ns, manifest.metadata.name, activity, opts);
  } finally {
    await stop();
  }
}

async function watchUntil(kc: KubeConfig, ns: string, name: string, activity: Activity, opts: StartOptions): Promise<number> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const printer = new ViewPrinter();
  const started = Date.now();
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let announced = false;
  while (!interrupted) {
    const tc = await custom.getNamespacedCustomObject({ group: 'pingcap.com', version: 'v1alpha1', namespace: ns, plural: 'tidbclusters', name }).catch(() => undefined);
    const view = clusterViewOf(`${ns}/${name}`, tc as Record<string, any> | undefined);
    printer.show(renderView(view, activity, Date.now() - started));
    if (isReadyView(view)) {
      if (opts.once) return 0;
      if (!announced) console.log('the cluster is Ready; the reconciler keeps running (Ctrl-C to stop)');
      announced = true;
    }
    if (opts.once && Date.now() - started > opts.timeoutMs) {
      const r = view.ready;
      console.error(`not Ready within ${Math.round(opts.timeoutMs / 1000)}s: ${r ? `${r.reason ?? ''} ${r.message ?? ''}`.trim() : 'no Ready condition'}`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return 0;
}

function loadManifest(path: string): Record<string, any> {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
  const obj = doc as Record<string, any> | null;
  if (!obj || typeof obj !== 'object' || obj.kind !== 'TidbCluster' || typeof obj.metadata?.name !== 'string') {
    throw new Error(`${path}: expected a TidbCluster manifest with metadata.name`);
  }
  return obj;
}

/** Creates the namespace (if missing) and the TidbCluster (if missing), as `kubectl apply` would. */
async function applyManifest(kc: KubeConfig, ns: string, tc: Record<string, any>): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await core.createNamespace({ body: { metadata: { name: ns } } }).catch((err: unknown) => {
    if (!(err instanceof ApiException && err.code === 409)) throw err;
  });
  try {
    await custom.createNamespacedCustomObject({ group: 'pingcap.com', version: 'v1alpha1', namespace: ns, plural: 'tidbclusters', body: { ...tc, metadata: { ...tc.metadata, namespace: ns } } });
    return `applied TidbCluster ${ns}/${tc.metadata.name}`;
  } catch (err) {
    if (err instanceof ApiException && err.code === 409) return `TidbCluster ${ns}/${tc.metadata.name} already exists; reconciling it as it is`;
    throw err;
  }
}
