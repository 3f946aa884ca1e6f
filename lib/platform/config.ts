/**
 * Configuration from the environment, parsed and validated once (at cold start) into typed settings.
 * Every problem names its variable and what is wrong with the value, e.g.
 * `BACKOFF_MAX_MS: "abc" is not a number of milliseconds`; all problems are reported together, so a
 * deployment is fixed in one round. Unset or empty variables take the documented defaults.
 */

import { DEFAULT_MAX_REPLICAS, type ReconcileConfig } from '../model/config.js';
import { TerminalError } from './errors.js';
import { quoteForEcho } from '../model/echo.js';

/**
 * What the step engine needs besides its ports. `leaseForMs` bounds what a crashed step costs (the
 * first trigger that finds its lease held arms a wake-up at the lease's end); it should exceed the
 * function timeout, or steps are cut short, because `runStep` never lets a step's budget run past its
 * lease, and stay below the queue's visibility timeout, so a crashed step's own redelivered message
 * finds the lease expired. The engine stops acting when less than `safetyMarginMs` of its time budget
 * is left and comes back after `budgetRetryAfterMs`. A warm process keeps what it observed of at most
 * `observedClusters` clusters for the executors of their steps (least recently used first to go).
 */
export type StepConfig = {
  readonly leaseForMs: number;
  /**
   * How often a cluster at rest has its components' health read (docs/adr/0024): a step that
   * completes on a cluster it may read at rest arms one health check this long ahead. Absent or 0:
   * none (the sweep's steps only).
   */
  readonly healthIntervalMs?: number;
  readonly observedClusters: number;
  readonly historyTtlSeconds: number;
  readonly safetyMarginMs: number;
  readonly budgetRetryAfterMs: number;
  readonly reconcile: ReconcileConfig;
  /** The per-EKS-cluster API request budget steps honour (docs/adr/0028); absent or a rate of 0: none. */
  readonly apiBudget?: ApiBudgetConfig;
};

/**
 * The API request budget of one EKS cluster (lib/budget/gcra.ts, docs/adr/0028): on average at most
 * `requestsPerSecond`, and in any window of L seconds at most `burstRequests` + `requestsPerSecond`·L;
 * a step is charged `stepRequests` (a full read of a full cluster is 23) before it claims, and waits
 * its turn when the budget is spent. `API_BUDGET_REQUESTS_PER_SECOND` (0 turns it off),
 * `API_BUDGET_BURST_REQUESTS`, `API_BUDGET_STEP_REQUESTS` (at most the burst).
 */
export type ApiBudgetConfig = { readonly requestsPerSecond: number; readonly burstRequests: number; readonly stepRequests: number };

/** The budget's defaults: 50 a second on average, 100 in any second (issue 30's goals at 10 000 clusters). */
export const DEFAULT_API_BUDGET: ApiBudgetConfig = { requestsPerSecond: 50, burstRequests: 50, stepRequests: 25 };

/**
 * The sweep skips keys whose armed wake-up is due within `dueWithinMs` (they are about to run anyway),
 * and keeps at most `sendConcurrency` batches (state reads, then one SendMessageBatch) in flight
 * (default `DEFAULT_SWEEP_SEND_CONCURRENCY`); it spreads its messages over `spreadSeconds`
 * (lib/step/sweep-spread.ts; `SWEEP_SPREAD_SECONDS`, default `DEFAULT_SWEEP_SPREAD_SECONDS`; absent
 * or 0, every message is sent at once).
 */
export type SweepConfig = {
  readonly dueWithinMs: number;
  readonly sendConcurrency?: number;
  readonly spreadSeconds?: number;
  /**
   * A cluster at rest is stepped in full (every kind read) once this long after its last full read,
   * spread by key over a further `fullReadSpreadMs` (docs/adr/0024); before that the sweep checks it
   * cheaply. Absent: every sweep steps every cluster in full.
   */
  readonly fullReadIntervalMs?: number;
  readonly fullReadSpreadMs?: number;
  /** The API budget (the steps' own, `StepConfig.apiBudget`): the sweep sends no more full steps than its share of it (sweep-spread.ts). */
  readonly apiBudget?: ApiBudgetConfig;
};

