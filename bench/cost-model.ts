/**
 * The cost model (issue 30): what the deployment costs a month in AWS list prices
 * (bench/cost-prices.ts), from counts measured on the simulated stack (bench/cost-measure.ts) and
 * the configured memory and architecture of each function (serverless.yml), per TidbCluster at rest
 * and with three operations a day, at 1–10 000 TidbClusters and 1 or 5 EKS clusters (N EKS clusters
 * as one deployment, docs/adr/0027: one exporter invocation with a session per EKS cluster, one
 * sweep, one set of metrics), beside TiDB Operator's
 * controller-manager pod at its Helm defaults. Measured: requests by target, steps, invocations,
 * state-table calls and item sizes. Taken from elsewhere, and said so in the section: a step's
 * billed time (the latency model's 100 ms at 512 MB, lib/local/latency.ts), the sweep's time per
 * cluster (the fleet-sweep section), which metrics the functions publish at rest, and the SQS
 * event source's idle polling.
 *
 *   npm run bench -- --only cost-model
 */
import { EXPORTER_DEFAULTS } from '../lib/exporter/config.js';
import { DEFAULT_LATENCY, EXPORTER_SESSION_PERIOD_MS } from '../lib/local/latency.js';
import { serverlessFunctionSizing } from '../scripts/esbuild-options.js';
import { type CatchUpMeasured, measureCatchUp } from './cost-catch-up.js';
import { type Measured, type Window, measureCosts } from './cost-measure.js';
import { HOURS_PER_MONTH, PRICES, PRICES_AS_OF, operatorPodMonthUsd } from './cost-prices.js';
import { table } from './stats.js';
import { recordGoal } from './goals.js';

const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;
const OPERATIONS_PER_MONTH = (3 * HOURS_PER_MONTH) / 24;
/** The sweep's billed time: a fixed part, and per TidbCluster listed (fleet-sweep section: 7.7 s for 10 000 at rest). */
const SWEEP_BASE_MS = 100;
const SWEEP_PER_CLUSTER_MS = 0.77;
const SWEEPS_PER_HOUR = 12;
/** Metric names each function publishes every hour at rest (lib/platform/metrics.ts, lib/exporter/ports.ts). */
const METRICS_AT_REST = { reconcile: ['Steps', 'StepsWait', 'StepDuration', 'QueueLag'], sweep: ['SweepEnqueued', 'FleetClusters', 'FleetNotReady', 'FleetPaused', 'FleetFailing'], exporter: ['ExporterBookmarks', 'ExporterCheckpointsWritten'] };
/** Not measured: SQS receives of the reconcile event source's idle pollers (assumed 5 long polls of 20 s). */
const IDLE_POLLS_PER_HOUR = 5 * 180;

/** State-table calls that write the state item (UpdateItem: billed on the larger of the item before and after). */
const STATE_WRITES = ['state.claim', 'state.release', 'state.markDirty', 'state.setNextWake', 'state.putDeadline', 'state.putStoreId', 'state.deleteDeadline', 'state.forget'];
const STATE_READS = ['state.get', 'state.getMany', 'state.assertLease'];

/** Dollars of a window's variable part: reconcile Lambda, its DynamoDB, SQS, one-time timers. */
type Dollars = { lambda: number; dynamo: number; sqs: number; scheduler: number };

const sum = (d: Dollars): number => d.lambda + d.dynamo + d.sqs + d.scheduler;
const gbOf = (fn: string): number => serverlessFunctionSizing(fn).memoryMb / 1024;
const gbSecondUsd = (fn: string): number => (serverlessFunctionSizing(fn).architecture === 'arm64' ? PRICES.lambdaArmGbS.usd : PRICES.lambdaX86GbS.usd);

