import { describe, expect, it } from '@jest/globals';

import { ConfigError, DEFAULT_API_BUDGET, DEFAULT_STEP_CONFIG, DEFAULT_SWEEP_CONFIG, parseConfig, type Env } from '../../lib/platform/config.js';
import { TerminalError } from '../../lib/platform/errors.js';

function problemsOf(env: Env): readonly string[] {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('configuration from the environment', () => {
  it('an empty environment gives the documented defaults (TiDB Operator: backoff 1 s → 100 s, failover 5 min)', () => {
    // Act
    const config = parseConfig({});
    // Assess
    expect(config.step).toEqual({ ...DEFAULT_STEP_CONFIG, healthIntervalMs: 30_000, apiBudget: { requestsPerSecond: 50, burstRequests: 50, stepRequests: 25 } });
    expect(config.step.apiBudget).toEqual(DEFAULT_API_BUDGET);
    expect(config.sweep).toEqual({ ...DEFAULT_SWEEP_CONFIG, apiBudget: DEFAULT_API_BUDGET });
    expect(config.deployment).toEqual({});
    expect(config.step.reconcile.backoff).toEqual({ baseMs: 1_000, maxMs: 100_000, jitterRatio: 0.1 });
    expect(config.step.reconcile.failoverPeriodMs).toEqual({ pd: 300_000, tikv: 300_000, tidb: 300_000, tiflash: 300_000 });
    expect(config.step.reconcile.maxReplicas).toBe(1_000);
  });

  it('every variable is read into its setting', () => {
    const config = parseConfig({
      LEASE_MS: '100000',
      OBSERVED_CLUSTERS: '200',
      BACKOFF_BASE_MS: '500',
      BACKOFF_MAX_MS: '60000',
      BACKOFF_JITTER: '0.25',
      HISTORY_TTL_SECONDS: '86400',
      STEP_SAFETY_MARGIN_MS: '3000',
      BUDGET_RETRY_AFTER_MS: '2000',
      AUTO_FAILOVER: 'FALSE',
      DETECT_NODE_FAILURE: 'true',
      FEATURE_GATES: 'VolumeModifying=true',
      PD_FAILOVER_PERIOD_MS: '60000',
      TIKV_FAILOVER_PERIOD_MS: '120000',
      TIDB_FAILOVER_PERIOD_MS: '180000',
      TIFLASH_FAILOVER_PERIOD_MS: '240000',
      SWEEP_DUE_WITHIN_MS: '30000',
      HEALTH_INTERVAL_MS: '15000',
      SWEEP_FULL_READ_INTERVAL_MS: '7200000',
      SWEEP_FULL_READ_SPREAD_MS: '600000',
      MAX_REPLICAS: '250',
      QUEUE_VISIBILITY_TIMEOUT_SECONDS: '370',
      FUNCTION_TIMEOUT_SECONDS: '60',
      STATE_TABLE: 'state',
      RECONCILE_QUEUE_URL: 'https://sqs/q',
      CLUSTER_NAME: 'prod',
    });
    expect(config).toEqual({
      step: {
        leaseForMs: 100_000,
        healthIntervalMs: 15_000,
        observedClusters: 200,
        historyTtlSeconds: 86_400,
        safetyMarginMs: 3_000,
        budgetRetryAfterMs: 2_000,
        reconcile: {
          autoFailover: false,
          detectNodeFailure: true,
          failoverPeriodMs: { pd: 60_000, tikv: 120_000, tidb: 180_000, tiflash: 240_000 },
          backoff: { baseMs: 500, maxMs: 60_000, jitterRatio: 0.25 },
          maxReplicas: 250,
          volumeModifying: true,
        },
        apiBudget: DEFAULT_API_BUDGET,
      },
      sweep: { dueWithinMs: 30_000, fullReadIntervalMs: 7_200_000, fullReadSpreadMs: 600_000, spreadSeconds: 300, apiBudget: DEFAULT_API_BUDGET },
      deployment: { stateTable: 'state', queueUrl: 'https://sqs/q', clusterName: 'prod' },
    });
  });

  it.each([
    { name: 'not a number', env: { BACKOFF_MAX_MS: 'abc' }, problem: 'BACKOFF_MAX_MS: "abc" is not a number of milliseconds' },
    { name: 'a fraction of a millisecond', env: { LEASE_MS: '1.5' }, problem: 'LEASE_MS: "1.5" is not a number of milliseconds' },
    { name: 'a negative number', env: { STEP_SAFETY_MARGIN_MS: '-1' }, problem: 'STEP_SAFETY_MARGIN_MS: "-1" is not a number of milliseconds' },
    { name: 'a duration with a unit', env: { PD_FAILOVER_PERIOD_MS: '5m' }, problem: 'PD_FAILOVER_PERIOD_MS: "5m" is not a number of milliseconds' },
    { name: 'below the minimum', env: { LEASE_MS: '0' }, problem: 'LEASE_MS: 0 is below the minimum of 1 ms' },
    { name: 'seconds that are not whole', env: { HISTORY_TTL_SECONDS: '1h' }, problem: 'HISTORY_TTL_SECONDS: "1h" is not a whole number of seconds' },
    { name: 'a ratio above 1', env: { BACKOFF_JITTER: '1.5' }, problem: 'BACKOFF_JITTER: "1.5" is not a ratio between 0 and 1' },
    { name: 'a boolean spelled otherwise', env: { AUTO_FAILOVER: 'yes' }, problem: 'AUTO_FAILOVER: "yes" is not true or false' },
    { name: 'a cap below the base', env: { BACKOFF_BASE_MS: '5000', BACKOFF_MAX_MS: '1000' }, problem: 'BACKOFF_MAX_MS: 1000 is below BACKOFF_BASE_MS (5000)' },
    { name: 'no sweep batch in flight', env: { SWEEP_SEND_CONCURRENCY: '0' }, problem: 'SWEEP_SEND_CONCURRENCY: 0 is below the minimum of 1' },
    { name: 'a health interval longer than one SQS delay', env: { HEALTH_INTERVAL_MS: '900001' }, problem: 'HEALTH_INTERVAL_MS: 900001 is above 900000 (one SQS delay)' },
    { name: 'too many sweep batches in flight', env: { SWEEP_SEND_CONCURRENCY: '65' }, problem: 'SWEEP_SEND_CONCURRENCY: 65 is above the maximum of 64' },
    { name: 'no replicas allowed at all', env: { MAX_REPLICAS: '0' }, problem: 'MAX_REPLICAS: 0 is below the minimum of 1' },
    { name: 'a replica bound past the ceiling', env: { MAX_REPLICAS: '2147483647' }, problem: 'MAX_REPLICAS: 2147483647 is above the maximum of 100000' },
    { name: 'a replica bound that is not a number', env: { MAX_REPLICAS: 'lots' }, problem: 'MAX_REPLICAS: "lots" is not a whole number' },
    { name: 'a sweep concurrency that is not whole', env: { SWEEP_SEND_CONCURRENCY: '2.5' }, problem: 'SWEEP_SEND_CONCURRENCY: "2.5" is not a whole number' },
    { name: "a sweep spread past SQS's longest delay", env: { SWEEP_SPREAD_SECONDS: '901' }, problem: 'SWEEP_SPREAD_SECONDS: 901 is above the maximum of 900' },
    { name: 'a negative sweep spread', env: { SWEEP_SPREAD_SECONDS: '-1' }, problem: 'SWEEP_SPREAD_SECONDS: "-1" is not a whole number' },
    { name: 'an upper-case namespace', env: { WATCH_NAMESPACES: 'tidb,Prod' }, problem: `WATCH_NAMESPACES: "Prod" is not a namespace name (lower-case letters, digits and '-', 1-63 characters, starting and ending with a letter or digit)` },
    { name: 'an empty namespace in the list', env: { WATCH_NAMESPACES: 'a,,b' }, problem: `WATCH_NAMESPACES: "" is not a namespace name (lower-case letters, digits and '-', 1-63 characters, starting and ending with a letter or digit)` },
    { name: 'a namespace of 64 characters', env: { WATCH_NAMESPACES: 'a'.repeat(64) }, problem: `WATCH_NAMESPACES: "${'a'.repeat(64)}" is not a namespace name (lower-case letters, digits and '-', 1-63 characters, starting and ending with a letter or digit)` },
    { name: 'an API budget step charge above its burst', env: { API_BUDGET_BURST_REQUESTS: '20', API_BUDGET_STEP_REQUESTS: '25' }, problem: 'API_BUDGET_STEP_REQUESTS: 25 is above API_BUDGET_BURST_REQUESTS (20)' },
    { name: 'an API budget without a burst', env: { API_BUDGET_BURST_REQUESTS: '0' }, problem: 'API_BUDGET_BURST_REQUESTS: 0 is below the minimum of 1' },
    { name: 'a negative API budget rate', env: { API_BUDGET_REQUESTS_PER_SECOND: '-5' }, problem: 'API_BUDGET_REQUESTS_PER_SECOND: "-5" is not a whole number' },
    { name: 'a namespace listed twice', env: { WATCH_NAMESPACES: 'a,b,a' }, problem: 'WATCH_NAMESPACES: "a" is listed twice' },
  ])('a bad value names its variable: $name', ({ env, problem }) => {
    expect(problemsOf(env)).toEqual([problem]);
  });

  it.each([
    { name: 'not shorter than the visibility timeout', env: { LEASE_MS: '370000', QUEUE_VISIBILITY_TIMEOUT_SECONDS: '370' }, starts: 'LEASE_MS: 370000 must be shorter than QUEUE_VISIBILITY_TIMEOUT_SECONDS' },
    { name: 'not longer than the function timeout', env: { LEASE_MS: '60000', FUNCTION_TIMEOUT_SECONDS: '60' }, starts: 'LEASE_MS: 60000 must be longer than FUNCTION_TIMEOUT_SECONDS' },
    { name: 'no longer than two safety margins', env: { LEASE_MS: '10000', STEP_SAFETY_MARGIN_MS: '5000' }, starts: 'LEASE_MS: 10000 must be longer than twice STEP_SAFETY_MARGIN_MS' },
  ])('the lease must fit between the function and visibility timeouts: $name', ({ env, starts }) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.startsWith(starts)).toBe(true);
  });

  it.each([
    { name: 'unset, the sweep uses its default bound and spreads over its 5-minute interval', env: {}, want: { dueWithinMs: 60_000, fullReadIntervalMs: 10_800_000, fullReadSpreadMs: 1_800_000, spreadSeconds: 300 } },
    { name: 'set, the sweep keeps that many batches in flight', env: { SWEEP_SEND_CONCURRENCY: '16' }, want: { dueWithinMs: 60_000, fullReadIntervalMs: 10_800_000, fullReadSpreadMs: 1_800_000, sendConcurrency: 16, spreadSeconds: 300 } },
    { name: 'a spread of 0 sends every message at once', env: { SWEEP_SPREAD_SECONDS: '0' }, want: { dueWithinMs: 60_000, fullReadIntervalMs: 10_800_000, fullReadSpreadMs: 1_800_000, spreadSeconds: 0 } },
    { name: "a spread up to SQS's longest delay", env: { SWEEP_SPREAD_SECONDS: '900' }, want: { dueWithinMs: 60_000, fullReadIntervalMs: 10_800_000, fullReadSpreadMs: 1_800_000, spreadSeconds: 900 } },
  ])('SWEEP_SEND_CONCURRENCY and SWEEP_SPREAD_SECONDS: $name', ({ env, want }) => {
    expect(parseConfig(env).sweep).toEqual({ ...want, apiBudget: DEFAULT_API_BUDGET });
  });

  it.each([
    { name: 'unset: 50 a second, a burst of 50, 25 a step', env: {}, want: { requestsPerSecond: 50, burstRequests: 50, stepRequests: 25 } },
    { name: 'a rate of 0 turns it off', env: { API_BUDGET_REQUESTS_PER_SECOND: '0' }, want: { requestsPerSecond: 0, burstRequests: 50, stepRequests: 25 } },
    { name: 'each set', env: { API_BUDGET_REQUESTS_PER_SECOND: '20', API_BUDGET_BURST_REQUESTS: '40', API_BUDGET_STEP_REQUESTS: '30' }, want: { requestsPerSecond: 20, burstRequests: 40, stepRequests: 30 } },
  ])('the API budget (docs/adr/0028): $name', ({ env, want }) => {
    const config = parseConfig(env);
    expect(config.step.apiBudget).toEqual(want);
    expect(config.sweep.apiBudget).toBe(config.step.apiBudget);
  });

  it.each([
    { name: 'unset: every namespace', env: {}, want: undefined },
    { name: 'empty: every namespace', env: { WATCH_NAMESPACES: ' ' }, want: undefined },
    { name: 'a list: those namespaces, spaces trimmed', env: { WATCH_NAMESPACES: 'tidb-a, tidb-b' }, want: ['tidb-a', 'tidb-b'] },
  ])('WATCH_NAMESPACES $name', ({ env, want }) => {
    expect(parseConfig(env).watchNamespaces).toEqual(want);
  });

  it('all problems are reported at once, as a terminal error naming the first variable', () => {
    // Act
    const error = (() => {
      try {
        parseConfig({ LEASE_MS: 'x', BACKOFF_JITTER: 'y', AUTO_FAILOVER: 'z' });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    // Assess
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ field: 'LEASE_MS', problems: expect.arrayContaining([expect.stringMatching(/^BACKOFF_JITTER/), expect.stringMatching(/^AUTO_FAILOVER/)]) });
    expect((error as Error).message).toMatch(/^invalid configuration: LEASE_MS: "x" is not a number of milliseconds; /);
  });

  it('empty and blank values count as unset', () => {
    expect(parseConfig({ LEASE_MS: '', BACKOFF_MAX_MS: '   ', STATE_TABLE: '' }).step.leaseForMs).toBe(DEFAULT_STEP_CONFIG.leaseForMs);
  });
});

