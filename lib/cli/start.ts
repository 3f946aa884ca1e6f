/**
 * `tidb-reconciler start` (what `npm start` runs): the local stack — simulated world, embedded
 * DynamoDB, local SQS, exporter, the real handlers — and a live view of every TidbCluster it
 * reconciles until they are Ready (then it keeps running). In the simulated world it starts, it
 * applies the example TidbCluster through the Kubernetes API as a user would; in a cluster of a
 * kubeconfig it applies nothing unless told to with `--apply FILE`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPlan } from './plan.js';
import { parseArgsWithHints } from './suggest.js';
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { LOCAL_STACK_FILE, writeEndpointFile } from '../local/admin-endpoint.js';
import { startLocalStack } from '../local/local-stack.js';
import { parseVpcProxyUrl } from '../local/vpc-proxy-network.js';
import { Activity, type ClusterView, ViewPrinter, clusterViewOf, isEveryViewReady, isReadyView, renderViews } from '../local/progress-view.js';
import { durationOption } from '../platform/duration.js';
import { StreamLogger, silentLogger } from '../platform/logger.js';
import { writeSimKubeconfig } from '../sim/kubeconfig.js';

/** Help text of `start`. */
export const START_HELP = `Usage: tidb-reconciler start [--once] [--timeout D] [--kubeconfig FILE [--vpc-proxy URL]] [--apply FILE] [--verbose]

Runs the local stack on the real clock: the simulated world (Kubernetes API server, StatefulSet
controller, kubelet, simulated PD), an embedded DynamoDB, a local SQS server, the exporter and the
real reconcile and sweep handlers. In the simulated world it applies the example TidbCluster
(examples/basic-tidbcluster.yaml) and shows, for every TidbCluster it reconciles, per component the
desired and ready replicas and the phase, and the last action, until they are Ready; then it keeps
running (Ctrl-C or SIGTERM stops it). A kubeconfig for the simulated API server is written to
./sim.kubeconfig, so kubectl can watch along, and the admin function's local endpoint (127.0.0.1)
to ./${LOCAL_STACK_FILE}, so \`tidb-reconciler admin status demo/basic\` in this directory reaches it.

Options:
  --once             exit 0 as soon as every TidbCluster is Ready (at least one) and neither IAM nor
                     RBAC refused a call of any function (exit 1 otherwise); exit 1 with the
                     reason if they are not within --timeout
  --timeout D        how long --once waits (default 5m)
  --kubeconfig FILE  run against the cluster of this kubeconfig instead of the simulated world: the
                     reconciler then reconciles every TidbCluster there, so it writes (StatefulSets,
                     Services, status, Events, PD calls) as a deployed stack would; no manifest is
                     applied unless --apply is given. The functions are then outside the
                     cluster's VPC: they reach the components through the API server's proxy,
                     which presents no client certificate, so a tlsCluster is unreachable
  --vpc-proxy URL    with --kubeconfig: place the functions in the cluster's VPC, whose routing
                     this HTTP CONNECT proxy offers (\`sim serve\` prints it): they reach the
                     components directly at their pod IPs, over mutual TLS with the cluster
                     client certificate under tlsCluster, as deployed on EKS (docs/adr/0032)
  --dry-run          with --kubeconfig: write nothing; print what the next step of every
                     TidbCluster there would do (\`tidb-reconciler plan -A\`) and exit
  --apply FILE       apply this TidbCluster manifest (instead of the example in the simulated world)
  --verbose          one JSON line per reconcile step on stderr`;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The example the simulated world gets when no `--apply` is given. */
export const EXAMPLE_MANIFEST = join(ROOT, 'examples', 'basic-tidbcluster.yaml');

type StartOptions = { once: boolean; timeoutMs: number; kubeconfig?: string; vpcProxy?: URL; apply?: string; verbose: boolean; dryRun: boolean };

/**
 * Parses the options of `start`; throws a message naming the bad option. The manifest to apply is
 * `--apply`, else — only in the simulated world the command starts itself — the example: a cluster
 * reached through `--kubeconfig` is somebody's, and gets nothing it was not explicitly given.
 */