/** Names of the deployed resources (serverless.yml sets them); undefined outside Lambda. */
export type DeploymentConfig = {
  readonly stateTable?: string;
  readonly queueUrl?: string;
  readonly queueArn?: string;
  readonly schedulerGroup?: string;
  readonly schedulerRoleArn?: string;
  readonly clusterName?: string;
};

/**
 * Everything configurable. `watchNamespaces` (`WATCH_NAMESPACES`, TiDB Operator's
 * `clusterScoped: false`): the only namespaces whose TidbClusters this deployment lists, watches and
 * steps; undefined means every namespace.
 */
export type ReconcilerConfig = {
  readonly step: StepConfig;
  readonly sweep: SweepConfig;
  readonly deployment: DeploymentConfig;
  readonly watchNamespaces?: readonly string[];
  /**
   * The IANA zone BackupSchedules' `spec.schedule` is read in (`BACKUP_SCHEDULE_TIMEZONE`, default
   * `UTC`): TiDB Operator v1 reads it in the operator pod's local zone; here the zone is explicit and
   * becomes each EventBridge schedule's `ScheduleExpressionTimezone`.
   */
  readonly backupScheduleTimeZone?: string;
};

/** The zone BackupSchedules are read in when the deployment sets none. */
export const DEFAULT_BACKUP_SCHEDULE_TIMEZONE = 'UTC';

/** The defaults: TiDB Operator's numbers where it has them (backoff 1 s → 100 s, failover after 5 min). */
export const DEFAULT_STEP_CONFIG: StepConfig = {
  leaseForMs: 120_000,
  observedClusters: 1_000,
  historyTtlSeconds: 7 * 24 * 3600,
  safetyMarginMs: 5_000,
  budgetRetryAfterMs: 1_000,
  reconcile: {
    autoFailover: true,
    detectNodeFailure: false,
    volumeModifying: false,
    failoverPeriodMs: { pd: 300_000, tikv: 300_000, tidb: 300_000, tiflash: 300_000 },
    backoff: { baseMs: 1_000, maxMs: 100_000, jitterRatio: 0.1 },
    maxReplicas: DEFAULT_MAX_REPLICAS,
  },
};

/**
 * The highest `MAX_REPLICAS` accepted: rules build per-member arrays from replicas, and a step must
 * stay cheap (2·10⁷ replicas took 160 MB and 1.9 s).
 */
export const MAX_REPLICAS_CEILING = 100_000;

/**
 * The seconds the sweep spreads its messages over unless `SWEEP_SPREAD_SECONDS` says otherwise: its
 * own interval (serverless.yml, `rate(5 minutes)`), so the fleet's sweep steps arrive evenly
 * instead of all at once.
 */
export const DEFAULT_SWEEP_SPREAD_SECONDS = 300;
/** The longest spread: SQS's longest message delay (900 s, lib/queue/port.ts `MAX_DELAY_SECONDS`). */
export const MAX_SWEEP_SPREAD_SECONDS = 900;
/** The sweep's defaults. */
export const DEFAULT_SWEEP_CONFIG: SweepConfig = { dueWithinMs: 60_000, fullReadIntervalMs: 3 * 3_600_000, fullReadSpreadMs: 1_800_000, spreadSeconds: DEFAULT_SWEEP_SPREAD_SECONDS };

/** A health check's interval unless `HEALTH_INTERVAL_MS` says otherwise: TiDB Operator's 30 s resync. */
export const DEFAULT_HEALTH_INTERVAL_MS = 30_000;
/** The longest health interval: one SQS delay (900 s). */
export const MAX_HEALTH_INTERVAL_MS = 900_000;

/**
 * Batches the sweep keeps in flight unless `SWEEP_SEND_CONCURRENCY` says otherwise: enough that
 * 10 000 clusters (1 000 batches) fit well inside the sweep's minute, few enough that the state
 * table and the queue see a bounded burst.
 */
export const DEFAULT_SWEEP_SEND_CONCURRENCY = 8;
/** The most batches a sweep may keep in flight. */
export const MAX_SWEEP_SEND_CONCURRENCY = 64;

