/**
 * The `simulate` command's arguments, `--help` text and exit codes:
 * 0 every `waitFor` was reached and no invariant was violated; 1 a `waitFor` timed out, an entry
 * failed or an invariant broke; 2 the file or the arguments are invalid, and nothing runs.
 */
import { DEFAULT_CONFIG, DEFAULT_SEED, DEFAULT_SIM, DEFAULT_WAIT_TIMEOUT_MS, MAX_NODES } from './defaults.js';
import { formatSpan } from './progress.js';
import { isSeed, MAX_SEED } from './types.js';

/** Exit code: every `waitFor` reached, no invariant violated. */
export const EXIT_PASSED = 0;
/** Exit code: a `waitFor` timed out, an entry failed, or an invariant broke. */
export const EXIT_FAILED = 1;
/** Exit code: the file or the arguments are invalid; nothing ran. */
export const EXIT_INVALID = 2;

/** What `simulate` was asked to do. `seed`, when given, replaces the file's seed. */
export type SimulateOptions = {
  readonly file: string;
  readonly out?: string;
  readonly seed?: number;
  readonly quiet: boolean;
  /** `--from-kubeconfig FILE NS/NAME`: the world starts as a twin of that live cluster. */
  readonly from?: { readonly kubeconfig: string; readonly namespace: string; readonly name: string };
};

/** Parsed arguments: run with options, print help (exit 0), or one error line (exit 2). */
export type ParseSimulateArgsResult =
  | { readonly kind: 'run'; readonly options: SimulateOptions }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly exitCode: typeof EXIT_INVALID; readonly error: string };

const USAGE = 'tidb-reconciler simulate FILE.yaml [--out report.json] [--seed N] [--quiet]';
const c = DEFAULT_CONFIG;
const s = DEFAULT_SIM;

/** `simulate --help`: usage, options, exit codes and the file format in brief, with every default. */
export const SIMULATE_HELP = `Usage: ${USAGE}

Runs a scenario file against the simulated world on a virtual clock: the real reconcile, sweep,
timer and admin handlers against a simulated Kubernetes API server, PD, TiKV, TiDB and friends.

Options:
  --out FILE   write the JSON report to FILE (default: stdout)
  --seed N     simulator randomness, 0..${MAX_SEED}; overrides the file's seed
  --quiet      no progress lines on stderr
  --from-kubeconfig KUBECONFIG NS/NAME
               start from a twin of that live TidbCluster (read only): its spec and status, the
               objects it owns and its volumes; the file then has no cluster: (see docs/SCENARIOS.md)
  --help       this text

Exit codes: 0 every waitFor reached and no invariant violated; 1 a waitFor timed out or an
invariant broke (the report says which); 2 the file or the arguments are invalid (nothing runs).

File (YAML; full format in docs/SCENARIOS.md):
  name: NAME                    required
  description: TEXT
  seed: N                       default ${DEFAULT_SEED}
  config:                       reconciler settings
    autoFailover: BOOL          default ${c.autoFailover}
    detectNodeFailure: BOOL     default ${c.detectNodeFailure} (host-down recovery, as --detect-node-failure)
    pdFailoverPeriod: DURATION  default ${formatSpan(c.failoverPeriodMs.pd)} (also tikv-, tidb-, tiflashFailoverPeriod)
    sweepInterval: DURATION     default ${formatSpan(c.sweepIntervalMs)}
    componentAccess: MODE       default ${c.componentAccess}: direct (functions in the cluster's VPC) | api-proxy (outside it, through the API server's proxy)
    watchNamespaces: [NS]       default every namespace; as WATCH_NAMESPACES, under the namespaced RBAC (scripts/gen-namespaced-rbac.ts)
    exporterAtRest: MODE        default watch: as EXPORTER_AT_REST, watch | catch-up (quiet sessions drain for seconds and end; ADR 0030)
  sim:                          simulated world
    nodes: N                    default ${s.nodes} (1..${MAX_NODES}): node-0..node-N-1
      | [{name, count, labels, taints: [{key, value, effect}], zones: [Z]}]   node pools: <name>-<i>
    podStartup: DURATION        default ${formatSpan(s.podStartupMs)}
    storeDrainRate: N           default ${s.storeDrainPerMinute}: region replicas a removing store hands off a minute
    storeRemoval: DURATION      instead of storeDrainRate: the time a store of regionsPerStore replicas takes to drain
    regionsPerStore: N          default ${s.regionsPerStore}: region replicas a TiKV store holds (leaders: a third, with 3 replicas)
    tiflashReplicas: N          default ${s.tiflashReplicas}: the largest TiFlash replica count of any table (learners on TiFlash)
    leaderEviction: DURATION    default ${formatSpan(s.leaderEvictionMs)}
    maxStoreDownTime: DURATION  default ${formatSpan(s.maxStoreDownTimeMs)}
  cluster: MANIFEST             a TidbCluster (kind/apiVersion may be left out; namespace default "default")
  objects: [MANIFEST]           Secrets, ConfigMaps, Roles, RoleBindings, ClusterRoles, ClusterRoleBindings created first
  accessEntries: [{principalArn, username, kubernetesGroups}]   the simulated EKS access entries (admin as:)
  timeline:                     entries run in order, each with exactly one verb:
    - waitFor: ready | {component: pd|tikv|tiflash|tidb|ticdc|pump|tiproxy, phase: Normal|Upgrade|Scale}
               | {jsonpath: PATH, equals: VALUE}     (no match equals null)
               | {jsonpath: PATH, notEquals: VALUE}  (no match equals null)
               | {jsonpath: PATH, greaterThan: INT}  (an integer value, or a string of digits, above INT)
      timeout: DURATION                              (waitFor only; default ${formatSpan(DEFAULT_WAIT_TIMEOUT_MS)})
    - patch: {...}                                   JSON merge patch of the TidbCluster
    - annotate: {KEY: "VALUE" | null}
    - fault: {kind: pod-down|pod-deleted, pod: POD} | {kind: node-down, node: NODE}
             | {kind: image-broken, image: IMAGE} | {kind: pd-api-down, for: DURATION}
             | {kind: pd-schedulers-lost, for: DURATION} | {kind: pd-join-interrupted, pod: PD POD}
             | {kind: kube-api-errors, rate: 0..1, for: DURATION}
             | {kind: step-crash, afterActions: N, times: N} | {kind: duplicate-delivery, factor: 2..10, for: DURATION}
    - heal: {pod: POD} | {node: NODE} | {image: IMAGE}
    - world: {pdLeader: POD} | {pdConfig: {...}} | {ticdcOwner: POD} | {tiflashReplicas: N}
    - admin: {action: reconcile|force-upgrade|pause|resume|status|history, component: C, limit: N, as: ARN, expect: forbidden}
               (component: force-upgrade only; limit: history only, 1..100; as: the caller's IAM role or user ARN,
               default the scenario operator, admin everywhere; expect: forbidden passes only if the caller is refused)
    - advance: DURATION
    - mark: NAME                                     remember the cluster's pods (uid, restarts) and the actions so far
    - expect: {since: NAME, podsKept: true, reconcilerWrites: [Kind | Kind/status, ...]}
               (checked at once: the marked pods kept, no restart; the reconciler's only writes since; [] = none)
    - delete: true
  DURATION: ms, s, m, h and combinations (250ms, 90s, 5m, 1h30m).
  POD: <cluster>-<component>-<ordinal>, for a component the cluster has and an ordinal below its
  largest replicas plus maxFailoverCount (default 3; 0 for ticdc, pump and tiproxy).`;