export function parseStartArgs(args: string[]): StartOptions {
  const { values } = parseArgsWithHints({
    args,
    options: { once: { type: 'boolean' }, timeout: { type: 'string' }, kubeconfig: { type: 'string' }, 'vpc-proxy': { type: 'string' }, apply: { type: 'string' }, verbose: { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
    strict: true,
  });
  const timeoutMs = durationOption('--timeout', values.timeout, 300_000);
  const dryRun = values['dry-run'] === true;
  if (dryRun && values.kubeconfig === undefined) throw new Error('--dry-run needs --kubeconfig: it plans the TidbClusters of a live cluster');
  if (dryRun && values.apply !== undefined) throw new Error('--dry-run writes nothing, so it cannot --apply a manifest');
  // The simulated world `start` runs itself already places the functions in its VPC.
  if (values['vpc-proxy'] !== undefined && values.kubeconfig === undefined) throw new Error('--vpc-proxy needs --kubeconfig: the simulated world start runs itself already places the functions in its VPC');
  if (values['vpc-proxy'] !== undefined && dryRun) throw new Error('--dry-run plans from outside the VPC (plan reads no component), so it takes no --vpc-proxy');
  const vpcProxy = values['vpc-proxy'] === undefined ? undefined : parseVpcProxyUrl(values['vpc-proxy']);
  const apply = values.apply ?? (values.kubeconfig === undefined ? EXAMPLE_MANIFEST : undefined);
  return { once: values.once === true, timeoutMs, kubeconfig: values.kubeconfig, ...(vpcProxy ? { vpcProxy } : {}), apply, verbose: values.verbose === true, dryRun };
}

/** Runs the local stack until SIGINT/SIGTERM (or until every TidbCluster is Ready, with --once). */
export async function runStart(args: string[]): Promise<number> {
  let opts: StartOptions;
  let manifest: Record<string, any> | undefined;
  try {
    opts = parseStartArgs(args);
    manifest = opts.apply === undefined ? undefined : loadManifest(opts.apply);
  } catch (err) {
    console.error(`tidb-reconciler start: ${(err as Error).message}\n\n${START_HELP}`);
    return 2;
  }
  if (opts.dryRun && opts.kubeconfig !== undefined) return runPlan(['--kubeconfig', opts.kubeconfig, '-A']);
  // Taken before anything starts, so a signal during start-up still ends in a clean stop.
  const stop = stopSignal();
  const activity = new Activity(opts.verbose ? new StreamLogger(() => Date.now()) : silentLogger);
  const stack = await startLocalStack({ kubeconfigPath: opts.kubeconfig, ...(opts.vpcProxy ? { vpcProxyUrl: opts.vpcProxy } : {}), logger: activity });
  const removeEndpointFile = writeEndpointFile(LOCAL_STACK_FILE, { pid: process.pid, adminUrl: stack.adminUrl, apiServerUrl: stack.apiServerUrl, ...stack.adminSigning });
  try {
    if (stop.requested) return 0;
    if (stack.world) writeSimKubeconfig('sim.kubeconfig', stack.world.url, stack.world.token, stack.world.caData);
    console.log(`${stack.world ? 'simulated Kubernetes API server' : 'Kubernetes API server'}: ${stack.apiServerUrl}${stack.world ? '   (kubectl --kubeconfig sim.kubeconfig get pods -A)' : ''}`);
    if (opts.kubeconfig !== undefined) console.log(opts.vpcProxy ? `functions in the cluster's VPC through ${opts.vpcProxy.origin}: components reached at their pod IPs` : "functions outside the cluster's VPC: components reached through the API server's proxy (--vpc-proxy URL to place them in it)");
    if (manifest) console.log(await applyManifest(stack.kubeConfig, manifest.metadata.namespace ?? 'default', manifest));
    else console.log('applying nothing (pass --apply FILE to create a TidbCluster); reconciling the TidbClusters there are');
    const code = await watchUntil(stack.kubeConfig, activity, opts, stop);
    // The local ends enforce each function's role; with --once a refused call fails the run.
    const rbacDenials = stack.world?.gate?.denials ?? [];
    if (opts.once && rbacDenials.length > 0) {
      console.error(`RBAC refused ${rbacDenials.length} request(s); first: ${rbacDenials[0]?.message}`);
      return 1;
    }
    if (opts.once && stack.iam.denials.length > 0) {
      console.error(`IAM refused ${stack.iam.denials.length} call(s); first: ${stack.iam.denials[0]?.principal}: ${stack.iam.denials[0]?.message}`);
      return 1;
    }
    return code;
  } finally {
    stop.dispose();
    removeEndpointFile();
    await stack.stop();
  }
}

type StopSignal = { readonly requested: boolean; readonly stopped: Promise<void>; dispose(): void };

/** SIGINT or SIGTERM asks the command to stop; `dispose` gives the signals their default back. */
function stopSignal(): StopSignal {
  let resolve: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (resolve = r));
  const state = { requested: false, stopped, dispose: () => undefined as void };
  const onSignal = (): void => {
    state.requested = true;
    resolve();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  state.dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return state;
}

/** Every TidbCluster the API server has, in all namespaces (what the exporter watches and the reconciler steps). */
async function listClusters(kc: KubeConfig): Promise<ClusterView[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const list = (await custom.listClusterCustomObject({ group: 'pingcap.com', version: 'v1alpha1', plural: 'tidbclusters' })) as { items?: Record<string, any>[] };
  return (list.items ?? [])
    .map((tc) => clusterViewOf(`${tc.metadata?.namespace ?? ''}/${tc.metadata?.name ?? ''}`, tc))
    .sort((a, b) => a.key.localeCompare(b.key));
}

async function watchUntil(kc: KubeConfig, activity: Activity, opts: StartOptions, stop: StopSignal): Promise<number> {
  const printer = new ViewPrinter();
  const started = Date.now();
  let announced = false;
  let views: ClusterView[] = [];
  while (!stop.requested) {
    views = await listClusters(kc).catch(() => views);
    printer.show(renderViews(views, activity, Date.now() - started));
    if (isEveryViewReady(views)) {
      if (opts.once) return 0;
      if (!announced) console.log('every TidbCluster is Ready; the reconciler keeps running (Ctrl-C to stop)');
      announced = true;
    }
    if (opts.once && Date.now() - started > opts.timeoutMs) {
      const notReady = views.filter((v) => !isReadyView(v)).map((v) => `${v.key}: ${v.ready ? `${v.ready.reason ?? ''} ${v.ready.message ?? ''}`.trim() : 'no Ready condition'}`);
      console.error(`not Ready within ${Math.round(opts.timeoutMs / 1000)}s: ${views.length === 0 ? 'no TidbCluster' : notReady.join('; ')}`);
      return 1;
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 1000)), stop.stopped]);
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
