import { beforeAll, describe, it, expect } from '@jest/globals';

import { MemoryClusterDescriber } from '../../lib/eks/cluster-access.js';
import { MemoryAccessEntries } from '../../lib/eks/port.js';
import { extractIam } from '../../lib/local/iam/extract.js';
import { guardAccessEntries, guardClusterDescriber } from '../../lib/local/iam/guarded-ports.js';
import { localIam } from '../../lib/local/iam/identities.js';
import { parseEksClusters } from '../../lib/platform/eks-clusters.js';
import { packageTemplate } from '../support/serverless-package.js';
import { readFileSync } from 'node:fs';
import { EKS_CLUSTER_ARNS_PLACEHOLDER, EKS_CLUSTERS_EXTRACT_PATH, EKS_CLUSTERS_PLACEHOLDER } from '../../lib/local/iam/eks-clusters-extract.js';

// serverless.yml with several EKS clusters (docs/adr/0027): the registry reaches every function as
// EKS_CLUSTERS in place of the single-cluster variables, and only the listed clusters are granted.

type Json = Record<string, unknown>;
type Resource = { Type: string; Condition?: string; Properties: Json };

const REGISTRY = JSON.stringify([{ name: 'prod-a' }, { name: 'prod-b', region: 'eu-west-1' }]);
const ARNS = ['arn:aws:eks:us-east-1:000000000000:cluster/prod-a', 'arn:aws:eks:eu-west-1:000000000000:cluster/prod-b'];
const FUNCTIONS = ['Reconcile', 'Sweep', 'Timer', 'Admin', 'Exporter'];

let single: Record<string, Resource> = {};
let many: Record<string, Resource> = {};
let manyConditions: Json = {};
let singleConditions: Json = {};
let manyTemplate: Json = {};

beforeAll(async () => {
  const [one, several] = await Promise.all([packageTemplate(), packageTemplate([`eksClusters=${REGISTRY}`, `eksClusterArns=${ARNS.join(',')}`])]);
  single = one['Resources'] as Record<string, Resource>;
  singleConditions = one['Conditions'] as Json;
  manyTemplate = several;
  many = several['Resources'] as Record<string, Resource>;
  manyConditions = several['Conditions'] as Json;
}, 240_000);

/**
 * `value` as CloudFormation evaluates it for this test's purposes: `Fn::If` (on `conditions`, each
 * an `Fn::Not [Fn::Equals [a, b]]` of literals), `Fn::Split`, `Fn::Join` and `Ref AWS::NoValue`
 * (undefined); anything else as is.
 */
function evaluate(value: unknown, conditions: Json): unknown {
  if (Array.isArray(value)) return value.map((v) => evaluate(v, conditions));
  if (typeof value !== 'object' || value === null) return value;
  const [[key, arg] = []] = Object.entries(value);
  const args = arg as unknown[];
  if (key === 'Ref' && arg === 'AWS::NoValue') return undefined;
  if (key === 'Fn::Split') return String(evaluate(args[1], conditions)).split(String(args[0]));
  if (key === 'Fn::Join') return (evaluate(args[1], conditions) as unknown[]).join(String(args[0]));
  if (key === 'Fn::If') {
    const equals = ((conditions[String(args[0])] as Json)['Fn::Not'] as Json[])[0]?.['Fn::Equals'] as unknown[];
    return evaluate(equals[0] !== equals[1] ? args[1] : args[2], conditions);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, evaluate(v, conditions)]));
}

function variables(resources: Record<string, Resource>, fn: string, conditions: Json): Json {
  const env = (resources[`${fn}LambdaFunction`]?.Properties['Environment'] as { Variables: Json }).Variables;
  return Object.fromEntries(Object.entries(evaluate(env, conditions) as Json).filter(([, v]) => v !== undefined));
}

