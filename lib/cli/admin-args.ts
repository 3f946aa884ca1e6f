/**
 * The arguments of `tidb-reconciler admin <action> <namespace>/<name>`: which admin request to send
 * (the payload of `lib/platform/admin-request.ts`, unchanged) and where to send it — a deployed
 * stack's admin function URL (`--url URL`, signed with your AWS credentials), its admin Lambda by
 * direct invoke (`--function NAME --region R`: status and history only, a direct invoke carries no
 * caller), or the local stack of `npm start` (its endpoint file). Parsing is pure; every error
 * names the argument or field at fault.
 */
import { didYouMean, parseArgsWithHints } from './suggest.js';
import { ADMIN_COMPONENTS, isMutatingAction, MAX_HISTORY_LIMIT, parseAdminRequest, type AdminRequest } from '../platform/admin-request.js';
import { durationOption } from '../platform/duration.js';
import { LOCAL_STACK_FILE } from '../local/admin-endpoint.js';
import { MAX_REDRIVE_PER_SECOND, parseRedriveRequest, type RedriveRequest } from '../platform/redrive-request.js';

/** The command's actions, in the words an operator types, and the admin function action each sends. */
export const CLI_ADMIN_ACTIONS = {
  'force-upgrade': 'force-upgrade',
  'reconcile-now': 'reconcile',
  pause: 'pause',
  resume: 'resume',
  status: 'status',
  history: 'history',
} as const;

/** One of the command's action words. */
export type CliAdminAction = keyof typeof CLI_ADMIN_ACTIONS;

/** Every action word, the cluster actions and `redrive` (which names no cluster). */
const ACTION_WORDS = [...Object.keys(CLI_ADMIN_ACTIONS), 'redrive'];

/** The options only `redrive` takes. */
const REDRIVE_FLAGS = ['dry-run', 'status', 'wait', 'max-per-second'] as const;

/** How long the command waits for an answer unless `--timeout` says otherwise. */
export const DEFAULT_ADMIN_TIMEOUT_MS = 90_000;

/** Where the request goes: a deployed admin Lambda, or the local stack through its endpoint file. */
export type AdminTarget =
  | { readonly kind: 'url'; readonly url: string; readonly region: string }
  | { readonly kind: 'lambda'; readonly functionName: string; readonly region: string; readonly endpoint?: string }
  | { readonly kind: 'local'; readonly stackFile: string };

/** A parsed command line: the validated request, its target, the answer's format and the time limit. */
export type AdminCommand = {
  readonly request: AdminRequest | RedriveRequest;
  /** redrive: after starting, follow the move task until it ends (or the time limit). */
  readonly wait?: boolean;
  readonly target: AdminTarget;
  readonly json: boolean;
  /** `-o wide`: every column and every action in full, whatever the terminal's width. */
  readonly wide: boolean;
  readonly timeoutMs: number;
};

/** Parsed arguments, or the usage error (exit 2) naming the argument or field. */
export type ParseAdminArgsResult = { readonly ok: true; readonly command: AdminCommand } | { readonly ok: false; readonly field: string; readonly error: string };

