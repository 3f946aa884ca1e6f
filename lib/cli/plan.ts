/**
 * `tidb-reconciler plan --kubeconfig FILE [namespace/name]`: what the next reconcile step would do to
 * a live cluster — actions in order, the status it would write, when it would wake — changing
 * nothing (Kubernetes and PD reads only; no lease, no DynamoDB). Without a cluster named, every
 * TidbCluster of the kubeconfig context's namespace (`-n` another, `-A` all namespaces).
 * Exit 0 when every cluster could be planned, 1 when one could not be read, 2 for a usage error.
 */
import { parseArgsWithHints } from './suggest.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFromFile } from '../kube/auth.js';
import { formatClusterKey } from '../model/key.js';
import { RealClock } from '../platform/clock.js';
import { parseConfig, type StepConfig } from '../platform/config.js';
import { durationOption } from '../platform/duration.js';
import { ApiServerClients } from '../wiring/clients.js';
import { planNextStep, type NextStep } from '../wiring/next-step.js';
import { formatNextStep, isNothingToDo, visibleActions } from './plan-format.js';

/** Help text of `plan`. */
export const PLAN_HELP = `Usage: tidb-reconciler plan --kubeconfig FILE [[<eks-cluster>/]<namespace>/<name>] [-n NS | -A] [--json]

Observes a live cluster exactly as a reconcile step does (the TidbCluster, what it owns, PD), runs
the rules, and prints what the next step would do: the actions in order, the status fields it would
change and when it would wake — or "nothing to do". It only reads: no object is written, no lease
taken, nothing stored. The reconciler's persisted state is not read, so the plan is the one a first
step would make (failover deadlines would start now). Settings come from the same environment
variables as the functions (AUTO_FAILOVER, PD_FAILOVER_PERIOD_MS, …; defaults otherwise).

Options:
  --kubeconfig FILE   the cluster (required); --context NAME picks a context; <eks-cluster>/ picks the
                      context of that EKS cluster (named so, or its cluster or context an EKS ARN
                      ending cluster/<eks-cluster>, as aws eks update-kubeconfig writes it)
  -n, --namespace NS  plan every TidbCluster of NS (default: the context's namespace, else default)
  -A, --all-namespaces  every TidbCluster in the cluster
  --json              the planned actions, status and wake-up as JSON
  --timeout D         how long the reads may take per cluster (default 30s)

The reconciler's bookkeeping that plan cannot judge without its state (recording each pod's store id,
already on the pod's label) is not listed. For a paused cluster it also says what the first step
after \`admin resume\` would do.

Exit codes: 0 planned; 1 a cluster could not be read, or the named TidbCluster does not exist;
2 usage error.`;

type PlanOptions = { kubeconfig: string; context?: string; ref?: { eksCluster?: string; namespace: string; name: string }; namespace?: string; all: boolean; json: boolean; timeoutMs: number };

// EKS cluster names as cluster keys allow them (lib/model/key.ts).
const EKS_CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Parses the arguments of `plan`; throws a message naming the bad argument. */
export function parsePlanArgs(args: readonly string[]): PlanOptions {
  const { values, positionals } = parseArgsWithHints({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      namespace: { type: 'string', short: 'n' },
      'all-namespaces': { type: 'boolean', short: 'A' },
      json: { type: 'boolean' },
      timeout: { type: 'string' },
    },
  });
  if (values.kubeconfig === undefined || values.kubeconfig === '') throw new Error('--kubeconfig is missing: plan reads the cluster of a kubeconfig file');
  if (positionals.length > 1) throw new Error(`unexpected argument "${positionals[1]}" (one <namespace>/<name> at most)`);
  const all = values['all-namespaces'] === true;
  let ref: PlanOptions['ref'];
  const given = positionals[0];
  if (given !== undefined) {
    const parts = given.split('/');
    // <eks-cluster>/<namespace>/<name> (docs/adr/0027): the EKS cluster picks the kubeconfig context.
    const [eksCluster, ...rest] = parts.length === 3 ? parts : [undefined, ...parts];
    const [namespace, name] = rest;
    if (rest.length !== 2 || !namespace || !name) throw new Error(`cluster: "${given}" is not <namespace>/<name>`);
    if (eksCluster !== undefined && !EKS_CLUSTER_NAME.test(eksCluster)) throw new Error(`cluster: "${eksCluster}" in "${given}" is not an EKS cluster name (letters, digits, '.', '_', '-')`);
    if (eksCluster !== undefined && values.context !== undefined) throw new Error(`--context and "${given}" both pick the cluster: give one`);
    if (all || values.namespace !== undefined) throw new Error('-n/-A select clusters to list: not with a <namespace>/<name>');
    ref = { ...(eksCluster === undefined ? {} : { eksCluster }), namespace, name };
  }
  if (all && values.namespace !== undefined) throw new Error('-n and -A: give one');
  const timeoutMs = durationOption('--timeout', values.timeout, 30_000);
  return { kubeconfig: values.kubeconfig, ...(values.context ? { context: values.context } : {}), ...(ref ? { ref } : {}), ...(values.namespace ? { namespace: values.namespace } : {}), all, json: values.json === true, timeoutMs };
}

/** Where `plan` prints (stdout and stderr by default) and the environment its settings come from. */
export type PlanIo = { readonly env: NodeJS.ProcessEnv; readonly out: (text: string) => void; readonly err: (text: string) => void };