describe('serverless.yml with several EKS clusters', () => {
  it.each(FUNCTIONS.map((fn) => ({ fn })))('$fn gets the registry as EKS_CLUSTERS and none of the single-cluster variables, which the functions would refuse beside it', ({ fn }) => {
    const env = variables(many, fn, manyConditions);
    expect(env['EKS_CLUSTERS']).toBe(REGISTRY);
    expect(['CLUSTER_NAME', 'KUBE_ENDPOINT', 'KUBE_CA_DATA'].filter((k) => k in env)).toEqual([]);
    expect(parseEksClusters({ ...(env as Record<string, string>), AWS_REGION: 'us-east-1' })).toMatchObject({ ok: true });
  });

  it('the registry without endpoints and CAs fits Lambda\'s 4 KB environment beside every other variable', () => {
    const env = variables(many, 'Admin', manyConditions);
    // Unresolved references (Ref, GetAtt) count as the longest value they become here, an ARN or URL of ~120 bytes.
    const bytes = Object.entries(env).reduce((sum, [k, v]) => sum + k.length + (typeof v === 'string' ? Buffer.byteLength(v) : 120), 0);
    expect(bytes).toBeLessThan(4096);
  });

  it('reconcile, sweep, admin and exporter may DescribeCluster exactly the listed clusters; timer, which calls no EKS API, may not', () => {
    const policy = many['EksClustersDescribePolicy'];
    expect(policy?.Condition).toBe('ManyEksClusters');
    expect(policy?.Properties['Roles']).toEqual(['Reconcile', 'Sweep', 'Admin', 'Exporter'].map((fn) => ({ Ref: `${fn}Role` })));
    const statements = evaluate((policy?.Properties['PolicyDocument'] as Json)['Statement'], manyConditions);
    expect(statements).toEqual([{ Effect: 'Allow', Action: ['eks:DescribeCluster'], Resource: ARNS }]);
  });

  it('the admin role may read the access entries of exactly the listed clusters', () => {
    const policy = many['EksClustersAccessEntriesPolicy'];
    expect(policy?.Condition).toBe('ManyEksClusters');
    expect(policy?.Properties['Roles']).toEqual([{ Ref: 'AdminRole' }]);
    const statements = evaluate((policy?.Properties['PolicyDocument'] as Json)['Statement'], manyConditions);
    expect(statements).toEqual([
      { Effect: 'Allow', Action: ['eks:DescribeAccessEntry'], Resource: ['arn:aws:eks:us-east-1:000000000000:access-entry/prod-a/*', 'arn:aws:eks:eu-west-1:000000000000:access-entry/prod-b/*'] },
      { Effect: 'Allow', Action: ['eks:ListAccessEntries'], Resource: ARNS },
    ]);
  });

  it('by default (one cluster) the functions get the single-cluster variables, no EKS_CLUSTERS, and the conditional policies are off', () => {
    const env = variables(single, 'Reconcile', singleConditions);
    expect(env).toMatchObject({ CLUSTER_NAME: 'unconfigured', KUBE_ENDPOINT: 'https://kubernetes.invalid', KUBE_CA_DATA: '' });
    expect('EKS_CLUSTERS' in env).toBe(false);
    expect([single['EksClustersDescribePolicy']?.Condition, single['EksClustersAccessEntriesPolicy']?.Condition]).toEqual(['ManyEksClusters', 'ManyEksClusters']);
  });
});

describe('the local world enforcing the several-cluster template\'s IAM', () => {
  const world = (): { iam: ReturnType<typeof localIam>; eks: MemoryClusterDescriber } => {
    const eks = new MemoryClusterDescriber();
    for (const [name, region] of [['prod-a', 'us-east-1'], ['prod-b', 'eu-west-1'], ['prod-c', 'us-east-1']] as const) eks.put(name, region, { endpoint: `https://${name}.local`, caData: 'Q0E=' });
    return { iam: localIam({ extract: extractIam(manyTemplate as Parameters<typeof extractIam>[0]) }), eks };
  };

  it.each(['reconcile', 'sweep', 'admin', 'exporter'])('%s may DescribeCluster the listed clusters, in their regions, and is refused any other', async (fn) => {
    const { iam, eks } = world();
    const describer = guardClusterDescriber(eks, iam, iam.functionPrincipal(fn));
    await expect(describer.describe('prod-a', 'us-east-1')).resolves.toEqual({ endpoint: 'https://prod-a.local', caData: 'Q0E=' });
    await expect(describer.describe('prod-b', 'eu-west-1')).resolves.toEqual({ endpoint: 'https://prod-b.local', caData: 'Q0E=' });
    await expect(describer.describe('prod-c', 'us-east-1')).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('eks:DescribeCluster on resource: arn:aws:eks:us-east-1:000000000000:cluster/prod-c') });
  });

  it('timer, which calls no EKS API, is refused DescribeCluster', async () => {
    const { iam, eks } = world();
    await expect(guardClusterDescriber(eks, iam, iam.functionPrincipal('timer')).describe('prod-a', 'us-east-1')).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  it('admin reads the access entries of a listed cluster and is refused those of another', async () => {
    const { iam } = world();
    const entries = new MemoryAccessEntries([{ principalArn: 'arn:aws:iam::000000000000:role/dba', username: 'dba', kubernetesGroups: ['tidb-admins'], type: 'STANDARD' }]);
    const principal = iam.functionPrincipal('admin');
    await expect(guardAccessEntries(entries, iam, principal, 'prod-a').describe('arn:aws:iam::000000000000:role/dba')).resolves.toMatchObject({ username: 'dba' });
    await expect(guardAccessEntries(entries, iam, principal, 'prod-a').listPrincipalArns()).resolves.toEqual(['arn:aws:iam::000000000000:role/dba']);
    await expect(guardAccessEntries(entries, iam, principal, 'prod-c').describe('arn:aws:iam::000000000000:role/dba')).rejects.toMatchObject({ message: expect.stringContaining('eks:DescribeAccessEntry on resource: arn:aws:eks:us-east-1:000000000000:access-entry/prod-c/') });
  });
});

describe('the local world of several EKS clusters', () => {
  it('enforces infra/iam/roles-eks-clusters.json, the extract of this template with the registry and ARNs as placeholders', () => {
    // Prepare: the template as packaged with the placeholders (osls substitutes the parameters as text).
    const escaped = (text: string): string => JSON.stringify(text).slice(1, -1);
    const text = JSON.stringify(manyTemplate).split(escaped(ARNS.join(','))).join(EKS_CLUSTER_ARNS_PLACEHOLDER).split(escaped(REGISTRY)).join(EKS_CLUSTERS_PLACEHOLDER);

    // Act
    const fresh = extractIam(JSON.parse(text) as Parameters<typeof extractIam>[0]);

    // Assess
    expect(fresh).toEqual(JSON.parse(readFileSync(EKS_CLUSTERS_EXTRACT_PATH, 'utf8')));
  });
});