/** The functions' DynamoDB calls of a window as request units (writes, reads), and the calls they were. */
function requestUnits(w: Window, m: Measured): { wru: number; rru: number; calls: number } {
  const c = (names: readonly string[]): number => names.reduce((n, name) => n + (w.calls[name] ?? 0), 0);
  const all = Object.values(w.calls).reduce((a, b) => a + b, 0);
  const stateWru = Math.ceil(m.stateItemBytes / 1024);
  const restWru = Math.ceil(m.restReadBytes / 1024);
  const other = all - c(STATE_WRITES) - c(STATE_READS) - c(['restReads.put', 'restReads.get']);
  // What is left is small items (history, checkpoints, deadlines listed): one unit each, counted as a write.
  const wru = c(STATE_WRITES) * stateWru + c(['restReads.put']) * restWru + other;
  const rru = c(STATE_READS) * Math.ceil(m.stateItemBytes / 4096) + c(['restReads.get']) * Math.ceil(m.restReadBytes / 4096);
  return { wru, rru, calls: all };
}

/** A window's variable cost: the reconcile function's steps, the functions' DynamoDB, SQS, timers fired. */
function windowDollars(w: Window, m: Measured): Dollars {
  const stepSeconds = (w.records * DEFAULT_LATENCY.stepMs) / 1000;
  const lambda = stepSeconds * gbOf('reconcile') * gbSecondUsd('reconcile') + w.invocations * PRICES.lambdaRequest.usd;
  const { wru, rru } = requestUnits(w, m);
  // The exporter's own DynamoDB calls (checkpoints, watched-until marks): the rest of the count, a write unit each.
  const exporterCalls = Math.max(0, w.counts.dynamodb - requestUnits(w, m).calls);
  const dynamo = (wru + exporterCalls) * PRICES.dynamoWru.usd + rru * PRICES.dynamoRru.usd;
  return { lambda, dynamo, sqs: w.counts.sqs * PRICES.sqsRequest.usd, scheduler: w.counts.scheduler * PRICES.schedulerInvocation.usd };
}

/** One TidbCluster's month: at rest, and the extra of three operations a day (each replacing rest for its length). */
function perClusterMonth(m: Measured): { rest: Dollars; opsExtra: number } {
  const hour = windowDollars(m.rest, m);
  const rest = { lambda: hour.lambda * HOURS_PER_MONTH, dynamo: hour.dynamo * HOURS_PER_MONTH, sqs: hour.sqs * HOURS_PER_MONTH, scheduler: hour.scheduler * HOURS_PER_MONTH };
  const operation = sum(windowDollars(m.operation, m)) - sum(hour) * m.operation.hours;
  return { rest, opsExtra: operation * OPERATIONS_PER_MONTH };
}

/**
 * What one deployment costs whatever its TidbClusters and EKS clusters: the exporter (one invocation
 * runs every EKS cluster's session, docs/adr/0027), the sweep's fixed part, rate schedules, metrics, idle polling.
 */
function fixedPerDeployment(): Record<string, number> {
  const sessionFraction = 1 - EXPORTER_DEFAULTS.safetyMarginMs / EXPORTER_SESSION_PERIOD_MS;
  const sessionsPerHour = 3_600_000 / EXPORTER_SESSION_PERIOD_MS;
  return {
    'exporter: Lambda duration': gbOf('exporter') * SECONDS_PER_MONTH * sessionFraction * gbSecondUsd('exporter'),
    'exporter: Lambda requests and Scheduler invocations': sessionsPerHour * HOURS_PER_MONTH * (PRICES.lambdaRequest.usd + PRICES.schedulerInvocation.usd),
    'exporter: CloudWatch metrics': METRICS_AT_REST.exporter.length * PRICES.customMetricMonth.usd,
    'sweep: Lambda (fixed part), requests and Scheduler invocations': SWEEPS_PER_HOUR * HOURS_PER_MONTH * ((SWEEP_BASE_MS / 1000) * gbOf('sweep') * gbSecondUsd('sweep') + PRICES.lambdaRequest.usd + PRICES.schedulerInvocation.usd),
    'reconcile and sweep: CloudWatch metrics': (METRICS_AT_REST.reconcile.length + METRICS_AT_REST.sweep.length) * PRICES.customMetricMonth.usd,
    'SQS: the event source idle polling (assumed)': IDLE_POLLS_PER_HOUR * HOURS_PER_MONTH * PRICES.sqsRequest.usd,
  };
}

