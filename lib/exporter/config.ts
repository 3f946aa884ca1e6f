/**
 * The exporter's settings from the environment, parsed once and validated together: every problem
 * names its variable, and all are reported in one `ConfigError`, as `platform/config.ts` does for
 * the step engine. The names are the ones serverless.yml passes to every function (STATE_TABLE,
 * RECONCILE_QUEUE_URL, CLUSTER_NAME, KUBE_ENDPOINT, KUBE_CA_DATA) plus optional EXPORTER_* tuning.
 */
import { parseClusterKey } from '../model/key.js';
import { ConfigError, type Env } from '../platform/config.js';
import { type ExporterAtRest, parseExporterAtRest } from './at-rest.js';
import { watchedResources, type WatchedResource } from './resources.js';

/**
 * How the exporter reaches the API server: on Lambda, the EKS endpoint and CA with a token minted
 * from the function's role; as a daemon, the default kubeconfig lookup (in a pod: its service
 * account; elsewhere: KUBECONFIG or ~/.kube/config).
 */
export type KubeAccess = { kind: 'eks'; endpoint: string; caData: string; clusterName: string; region: string } | { kind: 'default' };

/** Everything the exporter needs from its environment. */
export type ExporterSettings = {
  readonly k8sCluster: string;
  readonly stateTable: string;
  readonly queueUrl: string;
  readonly kube: KubeAccess;
  readonly resources: readonly WatchedResource[];
  readonly flushWindowMs: number;
  readonly checkpointIntervalMs: number;
  readonly watchTimeoutSeconds: number;
  /** Lambda only: time kept back from the invocation for the final send and checkpoint. */
  readonly safetyMarginMs: number;
  /**
   * Lambda only: how long one session may last, before the margin (its schedule's period; the
   * invocation's remaining time bounds it too).
   */
  readonly sessionMs: number;
  /** Lambda only: what a session does at rest (`EXPORTER_AT_REST`, at-rest.ts; default `watch`). */
  readonly atRest: ExporterAtRest;
};

/**
 * Lambda's longest timeout, 900 s ("The maximum timeout value is 900 seconds (15 minutes)",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html): the longest session,
 * and the Lambda mode's default watch timeout, so that each watch stays open for its whole session
 * and a session opens one watch per kind (issue 30: ≤ 60 exporter requests per EKS cluster-hour
 * at rest — 14 kinds × 4 sessions an hour).
 */
export const LAMBDA_MAX_SESSION_SECONDS = 900;

/** Defaults of the tunable settings. */
export const EXPORTER_DEFAULTS = {
  flushWindowMs: 1_000,
  checkpointIntervalMs: 5_000,
  watchTimeoutSeconds: 300,
  safetyMarginMs: 10_000,
  sessionMinutes: 15,
} as const;

/**
 * Parses `env` for `mode`. Required everywhere: CLUSTER_NAME, STATE_TABLE, RECONCILE_QUEUE_URL.
 * Lambda also needs KUBE_ENDPOINT (https), KUBE_CA_DATA (non-empty) and AWS_REGION. Optional:
 * EXPORTER_NAMESPACES (comma-separated; empty = WATCH_NAMESPACES, the functions' namespace-scoped
 * mode, and that empty = all namespaces; a namespace outside a set WATCH_NAMESPACES is refused), EXPORTER_FLUSH_WINDOW_MS,
 * EXPORTER_CHECKPOINT_INTERVAL_MS, EXPORTER_WATCH_TIMEOUT_SECONDS (default 300 s as a daemon, 900 s
 * on Lambda: one watch per kind per session), EXPORTER_SAFETY_MARGIN_MS, EXPORTER_SESSION_MINUTES
 * (Lambda: 1–15, default 15, serverless.yml's exporter schedule period), EXPORTER_AT_REST (`watch`,
 * the default, or `catch-up`: docs/adr/0030). Throws `ConfigError` listing every problem. Pure: reads only its argument.
 */