/** Help text of `admin`. */
export const ADMIN_HELP = `Usage: tidb-reconciler admin <action> [<eks-cluster>/]<namespace>/<name> [options]
       tidb-reconciler admin <action> -n <namespace> <name> [options]
       tidb-reconciler admin redrive [--dry-run | --status | --wait] [options]

Invokes the admin function for one TidbCluster (redrive: for the dead-letter queue) and prints its answer.

Actions:
  status          the cluster's components, conditions, lease, deadlines and next wake-up
  history         the step history, newest first (--limit N, 1..${MAX_HISTORY_LIMIT}, default 20)
  reconcile-now   run one reconcile step now (through the same lease as queued steps)
  pause | resume  set spec.paused true | false, then step
  force-upgrade   set tidb.pingcap.com/force-upgrade on the TidbCluster, then step (--component pd;
                  TiDB Operator v1 has a force upgrade for PD only)
  redrive         (no cluster) move every message of the dead-letter queue back to the reconcile
                  queue with an SQS message move task, printing SQS's approximate counts:
                  --dry-run how many wait; --status the recent move tasks; --wait follow the task
                  until it ends; --max-per-second N (1..${MAX_REDRIVE_PER_SECOND}; default: as SQS optimises).
                  Starting one needs --url (or the local stack) and Kubernetes RBAC to patch
                  tidbclusters in every namespace (docs/operations.md, "The dead-letter queue")

Where:
  --url URL          the deployed admin function URL (serverless deploy prints it); the request is
                     signed (SigV4) with your AWS credentials (the default provider chain). Every
                     action; the mutating ones need Kubernetes RBAC to let your access entry's user
                     patch tidbclusters in the namespace (README: "Admin actions: who may").
  --function NAME    the deployed admin function by direct invoke (its live alias unless NAME has a
                     qualifier): status, history, redrive --dry-run and --status only (a direct
                     invoke carries no caller); needs --region (or AWS_REGION)
  --region R         the region (--function; --url when its host does not name one)
  --endpoint URL     a Lambda API endpoint other than AWS's for --function (e.g. LocalStack)
  --local FILE       the local stack's endpoint file (default: ./${LOCAL_STACK_FILE}, written by
                     \`npm start\` in its working directory; it holds the local operator's
                     credentials); used when neither --url nor --function is given

Options:
  -n, --namespace NS the TidbCluster's namespace, when the cluster is given by name alone
  -o, --output F     wide: history with every column (rules, every action, duration) uncut;
                     json: as --json. Without it, history fits the terminal, one line per step
  --json             print the admin function's answer as JSON, unformatted
  --timeout D        how long to wait for the answer (default ${DEFAULT_ADMIN_TIMEOUT_MS / 1000}s)

Exit codes: 0 the answer is ok; 1 the answer is ok:false, or the function failed or could not be
reached; 2 usage error (naming the argument).

Examples:
  tidb-reconciler admin history demo/basic
  tidb-reconciler admin history -n demo basic -o wide
  tidb-reconciler admin pause team-a/basic --url https://abc123.lambda-url.us-west-2.on.aws/
  tidb-reconciler admin status demo/basic --function tidb-reconciler-prod-admin --region us-west-2
  tidb-reconciler admin redrive --dry-run
  tidb-reconciler admin redrive --wait --url https://abc123.lambda-url.us-west-2.on.aws/`;

/** Parses the arguments after `admin`. `env` supplies AWS_REGION / AWS_DEFAULT_REGION for --region. */
export function parseAdminArgs(args: readonly string[], env: NodeJS.ProcessEnv = {}): ParseAdminArgsResult {
  let parsed: ReturnType<typeof parseRaw>;
  try {
    parsed = parseRaw(args);
  } catch (err) {
    return fail('arguments', (err as Error).message);
  }
  const { values, positionals } = parsed;
  const [action, ref, ...extra] = positionals;
  if (action === undefined) return fail('action', `the action is missing (one of ${ACTION_WORDS.join(', ')})`);
  if (action === 'redrive') return redriveCommand(ref, values, env);
  if (!isCliAction(action)) return fail('action', `unknown action "${action}"${didYouMean(action, ACTION_WORDS)} (one of ${ACTION_WORDS.join(', ')})`);
  const redriveFlag = REDRIVE_FLAGS.find((flag) => values[flag] !== undefined);
  if (redriveFlag !== undefined) return fail(`--${redriveFlag}`, `--${redriveFlag} is for redrive only`);
  if (ref === undefined) return fail('cluster', 'the TidbCluster is missing: give it as <namespace>/<name> or -n <namespace> <name>');
  if (extra.length > 0) return fail('arguments', `unexpected argument "${extra[0]}"`);
  const cluster = clusterOf(ref, values.namespace);
  if ('error' in cluster) return fail(cluster.field, cluster.error);
  const output = values.output;
  if (output !== undefined && output !== 'wide' && output !== 'json') return fail('--output', `--output must be wide or json, got "${output}"`);
  const payload = payloadOf(action, cluster.cluster, values);
  if ('error' in payload) return fail(payload.field, payload.error);
  const request = parseAdminRequest(payload.payload);
  if (!request.ok) return fail(request.error.field, request.error.message);
  const target = targetOf(values, env);
  if ('error' in target) return fail(target.field, target.error);
  if (target.target.kind === 'lambda' && isMutatingAction(request.request.action)) {
    return fail('--function', `${action} changes the cluster, so the admin function must know who asks: send it to the function URL with --url URL (signed with your AWS credentials); --function is a direct invoke, which carries no caller (status and history only)`);
  }
  let timeoutMs: number;
  try {
    timeoutMs = durationOption('--timeout', values.timeout, DEFAULT_ADMIN_TIMEOUT_MS);
  } catch (err) {
    return fail('--timeout', (err as Error).message);
  }
  return { ok: true, command: { request: request.request, target: target.target, json: values.json === true || output === 'json', wide: output === 'wide', timeoutMs } };
}