describe('FEATURE_GATES, as TiDB Operator v1.6 reads --features', () => {
  it.each([
    { name: 'unset: VolumeModifying is off, as in TiDB Operator', env: {}, want: false },
    { name: 'empty (the template default): off', env: { FEATURE_GATES: '' }, want: false },
    { name: 'VolumeModifying=true turns it on', env: { FEATURE_GATES: 'VolumeModifying=true' }, want: true },
    { name: 'spaces around the parts are allowed', env: { FEATURE_GATES: ' VolumeModifying = true ,' }, want: true },
    { name: 'VolumeModifying=false keeps it off', env: { FEATURE_GATES: 'VolumeModifying=false' }, want: false },
  ])('$name', ({ env, want }) => {
    expect(parseConfig(env).step.reconcile.volumeModifying).toBe(want);
  });

  it.each([
    { name: 'a gate this reconciler does not have is refused, naming it', value: 'VolumeReplacing=true', problem: 'FEATURE_GATES: "VolumeReplacing" is not a feature gate of this reconciler (VolumeModifying)' },
    { name: 'a value other than true/false is refused', value: 'VolumeModifying=yes', problem: 'FEATURE_GATES: "VolumeModifying=yes" must be VolumeModifying=true or VolumeModifying=false' },
  ])('$name', ({ value, problem }) => {
    let caught: unknown;
    try {
      parseConfig({ FEATURE_GATES: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([problem]);
  });
});
