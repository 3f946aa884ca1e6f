import { describe, it, expect } from '@jest/globals';
import type { EKSClient } from '@aws-sdk/client-eks';

import { type ClusterAccessData, type ClusterDescriber, MemoryClusterDescriber, resolveEksClusters } from '../../lib/eks/cluster-access.js';
import { EksClusterDescriber } from '../../lib/eks/describe-cluster.js';
import type { Clock } from '../../lib/platform/clock.js';
import { TerminalError, TransientError } from '../../lib/platform/errors.js';
import type { EksClusterEntry } from '../../lib/platform/eks-clusters.js';
import { lambdaRuntimes, resolvedLambdaRuntimes } from '../../lib/wiring/ports.js';

const CA = 'LS0tLS1CRUdJTg==';
const bare = (name: string, region = 'us-east-1'): EksClusterEntry => ({ name, region, authentication: 'iam-token' });
const given = (name: string): EksClusterEntry => ({ ...bare(name), endpoint: `https://${name}.given.example`, caData: CA });

/** A clock whose sleeps pass at once (recording them), so retry waits cost no real time. */
function steppingClock(): Clock & { readonly slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    nowMs: () => now,
    setTimer: () => ({ id: 0 }),
    clearTimer: () => undefined,
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
  };
}

/** An SDK error as the EKS client raises it. */
function sdkError(name: string, fault: 'client' | 'server', message = name): Error {
  return Object.assign(new Error(message), { name, $fault: fault });
}

/** A describer that answers each call from `script` in turn, recording the calls. */
function scripted(script: readonly (ClusterAccessData | Error)[]): ClusterDescriber & { readonly calls: string[] } {
  const calls: string[] = [];
  let n = 0;
  return {
    calls,
    describe: async (name, region) => {
      calls.push(`${name}@${region}`);
      const answer = script[Math.min(n++, script.length - 1)];
      if (answer instanceof Error) throw answer;
      return answer ?? { endpoint: '', caData: '' };
    },
  };
}