/**
 * `admin redrive [--dry-run | --status] [--wait] [--max-per-second N]`: no cluster (the dead-letter
 * queue holds every cluster's messages); starting one needs the function URL (a verified caller).
 */
function redriveCommand(extra: string | undefined, values: Values, env: NodeJS.ProcessEnv): ParseAdminArgsResult {
  if (extra !== undefined) return fail('arguments', `redrive takes no TidbCluster ("${extra}"): it moves every message of the dead-letter queue back to the reconcile queue`);
  for (const flag of ['namespace', 'component', 'limit', 'output'] as const) {
    if (values[flag] !== undefined) return fail(`--${flag}`, `--${flag} is not an option of redrive`);
  }
  if (values['dry-run'] === true && values.status === true) return fail('--dry-run', '--dry-run and --status are two different questions: give one');
  const mode = values['dry-run'] === true ? 'dry-run' : values.status === true ? 'status' : 'start';
  if (values.wait === true && mode !== 'start') return fail('--wait', '--wait follows a redrive it starts: not with --dry-run or --status');
  const rateText = values['max-per-second'];
  if (rateText !== undefined && mode !== 'start') return fail('--max-per-second', '--max-per-second is for starting a redrive only');
  if (rateText !== undefined && !/^[0-9]+$/.test(rateText)) return fail('--max-per-second', `--max-per-second must be a whole number from 1 to ${MAX_REDRIVE_PER_SECOND}, got "${rateText}"`);
  const request = parseRedriveRequest({ action: 'redrive', mode, ...(rateText === undefined ? {} : { maxPerSecond: Number(rateText) }) });
  if (!request.ok) return fail(request.error.field === 'maxPerSecond' ? '--max-per-second' : request.error.field, request.error.message.replace(/^maxPerSecond/, '--max-per-second'));
  const target = targetOf(values, env);
  if ('error' in target) return fail(target.field, target.error);
  if (target.target.kind === 'lambda' && mode === 'start') {
    return fail('--function', 'redrive moves messages, so the admin function must know who asks: send it to the function URL with --url URL; --function (a direct invoke, no caller) takes --dry-run and --status only');
  }
  let timeoutMs: number;
  try {
    timeoutMs = durationOption('--timeout', values.timeout, DEFAULT_ADMIN_TIMEOUT_MS);
  } catch (err) {
    return fail('--timeout', (err as Error).message);
  }
  return { ok: true, command: { request: request.request, target: target.target, json: values.json === true, wide: false, timeoutMs, wait: values.wait === true } };
}

/** `<namespace>/<name>`, or a name with `-n <namespace>` as kubectl takes it; never both. */
function clusterOf(ref: string, namespace: string | undefined): { cluster: { eksCluster?: string; namespace?: string; name?: string } } | Failure {
  const parts = ref.split('/');
  // <eks-cluster>/<namespace>/<name>: a deployment of several EKS clusters (docs/adr/0027).
  if (namespace === undefined && parts.length === 3) return { cluster: { eksCluster: parts[0], namespace: parts[1], name: parts[2] } };
  if (namespace !== undefined) {
    if (parts.length !== 1) return { field: '--namespace', error: `-n ${namespace} and "${ref}" both name a namespace: give <namespace>/<name> or -n <namespace> <name>` };
    return { cluster: { namespace, name: ref } };
  }
  if (parts.length !== 2) return { field: 'cluster', error: `"${ref}" is not <namespace>/<name> (or give -n <namespace> ${ref}), nor <eks-cluster>/<namespace>/<name>` };
  return { cluster: { namespace: parts[0], name: parts[1] } };
}