/** The exporter's fixed cost before this change: 512 MB on x86_64, a 50 s session every minute. */
function exporterBefore(): number {
  return 0.5 * SECONDS_PER_MONTH * (50 / 60) * PRICES.lambdaX86GbS.usd + 60 * HOURS_PER_MONTH * (PRICES.lambdaRequest.usd + PRICES.schedulerInvocation.usd) + METRICS_AT_REST.exporter.length * PRICES.customMetricMonth.usd;
}

/**
 * Not measured: the exporter's DynamoDB round trips in a catch-up (the plan read, 14 checkpoint
 * loads side by side, the mark and the verdict: a few sequential calls of ~10 ms).
 */
const CATCH_UP_DYNAMO_MS = 100;

/**
 * The exporter's fixed cost a month per EKS cluster in catch-up mode (docs/adr/0030): at rest, one
 * catch-up a period billed for its measured drain, a cold start (the latency model's at 512 MB,
 * scaled to the exporter's memory: containers 15 minutes apart are taken as cold) and its DynamoDB
 * round trips; with three operations a day, each operation of the measured upgrade's length turns
 * `ceil(length / period) + 2` sessions full (the catch-up that finds it stays, the sessions it
 * spans, and the next, full after a busy one), an upper bound.
 */
function exporterCatchUp(cu: CatchUpMeasured, m: Measured): { catchUpSeconds: number; rest: number; opsExtra: number; fullPerOperation: number } {
  const exp = serverlessFunctionSizing('exporter');
  const drainMs = cu.catchUpMs[Math.floor(cu.catchUpMs.length / 2)] ?? Number.NaN;
  const coldMs = DEFAULT_LATENCY.coldStartMs * (512 / exp.memoryMb);
  const catchUpSeconds = (drainMs + coldMs + CATCH_UP_DYNAMO_MS) / 1000;
  const sessionsPerMonth = (3_600_000 / EXPORTER_SESSION_PERIOD_MS) * HOURS_PER_MONTH;
  const fixedParts = sessionsPerMonth * (PRICES.lambdaRequest.usd + PRICES.schedulerInvocation.usd) + METRICS_AT_REST.exporter.length * PRICES.customMetricMonth.usd;
  const rest = sessionsPerMonth * catchUpSeconds * gbOf('exporter') * gbSecondUsd('exporter') + fixedParts;
  const fullPerOperation = Math.ceil((m.operation.hours * 3_600_000) / EXPORTER_SESSION_PERIOD_MS) + 2;
  const sessionSeconds = (EXPORTER_SESSION_PERIOD_MS - EXPORTER_DEFAULTS.safetyMarginMs) / 1000;
  const opsExtra = OPERATIONS_PER_MONTH * fullPerOperation * sessionSeconds * gbOf('exporter') * gbSecondUsd('exporter');
  return { catchUpSeconds, rest, opsExtra, fullPerOperation };
}