/** Invalid configuration: `problems` has one line per bad variable; `field` is the first variable. */
export class ConfigError extends TerminalError {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`, { field: problems[0]?.split(':')[0] });
    this.problems = problems;
  }
}

/** The environment as a plain map (`process.env` fits). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Parses `env`; throws `ConfigError` listing every problem. Pure: reads only its argument. */
export function parseConfig(env: Env): ReconcilerConfig {
  const read = new EnvReader(env);
  const d = DEFAULT_STEP_CONFIG;
  const leaseForMs = read.milliseconds('LEASE_MS', d.leaseForMs, 1);
  const backoff = {
    baseMs: read.milliseconds('BACKOFF_BASE_MS', d.reconcile.backoff.baseMs, 1),
    maxMs: read.milliseconds('BACKOFF_MAX_MS', d.reconcile.backoff.maxMs, 1),
    jitterRatio: read.ratio('BACKOFF_JITTER', d.reconcile.backoff.jitterRatio),
  };
  if (backoff.maxMs < backoff.baseMs) {
    read.problem(`BACKOFF_MAX_MS: ${backoff.maxMs} is below BACKOFF_BASE_MS (${backoff.baseMs})`);
  }
  const healthIntervalMs = read.milliseconds('HEALTH_INTERVAL_MS', DEFAULT_HEALTH_INTERVAL_MS, 0);
  if (healthIntervalMs > MAX_HEALTH_INTERVAL_MS) read.problem(`HEALTH_INTERVAL_MS: ${healthIntervalMs} is above ${MAX_HEALTH_INTERVAL_MS} (one SQS delay)`);
  const step: StepConfig = {
    leaseForMs,
    healthIntervalMs,
    observedClusters: read.count('OBSERVED_CLUSTERS', d.observedClusters, 1),
    historyTtlSeconds: read.seconds('HISTORY_TTL_SECONDS', d.historyTtlSeconds, 1),
    safetyMarginMs: read.milliseconds('STEP_SAFETY_MARGIN_MS', d.safetyMarginMs, 0),
    budgetRetryAfterMs: read.milliseconds('BUDGET_RETRY_AFTER_MS', d.budgetRetryAfterMs, 0),
    reconcile: {
      autoFailover: read.boolean('AUTO_FAILOVER', d.reconcile.autoFailover),
      detectNodeFailure: read.boolean('DETECT_NODE_FAILURE', d.reconcile.detectNodeFailure ?? false),
      volumeModifying: readFeatureGates(read).VolumeModifying,
      failoverPeriodMs: readFailover(read),
      backoff,
      maxReplicas: read.optionalCount('MAX_REPLICAS', 1, MAX_REPLICAS_CEILING) ?? DEFAULT_MAX_REPLICAS,
    },
  };
  checkLease(read, step.leaseForMs, step.safetyMarginMs);
  const apiBudget = readApiBudget(read);
  const sendConcurrency = read.optionalCount('SWEEP_SEND_CONCURRENCY', 1, MAX_SWEEP_SEND_CONCURRENCY);
  const spreadSeconds = read.optionalCount('SWEEP_SPREAD_SECONDS', 0, MAX_SWEEP_SPREAD_SECONDS) ?? DEFAULT_SWEEP_SPREAD_SECONDS;
  const sweep: SweepConfig = {
    dueWithinMs: read.milliseconds('SWEEP_DUE_WITHIN_MS', DEFAULT_SWEEP_CONFIG.dueWithinMs, 0),
    fullReadIntervalMs: read.milliseconds('SWEEP_FULL_READ_INTERVAL_MS', DEFAULT_SWEEP_CONFIG.fullReadIntervalMs ?? 0, 0),
    fullReadSpreadMs: read.milliseconds('SWEEP_FULL_READ_SPREAD_MS', DEFAULT_SWEEP_CONFIG.fullReadSpreadMs ?? 0, 0),
    ...(sendConcurrency === undefined ? {} : { sendConcurrency }),
    spreadSeconds,
    apiBudget,
  };
  const deployment = readDeployment(read);
  const watchNamespaces = read.namespaces('WATCH_NAMESPACES');
  const backupScheduleTimeZone = readTimeZone(read, 'BACKUP_SCHEDULE_TIMEZONE');
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return { step: { ...step, apiBudget }, sweep, deployment, ...(watchNamespaces === undefined ? {} : { watchNamespaces }), ...(backupScheduleTimeZone === undefined ? {} : { backupScheduleTimeZone }) };
}

let loaded: ReconcilerConfig | undefined;

/** `parseConfig(process.env)`, once per process: a warm Lambda does not parse again. */
export function loadConfig(): ReconcilerConfig {
  loaded ??= parseConfig(process.env);
  return loaded;
}

function readApiBudget(read: EnvReader): ApiBudgetConfig {
  const d = DEFAULT_API_BUDGET;
  const budget = {
    requestsPerSecond: read.count('API_BUDGET_REQUESTS_PER_SECOND', d.requestsPerSecond, 0),
    burstRequests: read.count('API_BUDGET_BURST_REQUESTS', d.burstRequests, 1),
    stepRequests: read.count('API_BUDGET_STEP_REQUESTS', d.stepRequests, 1),
  };
  // A charge above the burst would hold every step behind it longer than the burst allows.
  if (budget.burstRequests >= 1 && budget.stepRequests > budget.burstRequests) read.problem(`API_BUDGET_STEP_REQUESTS: ${budget.stepRequests} is above API_BUDGET_BURST_REQUESTS (${budget.burstRequests})`);
  return budget;
}

function readFailover(read: EnvReader): ReconcileConfig['failoverPeriodMs'] {
  const d = DEFAULT_STEP_CONFIG.reconcile.failoverPeriodMs;
  return {
    pd: read.milliseconds('PD_FAILOVER_PERIOD_MS', d.pd, 0),
    tikv: read.milliseconds('TIKV_FAILOVER_PERIOD_MS', d.tikv, 0),
    tidb: read.milliseconds('TIDB_FAILOVER_PERIOD_MS', d.tidb, 0),
    tiflash: read.milliseconds('TIFLASH_FAILOVER_PERIOD_MS', d.tiflash, 0),
  };
}

/**
 * The lease must leave a step a budget beyond its two safety margins (work stops one margin before
 * the budget, the commit ends one margin before the lease), outlive a live step and expire before a
 * crashed step's message is redelivered.
 */
function checkLease(read: EnvReader, leaseForMs: number, safetyMarginMs: number): void {
  // A lease below the minimum is already reported by its reader.
  if (leaseForMs >= 1 && leaseForMs <= 2 * safetyMarginMs) {
    read.problem(
      `LEASE_MS: ${leaseForMs} must be longer than twice STEP_SAFETY_MARGIN_MS (${safetyMarginMs}), ` +
        'or no step has time left to act within its lease',
    );
  }
  const visibilitySeconds = read.optionalSeconds('QUEUE_VISIBILITY_TIMEOUT_SECONDS');
  const functionSeconds = read.optionalSeconds('FUNCTION_TIMEOUT_SECONDS');
  if (visibilitySeconds !== undefined && leaseForMs >= visibilitySeconds * 1000) {
    read.problem(
      `LEASE_MS: ${leaseForMs} must be shorter than QUEUE_VISIBILITY_TIMEOUT_SECONDS (${visibilitySeconds} s), ` +
        'or a crashed step would not be retried when its message is redelivered',
    );
  }
  if (functionSeconds !== undefined && leaseForMs <= functionSeconds * 1000) {
    read.problem(
      `LEASE_MS: ${leaseForMs} must be longer than FUNCTION_TIMEOUT_SECONDS (${functionSeconds} s), ` +
        'or a live step could lose its lease',
    );
  }
}

/** An IANA time zone name the runtime knows (as EventBridge Scheduler's `ScheduleExpressionTimezone`). */
function readTimeZone(read: EnvReader, name: string): string | undefined {
  const zone = read.string(name);
  if (zone === undefined) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    read.problem(`${name}: ${quoteForEcho(zone)} is not an IANA time zone (e.g. UTC, Asia/Shanghai)`);
    return undefined;
  }
}

function readDeployment(read: EnvReader): DeploymentConfig {
  const entries = {
    stateTable: read.string('STATE_TABLE'),
    queueUrl: read.string('RECONCILE_QUEUE_URL'),
    queueArn: read.string('RECONCILE_QUEUE_ARN'),
    schedulerGroup: read.string('SCHEDULER_GROUP'),
    schedulerRoleArn: read.string('SCHEDULER_ROLE_ARN'),
    clusterName: read.string('CLUSTER_NAME'),
  };
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as DeploymentConfig;
}

/** The feature gates `FEATURE_GATES` may set, with TiDB Operator v1.6's defaults (`pkg/features`). */
export const FEATURE_GATES = { VolumeModifying: false } as const;

/**
 * `FEATURE_GATES`, in the syntax of TiDB Operator's `--features` flag (`VolumeModifying=true`,
 * comma-separated `Name=true|false`). A gate this reconciler does not have, or a value other than
 * true/false, is a problem naming it.
 */
function readFeatureGates(read: EnvReader): Record<keyof typeof FEATURE_GATES, boolean> {
  const gates: Record<keyof typeof FEATURE_GATES, boolean> = { ...FEATURE_GATES };
  const raw = read.string('FEATURE_GATES');
  for (const part of (raw ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const [name = '', value = ''] = part.split('=').map((x) => x.trim());
    if (!(name in gates)) read.problem(`FEATURE_GATES: ${quoteForEcho(name)} is not a feature gate of this reconciler (${Object.keys(FEATURE_GATES).join(', ')})`);
    else if (value !== 'true' && value !== 'false') read.problem(`FEATURE_GATES: ${quoteForEcho(part)} must be ${name}=true or ${name}=false`);
    else gates[name as keyof typeof FEATURE_GATES] = value === 'true';
  }
  return gates;
}

const WHOLE = /^\d+$/;
/** A namespace name: an RFC 1123 label (Kubernetes `ValidateNamespaceName`, at most 63 characters). */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** Reads typed values, collecting one problem line per bad variable instead of stopping at the first. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  problem(line: string): void {
    this.problems.push(line);
  }

  milliseconds(name: string, fallback: number, min: number): number {
    return this.whole(name, fallback, min, 'a number of milliseconds', 'ms');
  }

  seconds(name: string, fallback: number, min: number): number {
    return this.whole(name, fallback, min, 'a whole number of seconds', 's');
  }

  count(name: string, fallback: number, min: number): number {
    return this.whole(name, fallback, min, 'a whole number', '');
  }

  optionalSeconds(name: string): number | undefined {
    return this.raw(name) === undefined ? undefined : this.seconds(name, 0, 1);
  }

  ratio(name: string, fallback: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (DECIMAL.test(raw) && value <= 1) return value;
    this.problem(`${name}: ${quoteForEcho(raw)} is not a ratio between 0 and 1`);
    return fallback;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.raw(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    this.problem(`${name}: ${quoteForEcho(this.raw(name) ?? '')} is not true or false`);
    return fallback;
  }

  string(name: string): string | undefined {
    return this.raw(name);
  }

  /** A comma list of namespace names, each once; undefined when unset or empty. */
  namespaces(name: string): readonly string[] | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const names = raw.split(',').map((part) => part.trim());
    const bad = names.find((n) => !DNS1123_LABEL.test(n));
    if (bad !== undefined) {
      this.problem(`${name}: ${quoteForEcho(bad)} is not a namespace name (lower-case letters, digits and '-', 1-63 characters, starting and ending with a letter or digit)`);
      return undefined;
    }
    const repeated = names.find((n, i) => names.indexOf(n) !== i);
    if (repeated !== undefined) this.problem(`${name}: ${quoteForEcho(repeated)} is listed twice`);
    return names;
  }

  optionalCount(name: string, min: number, max: number): number | undefined {
    if (this.raw(name) === undefined) return undefined;
    const value = this.whole(name, min, min, 'a whole number', '');
    if (value > max) this.problem(`${name}: ${value} is above the maximum of ${max}`);
    return value;
  }

  private whole(name: string, fallback: number, min: number, what: string, unit: string): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!WHOLE.test(raw) || !Number.isSafeInteger(value)) {
      this.problem(`${name}: ${quoteForEcho(raw)} is not ${what}`);
      return fallback;
    }
    if (value < min) this.problem(`${name}: ${value} is below the minimum of ${min}${unit ? ` ${unit}` : ''}`);
    return value;
  }

  private raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }
}