describe('resolving registry entries through EKS DescribeCluster', () => {
  it('asks only for the entries without endpoint and CA, in their region, and keeps the others as given', async () => {
    // Arrange
    const describer = scripted([{ endpoint: 'https://b.eks.example', caData: CA }]);

    // Act
    const resolved = await resolveEksClusters([given('a'), bare('b', 'eu-west-1')], { describer, clock: steppingClock() });

    // Assess
    expect(describer.calls).toEqual(['b@eu-west-1']);
    expect(resolved.map((c) => [c.name, c.endpoint])).toEqual([['a', 'https://a.given.example'], ['b', 'https://b.eks.example']]);
  });

  it.each([
    { name: 'AccessDenied is terminal at once, naming the entry and eks:DescribeCluster', error: sdkError('AccessDeniedException', 'client'), type: TerminalError, calls: 1, says: /EKS_CLUSTERS\[1\] \(b\): eks:DescribeCluster b \(us-east-1\): access denied; the function's role needs eks:DescribeCluster/ },
    { name: 'an unknown cluster is terminal, naming the region', error: sdkError('ResourceNotFoundException', 'client'), type: TerminalError, calls: 1, says: /EKS_CLUSTERS\[1\] \(b\): .*no EKS cluster of that name in us-east-1/ },
    { name: 'throttling that never ends is transient after every attempt', error: sdkError('ThrottlingException', 'client'), type: TransientError, calls: 4, says: /EKS_CLUSTERS\[1\] \(b\): eks:DescribeCluster b .*ThrottlingException/ },
    { name: 'a server fault that never ends is transient after every attempt', error: sdkError('ServerException', 'server'), type: TransientError, calls: 4, says: /EKS_CLUSTERS\[1\] \(b\)/ },
  ])('a failure: $name', async ({ error, type, calls, says }) => {
    // Arrange: the real adapter over an SDK client that always fails so.
    let sent = 0;
    const client = { send: async () => (sent++, Promise.reject(error)) } as unknown as EKSClient;
    const describer = new EksClusterDescriber(() => client);

    // Act
    const resolving = resolveEksClusters([given('a'), bare('b')], { describer, clock: steppingClock(), random: () => 0.5 });

    // Assess
    await expect(resolving).rejects.toThrow(says);
    await expect(resolving).rejects.toBeInstanceOf(type);
    expect(sent).toBe(calls);
  });

  it('throttled, then answered: retried within the budget, with backoff waits', async () => {
    // Arrange
    const answers: unknown[] = [sdkError('ThrottlingException', 'client'), sdkError('ThrottlingException', 'client'), { cluster: { endpoint: 'https://b.eks.example', certificateAuthority: { data: CA }, status: 'ACTIVE' } }];
    const client = { send: async () => { const a = answers.shift(); return a instanceof Error ? Promise.reject(a) : a; } } as unknown as EKSClient;
    const clock = steppingClock();

    // Act
    const [resolved] = await resolveEksClusters([bare('b')], { describer: new EksClusterDescriber(() => client), clock, random: () => 0.5 });

    // Assess
    expect(resolved).toEqual({ ...bare('b'), endpoint: 'https://b.eks.example', caData: CA });
    expect(clock.slept).toEqual([100, 200]);
  });

  it('gives up before a wait would end past the deadline', async () => {
    // Arrange
    const describer = scripted([new TransientError('eks:DescribeCluster b failed: ThrottlingException')]);

    // Act
    const resolving = resolveEksClusters([bare('b')], { describer, clock: steppingClock(), random: () => 0.99, deadlineAtMs: 150 });

    // Assess
    await expect(resolving).rejects.toBeInstanceOf(TransientError);
    expect(describer.calls).toHaveLength(1);
  });

  it('a cluster still being created (no endpoint yet) is transient', async () => {
    // Arrange
    const client = { send: async () => ({ cluster: { status: 'CREATING' } }) } as unknown as EKSClient;

    // Act
    const describing = new EksClusterDescriber(() => client).describe('b', 'us-east-1');

    // Assess
    await expect(describing).rejects.toThrow(/the cluster has no endpoint or CA yet \(status CREATING\)/);
    await expect(describing).rejects.toBeInstanceOf(TransientError);
  });

  it('the in-memory EKS answers its clusters in their region only', async () => {
    // Arrange
    const world = new MemoryClusterDescriber();
    world.put('a', 'us-east-1', { endpoint: 'https://a.local', caData: CA });

    // Act, Assess
    await expect(world.describe('a', 'us-east-1')).resolves.toEqual({ endpoint: 'https://a.local', caData: CA });
    await expect(world.describe('a', 'eu-west-1')).rejects.toThrow(/no EKS cluster of that name in eu-west-1/);
  });

  it('the Lambda runtimes of a registry without endpoints: built after DescribeCluster, refused without it', async () => {
    // Arrange
    const env = {
      AWS_REGION: 'us-east-1',
      STATE_TABLE: 'state',
      RECONCILE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
      RECONCILE_QUEUE_ARN: 'arn:aws:sqs:us-east-1:123456789012:q',
      SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
      EKS_CLUSTERS: JSON.stringify([{ name: 'a' }, { name: 'b', region: 'eu-west-1' }]),
    };
    const describer = scripted([{ endpoint: 'https://x.eks.example', caData: CA }]);

    // Act
    const runtimes = await resolvedLambdaRuntimes(env, describer);

    // Assess
    expect(runtimes.map((r) => r.k8sCluster)).toEqual(['a', 'b']);
    expect(describer.calls).toEqual(['a@us-east-1', 'b@eu-west-1']);
    expect(() => lambdaRuntimes(env)).toThrow(/EKS_CLUSTERS\[0\] \(a\): no endpoint and caData/);
  });
});