/** The section's paragraph and table comparing the exporter's modes. */
function exporterModes(cu: CatchUpMeasured, m: Measured, watchUsd: number): string[] {
  const c = exporterCatchUp(cu, m);
  const exp = serverlessFunctionSizing('exporter');
  const goal = (mode: string, after: number): void => recordGoal({ section: 'cost-model', goal: `the exporter's fixed cost per EKS cluster-month, one EKS cluster, ${mode} ≤ $2.5`, before: `${usd(exporterBefore())} (512 MB x86_64, a session a minute)`, after: usd(after), met: after <= 2.5 });
  goal('`exporterAtRest: watch` (the default)', watchUsd);
  goal('`exporterAtRest: catch-up`, at rest', c.rest);
  goal('`exporterAtRest: catch-up`, 3 operations a day', c.rest + c.opsExtra);
  const drains = cu.catchUpMs.map((ms) => (ms / 1000).toFixed(1)).join(', ');
  const minutes = EXPORTER_SESSION_PERIOD_MS / 60_000;
  return [
    `**The exporter's fixed cost per EKS cluster-month by mode** (\`exporterAtRest\`, docs/adr/0030; goal ≤ $2.5). Measured on test/scenarios/exporter-catch-up.yaml (seed ${cu.seed}, passed: ${cu.passed}): its hour at rest ran ${cu.restSessions.catchUps} catch-ups and ${cu.restSessions.full} full sessions, with ${cu.rest.exporter} exporter and ${cu.rest.apiServer} function API requests; each quiet catch-up of the run drained for ${drains} s (virtual time: the 5 s watches; DynamoDB calls take none there). Billed a catch-up: that drain, a cold start (${DEFAULT_LATENCY.coldStartMs} ms at 512 MB scaled to ${exp.memoryMb} MB: ${(DEFAULT_LATENCY.coldStartMs * (512 / exp.memoryMb)).toFixed(0)} ms) and ${CATCH_UP_DYNAMO_MS} ms of DynamoDB round trips (assumed): **${c.catchUpSeconds.toFixed(1)} s a ${minutes}-minute period** instead of ${(EXPORTER_SESSION_PERIOD_MS - EXPORTER_DEFAULTS.safetyMarginMs) / 1000} s. An operation (the upgrade above, ${(m.operation.hours * 60).toFixed(0)} min) turns up to ${c.fullPerOperation} sessions full.`,
    '',
    table(
      ['exporter', 'USD a month per EKS cluster', 'exporter API requests an hour at rest', "a user's edit at rest reaches a step", 'an operation in progress'],
      [
        ['before: 512 MB x86_64, a 50 s session every minute', usd(exporterBefore()), '840', '≈ 1 s (up to 10 s in a gap)', '≈ 1 s'],
        [`watch (default): ${exp.memoryMb} MB arm64, always watching`, usd(watchUsd), String(cu.rest.exporter), '≈ 1 s (up to a minute in the hand-over)', '≈ 1 s'],
        ['catch-up, at rest', `**${usd(c.rest)}**`, String(cu.rest.exporter), `a TidbCluster edit: the next sweep, ≤ 5 min + its slot (< 5 min); anything else: the next catch-up, ≤ ${minutes} min`, `≈ 1 s once a catch-up found it (≤ ${minutes} min), the step's own retries until then`],
        ['catch-up, 3 operations a day', `**${usd(c.rest + c.opsExtra)}**`, String(cu.rest.exporter), 'as above', 'as above'],
      ],
    ),
  ];
}