/**
 * Parses the arguments after `simulate`. Never throws; `--help` anywhere asks for help; errors are
 * one line with the usage and a pointer to `--help`.
 */
export function parseSimulateArgs(argv: readonly string[]): ParseSimulateArgsResult {
  let file: string | undefined;
  let out: string | undefined;
  let seed: number | undefined;
  let quiet = false;
  let fromKubeconfig: string | undefined;
  let fromRef: string | undefined;
  if (argv.some((arg) => arg === '--help' || arg === '-h')) return { kind: 'help' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = splitFlag(arg);
    if (flag === '--quiet' && inline === undefined) quiet = true;
    else if (flag === '--from-kubeconfig') {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '' || value.startsWith('--')) return error('--from-kubeconfig needs a kubeconfig file');
      if (fromKubeconfig !== undefined) return error('--from-kubeconfig is given twice');
      fromKubeconfig = value;
    } else if (flag === '--out' || flag === '--seed') {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) return error(`${flag} needs a value`);
      if (flag === '--out') {
        if (out !== undefined) return error('--out is given twice');
        out = value;
      } else {
        if (seed !== undefined) return error('--seed is given twice');
        const parsed = parseSeed(value);
        if (parsed === undefined) return error(`--seed must be a whole number from 0 to ${MAX_SEED}, got "${value}"`);
        seed = parsed;
      }
    } else if (arg.startsWith('-')) return error(`unknown option "${arg}"`);
    else if (file === undefined) file = arg;
    else if (fromRef === undefined && fromKubeconfig !== undefined) fromRef = arg;
    else return error(`only one FILE may be given, got "${file}" and "${arg}"`);
  }
  if (file === undefined) return error('missing FILE');
  let from: SimulateOptions['from'];
  if (fromKubeconfig !== undefined) {
    const parts = (fromRef ?? '').split('/');
    if (fromRef === undefined) return error('--from-kubeconfig needs the TidbCluster as NS/NAME after FILE');
    if (parts.length !== 2 || !parts[0] || !parts[1]) return error(`"${fromRef}" is not NS/NAME`);
    from = { kubeconfig: fromKubeconfig, namespace: parts[0], name: parts[1] };
  }
  return { kind: 'run', options: { file, quiet, ...(out === undefined ? {} : { out }), ...(seed === undefined ? {} : { seed }), ...(from === undefined ? {} : { from }) } };
}

/** The exit code for a finished run: 0 when it passed, 1 when it did not. */
export function exitCodeFor(report: { readonly passed: boolean }): number {
  return report.passed ? EXIT_PASSED : EXIT_FAILED;
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}

function parseSeed(text: string): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return isSeed(n) ? n : undefined;
}

function error(message: string): ParseSimulateArgsResult {
  return { kind: 'error', exitCode: EXIT_INVALID, error: `simulate: ${message} (usage: ${USAGE}; see --help)` };
}
