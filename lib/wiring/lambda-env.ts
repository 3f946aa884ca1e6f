/**
 * The deployment settings a Lambda runtime needs from its environment, beyond the tunables
 * `lib/platform/config.ts` parses: where the EKS cluster is (or the EKS clusters are: `EKS_CLUSTERS`,
 * `lib/platform/eks-clusters.ts`), and the names of the table, queue and
 * schedule group serverless.yml created. Validated together; every problem names its variable.
 */

import { parseClusterKey } from '../model/key.js';
import { ConfigError } from '../platform/config.js';
import { quoteForEcho } from '../model/echo.js';
import { type EksClusterEntry, parseEksClusters } from '../platform/eks-clusters.js';

/** The resolved settings. `schedulerGroup` is optional (Scheduler's `default` group otherwise). */
export type LambdaSettings = {
  readonly clusterName: string;
  readonly kubeEndpoint: string;
  readonly kubeCaData: string;
  readonly region: string;
  readonly stateTable: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly schedulerRoleArn: string;
  readonly schedulerGroup?: string;
  /**
   * How the functions reach the components (`COMPONENT_ACCESS`): `direct` (the default; the
   * functions are attached to the cluster's VPC, docs/adr/0018) or `api-proxy` (explicit opt-in for
   * clusters without TLS whose functions cannot join the VPC).
   */
  readonly componentAccess: 'direct' | 'api-proxy';
  /**
   * Every managed EKS cluster (`EKS_CLUSTERS`, docs/adr/0027); from the single-cluster variables, a
   * registry of one. `clusterName`, `kubeEndpoint` and `kubeCaData` are the first entry's (the
   * latter two '' when that entry is resolved through DescribeCluster at cold start).
   */
  readonly eksClusters: readonly EksClusterEntry[];
};

/** The values `COMPONENT_ACCESS` takes. */
export const COMPONENT_ACCESS_MODES = ['direct', 'api-proxy'] as const;

/** The variables, by setting (AWS_REGION is set by Lambda itself). */
export const LAMBDA_ENV = {
  clusterName: 'CLUSTER_NAME',
  kubeEndpoint: 'KUBE_ENDPOINT',
  kubeCaData: 'KUBE_CA_DATA',
  region: 'AWS_REGION',
  stateTable: 'STATE_TABLE',
  queueUrl: 'RECONCILE_QUEUE_URL',
  queueArn: 'RECONCILE_QUEUE_ARN',
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
} as const;

/**
 * Reads and checks the settings. Throws `ConfigError` listing every unset variable and every bad
 * value (`KUBE_ENDPOINT: "http://x" must be an https URL`); never includes the CA data itself.
 */
export function lambdaSettings(env: Readonly<Record<string, string | undefined>>): LambdaSettings {
  const registry = parseEksClusters(env);
  if (registry !== undefined) return registrySettings(env, registry.ok ? registry.clusters : [], registry.ok ? [] : registry.problems);
  const problems: string[] = [];
  const read = (name: string): string => {
    const value = env[name]?.trim() ?? '';
    if (value === '') problems.push(`${name}: not set`);
    return value;
  };
  const values = {
    clusterName: read(LAMBDA_ENV.clusterName),
    kubeEndpoint: read(LAMBDA_ENV.kubeEndpoint),
    kubeCaData: read(LAMBDA_ENV.kubeCaData),
    region: read(LAMBDA_ENV.region),
    stateTable: read(LAMBDA_ENV.stateTable),
    queueUrl: read(LAMBDA_ENV.queueUrl),
    queueArn: read(LAMBDA_ENV.queueArn),
    schedulerRoleArn: read(LAMBDA_ENV.schedulerRoleArn),
  };
  if (values.clusterName !== '' && !parseClusterKey(`${values.clusterName}/default/x`).ok) {
    problems.push(`${LAMBDA_ENV.clusterName}: ${quoteForEcho(values.clusterName ?? '')} is not a valid cluster name (letters, digits, '.', '_', '-')`);
  }
  if (values.kubeEndpoint !== '' && !isHttpsUrl(values.kubeEndpoint)) {
    problems.push(`${LAMBDA_ENV.kubeEndpoint}: ${quoteForEcho(values.kubeEndpoint ?? '')} must be an https URL`);
  }
  const componentAccess = readComponentAccess(env, problems);
  if (problems.length > 0 || componentAccess === undefined) throw new ConfigError(problems);
  const schedulerGroup = env['SCHEDULER_GROUP']?.trim();
  const eksClusters = [{ name: values.clusterName, endpoint: values.kubeEndpoint, caData: values.kubeCaData, region: values.region, authentication: 'iam-token' as const }];
  return { ...values, componentAccess, eksClusters, ...(schedulerGroup ? { schedulerGroup } : {}) };
}

/** The settings of a deployment whose clusters `EKS_CLUSTERS` names (`problems`: the registry's). */
function registrySettings(env: Readonly<Record<string, string | undefined>>, clusters: readonly EksClusterEntry[], registryProblems: readonly string[]): LambdaSettings {
  const problems = [...registryProblems];
  const read = (name: string): string => {
    const value = env[name]?.trim() ?? '';
    if (value === '') problems.push(`${name}: not set`);
    return value;
  };
  const values = {
    region: read(LAMBDA_ENV.region),
    stateTable: read(LAMBDA_ENV.stateTable),
    queueUrl: read(LAMBDA_ENV.queueUrl),
    queueArn: read(LAMBDA_ENV.queueArn),
    schedulerRoleArn: read(LAMBDA_ENV.schedulerRoleArn),
  };
  const componentAccess = readComponentAccess(env, problems);
  const first = clusters[0];
  if (problems.length > 0 || componentAccess === undefined || first === undefined) throw new ConfigError(problems);
  const schedulerGroup = env['SCHEDULER_GROUP']?.trim();
  return { ...values, clusterName: first.name, kubeEndpoint: first.endpoint ?? '', kubeCaData: first.caData ?? '', componentAccess, eksClusters: clusters, ...(schedulerGroup ? { schedulerGroup } : {}) };
}

function readComponentAccess(env: Readonly<Record<string, string | undefined>>, problems: string[]): LambdaSettings['componentAccess'] | undefined {
  const access = env['COMPONENT_ACCESS']?.trim() || 'direct';
  const componentAccess = COMPONENT_ACCESS_MODES.find((m) => m === access);
  if (componentAccess === undefined) problems.push(`COMPONENT_ACCESS: ${quoteForEcho(access)} must be one of ${COMPONENT_ACCESS_MODES.join(', ')}`);
  return componentAccess;
}

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}