const usd = (n: number): string => (n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(3)}`);

/** The fleet table: ours against TiDB Operator's pods at N TidbClusters over E EKS clusters. */
function fleetRows(m: Measured, fixed: number): string[][] {
  const { rest, opsExtra } = perClusterMonth(m);
  const operator = operatorPodMonthUsd().usd;
  const sweepPerCluster = SWEEPS_PER_HOUR * HOURS_PER_MONTH * (SWEEP_PER_CLUSTER_MS / 1000) * gbOf('sweep') * gbSecondUsd('sweep');
  const rows: string[][] = [];
  for (const eks of [1, 5]) {
    for (const n of [1, 10, 100, 1_000, 10_000]) {
      const atRest = fixed + n * (sum(rest) + sweepPerCluster);
      const withOps = atRest + n * opsExtra;
      rows.push([n.toLocaleString('en-US'), String(eks), usd(atRest), usd(atRest / n), usd(withOps), usd(withOps / n), usd(eks * operator), usd((eks * operator) / n)]);
    }
  }
  return rows;
}

/** The bench section. */
export async function benchCostModel(): Promise<string> {
  const m = await measureCosts();
  const cu = await measureCatchUp();
  const fixed = fixedPerDeployment();
  const fixedTotal = Object.values(fixed).reduce((a, b) => a + b, 0);
  const exporterNow = Object.entries(fixed).filter(([k]) => k.startsWith('exporter')).reduce((a, [, v]) => a + v, 0);
  const { rest, opsExtra } = perClusterMonth(m);
  const operator = operatorPodMonthUsd();
  const exp = serverlessFunctionSizing('exporter');
  const shared5 = exporterNow / 5;
  const u = requestUnits(m.rest, m);
  return [
    `### Cost model: a month in AWS list prices, per TidbCluster and per EKS cluster`,
    '',
    `\`npm run bench -- --only cost-model\` (bench/cost-model.ts, bench/cost-measure.ts, bench/cost-prices.ts). Counts measured on the simulated stack: bench/scenarios/cost-model.yaml (PD 3, TiKV 3, TiDB 2, TiFlash 1, TiCDC 2, Pump 1, seed ${m.seed}): Ready, 10 min to settle, **one hour at rest** (${m.rest.steps} steps, ${m.rest.invocations} reconcile invocations; requests: API server ${m.rest.counts.apiServer}, exporter ${m.rest.counts.exporter}, DynamoDB ${m.rest.counts.dynamodb}, SQS ${m.rest.counts.sqs}, Scheduler ${m.rest.counts.scheduler}; the functions' state-table calls ${JSON.stringify(m.rest.calls)}), then **one operation**, the whole-cluster version upgrade until Ready again and 5 quiet minutes (${(m.operation.hours * 60).toFixed(1)} min, ${m.operation.steps} steps, ${m.operation.invocations} invocations carrying ${m.operation.records} records; DynamoDB ${m.operation.counts.dynamodb}, SQS ${m.operation.counts.sqs}, API server ${m.operation.counts.apiServer}); every entry passed: ${m.passed}. Item sizes at the end: the state item ${(m.stateItemBytes / 1024).toFixed(1)} KB, the kept read ${(m.restReadBytes / 1024).toFixed(1)} KB — a write of the state item costs ${Math.ceil(m.stateItemBytes / 1024)} write unit(s), of the kept read ${Math.ceil(m.restReadBytes / 1024)}; reads are priced strongly consistent (1 unit per 4 KB); the exporter's own DynamoDB calls (the rest of the count: checkpoints, watched-until marks) and the small items (history, checkpoints) a write unit each, an upper bound. At rest an hour: ${u.wru} write and ${u.rru} read units from the functions.`,
    '',
    `Not measured here, and taken as said: a step's billed time ${DEFAULT_LATENCY.stepMs} ms at the reconcile function's ${serverlessFunctionSizing('reconcile').memoryMb} MB (lib/local/latency.ts: measured steps scaled to that memory's CPU), per record delivered, warm (a health step every 30 s keeps a container warm; Lambda bills the init phase of on-demand functions too since 2025-08-01, ~600 ms at 512 MB per cold start, not counted); the sweep ${SWEEP_BASE_MS} ms plus ${SWEEP_PER_CLUSTER_MS} ms per TidbCluster listed (the fleet-sweep section: 7.7 s for 10 000) at ${serverlessFunctionSizing('sweep').memoryMb} MB, every 5 min; metrics published every hour at rest, each a custom metric (one \`service\` dimension, no per-cluster dimension): reconcile ${METRICS_AT_REST.reconcile.join(', ')}; sweep ${METRICS_AT_REST.sweep.join(', ')}; exporter ${METRICS_AT_REST.exporter.join(', ')}; the reconcile event source's idle SQS polling, assumed 5 long polls of 20 s (AWS does not publish the idle poller count). CloudWatch Logs ingestion ($0.50/GB; about one structured line per step) and DynamoDB storage (~15 KB per cluster) are left out. A month is ${HOURS_PER_MONTH} h. N EKS clusters are one deployment (\`EKS_CLUSTERS\`, docs/adr/0027): its one exporter invocation runs a session per EKS cluster side by side, its one sweep sweeps them all, its metrics are one set; the exporter's memory then holds every EKS cluster's objects (the memory section: ~100 full TidbClusters in all at 256 MB).`,
    '',
    `**Prices** (us-east-1, on-demand list prices as the AWS pricing pages list them for 2025–2026, checked ${PRICES_AS_OF} against third-party summaries of those pages, not fetched from AWS here; free tiers left out):`,
    '',
    table(['what', 'USD', 'per', 'source'], Object.entries(PRICES).map(([name, p]) => [name, p.usd < 1e-5 ? `${(p.usd * 1e6).toFixed(3)} per million` : p.usd < 0.01 ? p.usd.toFixed(10) : String(p.usd), p.unit, p.source])),
    '',
    `**Fixed per deployment** (whatever its TidbClusters and EKS clusters), the exporter at ${exp.memoryMb} MB ${exp.architecture}, one ${EXPORTER_SESSION_PERIOD_MS / 60_000}-minute session per period less its ${EXPORTER_DEFAULTS.safetyMarginMs / 1000} s margin:`,
    '',
    table(['part', 'USD a month'], [...Object.entries(fixed).map(([k, v]) => [k, usd(v)]), ['**total**', `**${usd(fixedTotal)}**`]]),
    '',
    `**The exporter's fixed cost per EKS cluster-month, before → after** (goal ≤ $2.5): before (512 MB x86_64, a 50 s session every minute, 840 API requests an hour) ${usd(exporterBefore())} → after ${usd(exporterNow)} at one EKS cluster (56 API requests an hour) — **not met**; at 5 EKS clusters from one deployment, whose one ${exp.memoryMb} MB exporter invocation runs the five sessions (docs/adr/0027), ${usd(shared5)} each — met, while the five hold ~100 full TidbClusters together (more want a larger \`exporterMemorySize\`). At 128 MB (\`exporterMemorySize: 128\`, enough for ~10–30 full TidbClusters: the memory section) the exporter's Lambda duration is half: ${usd(fixed['exporter: Lambda duration']! / (exp.memoryMb / 128) + (exporterNow - fixed['exporter: Lambda duration']!))} at one EKS cluster. An always-on Lambda cannot cost less than $4.3 a month at 128 MB arm64 in these prices; Lambda's free tier (400 000 GB-s a month per account) would cover the 128 MB exporter of one EKS cluster.`,
    '',
    ...exporterModes(cu, m, exporterNow),
    '',
    `**Per TidbCluster-month** (variable): at rest ${usd(sum(rest))} (reconcile Lambda ${usd(rest.lambda)}, DynamoDB ${usd(rest.dynamo)}, SQS ${usd(rest.sqs)}, timers ${usd(rest.scheduler)}), plus the sweep's ${SWEEP_PER_CLUSTER_MS} ms a TidbCluster; three operations a day add ${usd(opsExtra)} (${OPERATIONS_PER_MONTH.toFixed(1)} upgrades a month, each less the rest it replaces).`,
    '',
    `**The fleet**, a month, beside TiDB Operator: one controller-manager pod per EKS cluster at its Helm defaults (requests 80m CPU, 50Mi) priced as its share of an m5.large (2 vCPU, 8 GiB, $${PRICES.m5LargeHour.usd}/h): the larger of its CPU share (${(operator.cpuShare * 100).toFixed(1)} %) and memory share (${(operator.memoryShare * 100).toFixed(1)} %), ${usd(operator.usd)} a month. TiDB Operator's requests do not grow with the fleet, but its CPU does: at thousands of TidbClusters one pod at 80m does not keep up, which this column does not show.`,
    '',
    table(['TidbClusters', 'EKS clusters', 'ours at rest', 'ours at rest per TidbCluster', 'ours, 3 operations a day', 'per TidbCluster', "TiDB Operator's pods", 'per TidbCluster'], fleetRows(m, fixedTotal)),
  ].join('\n');
}