function parseRaw(args: readonly string[]) {
  return parseArgsWithHints({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      component: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      namespace: { type: 'string', short: 'n' },
      output: { type: 'string', short: 'o' },
      url: { type: 'string' },
      function: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      local: { type: 'string' },
      timeout: { type: 'string' },
      'dry-run': { type: 'boolean' },
      status: { type: 'boolean' },
      wait: { type: 'boolean' },
      'max-per-second': { type: 'string' },
    },
  });
}

type Values = ReturnType<typeof parseRaw>['values'];
type Failure = { readonly field: string; readonly error: string };

function payloadOf(action: CliAdminAction, cluster: { eksCluster?: string; namespace?: string; name?: string }, values: Values): { payload: Record<string, unknown> } | Failure {
  if (values.component !== undefined && action !== 'force-upgrade') return { field: '--component', error: '--component is for force-upgrade only' };
  if (values.limit !== undefined && action !== 'history') return { field: '--limit', error: '--limit is for history only' };
  const payload: Record<string, unknown> = { action: CLI_ADMIN_ACTIONS[action], cluster };
  if (action === 'force-upgrade') payload['component'] = values.component ?? ADMIN_COMPONENTS[0];
  if (values.limit !== undefined) {
    if (!/^[0-9]+$/.test(values.limit)) return { field: 'limit', error: `--limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}, got "${values.limit}"` };
    payload['limit'] = Number(values.limit);
  }
  return { payload };
}

function targetOf(values: Values, env: NodeJS.ProcessEnv): { target: AdminTarget } | Failure {
  if (values.url !== undefined) return urlTarget(values, env);
  const fn = values.function;
  if (fn === undefined) {
    for (const flag of ['region', 'endpoint'] as const) {
      if (values[flag] !== undefined) return { field: `--${flag}`, error: `--${flag} needs --function (the deployed admin function)` };
    }
    return { target: { kind: 'local', stackFile: values.local ?? LOCAL_STACK_FILE } };
  }
  if (values.local !== undefined) return { field: '--local', error: '--local and --function name two different stacks: give one' };
  if (fn === '') return { field: '--function', error: '--function needs the admin function name or ARN' };
  const region = values.region ?? env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'];
  if (region === undefined || region === '') return { field: '--region', error: '--region is missing: the admin function\'s region is needed with --function (or set AWS_REGION)' };
  if (values.endpoint !== undefined && !/^https?:\/\/[^/]/.test(values.endpoint)) return { field: '--endpoint', error: `--endpoint must be an http(s) URL, got "${values.endpoint}"` };
  return { target: { kind: 'lambda', functionName: fn, region, ...(values.endpoint === undefined ? {} : { endpoint: values.endpoint }) } };
}

/** A function URL: https (http only to a loopback host, e.g. a test's), its region from --region, AWS_REGION or its host. */
function urlTarget(values: Values, env: NodeJS.ProcessEnv): { target: AdminTarget } | Failure {
  for (const flag of ['function', 'local', 'endpoint'] as const) {
    if (values[flag] !== undefined) return { field: `--${flag}`, error: `--${flag} and --url name two different ways in: give one` };
  }
  let url: URL;
  try {
    url = new URL(values.url ?? '');
  } catch {
    return { field: '--url', error: `--url must be the admin function URL (https://ID.lambda-url.REGION.on.aws/), got "${values.url ?? ''}"` };
  }
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return { field: '--url', error: `--url must be an https URL, got "${values.url ?? ''}"` };
  const fromHost = /\.lambda-url\.([a-z0-9-]+)\.on\.aws$/.exec(url.hostname)?.[1];
  const region = values.region ?? fromHost ?? env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'];
  if (region === undefined || region === '') return { field: '--region', error: '--region is missing: the function URL\'s host names no region (give --region or set AWS_REGION)' };
  return { target: { kind: 'url', url: url.toString(), region } };
}

function isCliAction(value: string): value is CliAdminAction {
  return Object.prototype.hasOwnProperty.call(CLI_ADMIN_ACTIONS, value);
}

function fail(field: string, error: string): ParseAdminArgsResult {
  return { ok: false, field, error };
}