export function parseExporterEnv(env: Env, mode: 'lambda' | 'daemon'): ExporterSettings {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const required = (name: string, why: string): string => {
    const value = read(name);
    if (value === undefined) problems.push(`${name}: not set (${why})`);
    return value ?? '';
  };
  const whole = (name: string, fallback: number, min: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (/^\d+$/.test(raw) && Number.isSafeInteger(value) && value >= min) return value;
    problems.push(`${name}: ${JSON.stringify(raw)} is not a whole number of at least ${min}`);
    return fallback;
  };
  const k8sCluster = required('CLUSTER_NAME', 'the Kubernetes cluster whose keys and checkpoints these are');
  // A name that cannot start a cluster key would silently map every event to no key at all.
  if (k8sCluster && !parseClusterKey(`${k8sCluster}/default/x`).ok) {
    problems.push(`CLUSTER_NAME: ${JSON.stringify(k8sCluster)} is not a valid cluster name (letters, digits, '.', '_', '-')`);
  }
  const stateTable = required('STATE_TABLE', 'the DynamoDB table holding the checkpoints');
  const queueUrl = required('RECONCILE_QUEUE_URL', 'the SQS queue to send reconcile triggers to');
  const kube = mode === 'lambda' ? eksAccess(required, problems, k8sCluster) : ({ kind: 'default' } as const);
  const resources = scopedResources(read('EXPORTER_NAMESPACES'), read('WATCH_NAMESPACES'), problems);
  const atRest = parseExporterAtRest(read('EXPORTER_AT_REST'));
  if (!atRest.ok) problems.push(atRest.problem);
  const settings: ExporterSettings = {
    k8sCluster,
    stateTable,
    queueUrl,
    kube,
    resources,
    flushWindowMs: whole('EXPORTER_FLUSH_WINDOW_MS', EXPORTER_DEFAULTS.flushWindowMs, 1),
    checkpointIntervalMs: whole('EXPORTER_CHECKPOINT_INTERVAL_MS', EXPORTER_DEFAULTS.checkpointIntervalMs, 0),
    watchTimeoutSeconds: whole('EXPORTER_WATCH_TIMEOUT_SECONDS', mode === 'lambda' ? LAMBDA_MAX_SESSION_SECONDS : EXPORTER_DEFAULTS.watchTimeoutSeconds, 1),
    safetyMarginMs: whole('EXPORTER_SAFETY_MARGIN_MS', EXPORTER_DEFAULTS.safetyMarginMs, 0),
    sessionMs: sessionMinutes(whole('EXPORTER_SESSION_MINUTES', EXPORTER_DEFAULTS.sessionMinutes, 1), problems) * 60_000,
    atRest: atRest.ok ? atRest.mode : 'watch',
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

/** A session of `minutes` fits Lambda's 15-minute limit, or is a problem. */
function sessionMinutes(minutes: number, problems: string[]): number {
  if (minutes * 60 <= LAMBDA_MAX_SESSION_SECONDS) return minutes;
  problems.push(`EXPORTER_SESSION_MINUTES: ${minutes} is longer than Lambda's ${LAMBDA_MAX_SESSION_SECONDS / 60}-minute limit`);
  return EXPORTER_DEFAULTS.sessionMinutes;
}

function eksAccess(required: (name: string, why: string) => string, problems: string[], clusterName: string): KubeAccess {
  const endpoint = required('KUBE_ENDPOINT', 'the EKS API server URL');
  if (endpoint && !endpoint.startsWith('https://')) problems.push(`KUBE_ENDPOINT: ${JSON.stringify(endpoint)} is not an https:// URL`);
  const caData = required('KUBE_CA_DATA', 'the base64 PEM CA of the EKS cluster (the kubeCaData parameter)');
  const region = required('AWS_REGION', 'the region to mint EKS tokens in');
  return { kind: 'eks', endpoint, caData, clusterName, region };
}

/**
 * The watches: EXPORTER_NAMESPACES', else WATCH_NAMESPACES' (the deployment's namespace-scoped mode,
 * whose RBAC grants nothing elsewhere), else cluster-wide.
 */
function scopedResources(own: string | undefined, watch: string | undefined, problems: string[]): WatchedResource[] {
  const split = (raw: string | undefined): string[] => (raw ?? '').split(',').map((ns) => ns.trim()).filter((ns) => ns !== '');
  const watched = split(watch);
  const list = own === undefined ? watched : split(own);
  const name = own === undefined ? 'WATCH_NAMESPACES' : 'EXPORTER_NAMESPACES';
  const outside = watched.length === 0 ? [] : list.filter((ns) => !watched.includes(ns));
  if (outside.length > 0) problems.push(`EXPORTER_NAMESPACES: ${outside.map((ns) => JSON.stringify(ns)).join(', ')} not in WATCH_NAMESPACES (${watched.join(',')})`);
  try {
    return watchedResources(list);
  } catch (err) {
    problems.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  }
}
