/**
 * A simulated deployment of several EKS clusters reaches each API server as deployed with a
 * registry (docs/adr/0027): every function's cold start reads the cluster's endpoint and CA with
 * eks:DescribeCluster as its own role, which the template's IAM allows on exactly the listed clusters.
 */
import { describe, expect, it } from '@jest/globals';

import { eksClustersIam } from '../../lib/local/eks-describe.js';
import { guardClusterDescriber } from '../../lib/local/iam/guarded-ports.js';
import { localIam } from '../../lib/local/iam/identities.js';
import { MemoryClusterDescriber } from '../../lib/eks/cluster-access.js';
import { parseScenario } from '../../lib/local/scenario/file.js';
import type { Scenario } from '../../lib/local/scenario/types.js';
import { SimStack } from '../../lib/local/sim-stack.js';

const tc = (name: string) => `  - {apiVersion: pingcap.com/v1alpha1, kind: TidbCluster, metadata: {name: ${name}, namespace: demo}, spec: {pd: {baseImage: pingcap/pd, replicas: 1, requests: {storage: 1Gi}}}}\n`;
const TEXT = `name: t\nsim:\n  eksClusters: [{name: eks-a}, {name: eks-b, tidbClusters: [demo/other]}]\nclusters:\n${tc('basic')}${tc('other')}timeline:\n  - waitFor: ready\n`;

function scenario(): Scenario {
  const result = parseScenario(TEXT, 's.yaml');
  if (!result.ok) throw new Error(result.error);
  return result.scenario;
}

describe('DescribeCluster in a simulated deployment of several EKS clusters', () => {
  it('each function (reconcile, sweep, admin) asks once per EKS cluster, allowed, and reaches that cluster\'s API server', async () => {
    // Act
    const stack = await SimStack.start(scenario(), 1);
    try {
      // Assess
      expect(stack.eksApi?.requests).toBe(6);
      expect(stack.denials).toEqual([]);
      // The sweep lists each cluster with the kubeconfig its cold start built: eks-b's API server is asked.
      const seen: string[] = [];
      const eksB = stack.eks.extra[0]?.world.server;
      const previous = eksB?.requestHook;
      if (eksB) eksB.requestHook = (method, path) => (seen.push(`${method} ${path}`), previous?.(method, path));
      await stack.invokeSweep();
      expect(seen.length).toBeGreaterThan(0);
      expect(stack.invocationErrors).toBe(0);
    } finally {
      await stack.stop();
    }
  }, 120_000);

  it('a deployment whose roles lack eks:DescribeCluster fails its cold start naming the entry and the permission', async () => {
    // Act
    const started = SimStack.start(scenario(), 1, { iam: localIam() });

    // Assess
    await expect(started).rejects.toThrow(/EKS_CLUSTERS\[0\] \(eks-a\): .*eks:DescribeCluster/);
  }, 120_000);

  it.each([
    { name: 'a listed cluster is described', cluster: 'eks-a', fn: 'reconcile', allowed: true },
    { name: 'an unlisted cluster is refused', cluster: 'eks-z', fn: 'reconcile', allowed: false },
    { name: 'timer, which calls no EKS API, is refused', cluster: 'eks-a', fn: 'timer', allowed: false },
  ])('the template\'s grant with the registry\'s ARNs: $name', async ({ cluster, fn, allowed }) => {
    // Prepare
    const iam = eksClustersIam(['eks-a', 'eks-b']);
    const eks = new MemoryClusterDescriber();
    for (const name of ['eks-a', 'eks-z']) eks.put(name, 'us-east-1', { endpoint: `https://${name}`, caData: 'Q0E=' });

    // Act
    const described = guardClusterDescriber(eks, iam, iam.functionPrincipal(fn)).describe(cluster, 'us-east-1');

    // Assess
    if (allowed) await expect(described).resolves.toEqual({ endpoint: `https://${cluster}`, caData: 'Q0E=' });
    else await expect(described).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});