const PROCESS_IO: PlanIo = { env: process.env, out: (t) => console.log(t), err: (t) => console.error(t) };

/** Runs `plan`; resolves to the exit code. */
export async function runPlan(args: string[], io: PlanIo = PROCESS_IO): Promise<number> {
  let opts: PlanOptions;
  let kubeConfig: KubeConfig;
  try {
    opts = parsePlanArgs(args);
    kubeConfig = kubeConfigFromFile(opts.kubeconfig, opts.context);
    if (opts.ref?.eksCluster !== undefined) kubeConfig.setCurrentContext(contextOfEksCluster(kubeConfig, opts.ref.eksCluster));
  } catch (err) {
    io.err(`tidb-reconciler plan: ${(err as Error).message}\n(usage: tidb-reconciler plan --kubeconfig FILE [<namespace>/<name>]; see --help)`);
    return 2;
  }
  const clock = new RealClock();
  const clients = ApiServerClients.fromKubeConfig(kubeConfig, clock);
  const config = parseConfig(io.env).step;
  let refs: { eksCluster?: string; namespace: string; name: string }[];
  try {
    refs = opts.ref ? [opts.ref] : await listClusters(clients, clock, opts.all ? undefined : (opts.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default'), opts.timeoutMs);
  } catch (err) {
    io.err(`tidb-reconciler plan: cannot list TidbClusters: ${(err as Error).message}`);
    return 1;
  }
  if (refs.length === 0) io.out('no TidbCluster found; nothing to do');
  let failed = false;
  const json: unknown[] = [];
  for (const ref of refs) {
    const step = await planOne(clients, clock, config, ref, opts.timeoutMs);
    const missing = step.ok && step.snapshot.cluster === undefined;
    failed ||= !step.ok || missing;
    const name = `${ref.eksCluster === undefined ? '' : `${ref.eksCluster}/`}${ref.namespace}/${ref.name}`;
    if (opts.json) json.push(toJson(name, step));
    else if (missing) io.err(`tidb-reconciler plan: ${formatNextStep(name, step, clock.nowMs())}`);
    else io.out(formatNextStep(name, step, clock.nowMs()));
  }
  if (opts.json) io.out(JSON.stringify(json, null, 2));
  return failed ? 1 : 0;
}

/**
 * The kubeconfig context of EKS cluster `eks`: the context named so, else the one context whose name
 * or cluster is an EKS ARN ending `cluster/<eks>` (`aws eks update-kubeconfig` names both so).
 * Throws naming the contexts when none or several match.
 */
export function contextOfEksCluster(kubeConfig: Pick<KubeConfig, 'getContexts'>, eks: string): string {
  const contexts = kubeConfig.getContexts();
  if (contexts.some((c) => c.name === eks)) return eks;
  const isArnOf = (text: string): boolean => text.startsWith('arn:') && text.endsWith(`:cluster/${eks}`);
  const matching = contexts.filter((c) => isArnOf(c.name) || isArnOf(c.cluster));
  const [only, ...more] = matching;
  if (only !== undefined && more.length === 0) return only.name;
  const names = contexts.map((c) => c.name).join(', ') || 'none';
  throw new Error(`cluster: ${matching.length === 0 ? 'no' : 'more than one'} kubeconfig context is EKS cluster "${eks}" (contexts: ${names})`);
}

function planOne(clients: ApiServerClients, clock: RealClock, config: StepConfig, ref: { eksCluster?: string; namespace: string; name: string }, timeoutMs: number): Promise<NextStep> {
  const deadlineAtMs = clock.nowMs() + timeoutMs;
  const clusterRef = { k8sCluster: ref.eksCluster ?? 'kubeconfig', namespace: ref.namespace, name: ref.name };
  return planNextStep({ clients: clients.withDeadline(deadlineAtMs), clock, config, key: formatClusterKey(clusterRef), ref: clusterRef, deadlineAtMs });
}

async function listClusters(clients: ApiServerClients, clock: RealClock, namespace: string | undefined, timeoutMs: number): Promise<{ namespace: string; name: string }[]> {
  const kube = clients.withDeadline(clock.nowMs() + timeoutMs).kube;
  const refs: { namespace: string; name: string }[] = [];
  let page: string | undefined;
  do {
    const list = await kube.listTidbClusters({ limit: 100, ...(page ? { continue: page } : {}), ...(namespace ? { namespace } : {}) });
    for (const tc of list.items) refs.push({ namespace: tc.metadata.namespace ?? '', name: tc.metadata.name ?? '' });
    page = list.continue;
  } while (page);
  return refs.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
}

function toJson(cluster: string, step: NextStep): unknown {
  if (!step.ok) return { cluster, ok: false, error: step.error };
  if (!step.snapshot.cluster) return { cluster, ok: false, error: 'TidbCluster not found' };
  const { plan } = step;
  return {
    cluster,
    ok: true,
    nothingToDo: isNothingToDo(step),
    actions: visibleActions(plan),
    ...(step.resumed ? { afterResume: { actions: visibleActions(step.resumed), outcome: step.resumed.outcome } } : {}),
    ...(plan.status === undefined ? {} : { status: plan.status }),
    outcome: plan.outcome,
    ...(step.wakeAtMs === undefined ? {} : { wakeAtMs: step.wakeAtMs }),
    rules: plan.ruleResults.map((r) => ({ rule: r.rule, outcome: r.outcome.kind })),
  };
}
