/**
 * EKS DescribeCluster in a simulated deployment of several EKS clusters (`sim.eksClusters`,
 * docs/adr/0027). As deployed with a registry, the functions' `EKS_CLUSTERS` entries leave out
 * `endpoint` and `caData` (`{name, region, authentication}`), and each function's cold start reads
 * them with `eks:DescribeCluster` as its own role (`resolveEksClusters`, lib/eks/cluster-access.ts):
 * here the world's EKS answers with its API server's URL and CA, behind the local IAM that allows
 * exactly what serverless.yml grants (`eks:DescribeCluster` on the `eksClusterArns` it is packaged
 * with; lib/local/iam/eks-clusters-extract.ts). A plain-HTTP world has no CA: EKS's answer then
 * carries an empty one, and the kubeconfig verifies nothing (as for any http:// server).
 */
import { type ClusterDescriber, MemoryClusterDescriber, resolveEksClusters } from '../eks/cluster-access.js';
import type { EksClusterEntry } from '../platform/eks-clusters.js';
import type { Clock } from '../platform/clock.js';
import { seededRandom } from '../queue/memory.js';
import { simKubeconfig } from '../sim/kubeconfig.js';
import type { SimWorld } from '../sim/world.js';
import { functionUser } from './function-rbac.js';
import { eksClusterArn, eksClustersIamExtract } from './iam/eks-clusters-extract.js';
import { guardClusterDescriber } from './iam/guarded-ports.js';
import type { FunctionIdentities } from './iam/identities.js';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './iam/resolve.js';
import { localIam } from './iam/identities.js';
import type { LocalIam } from './iam/authority.js';
import type { SimFunction } from './sim-runtimes.js';

/** The local IAM of a deployment managing EKS clusters `names`: the template's with its registry's ARNs. */
export function eksClustersIam(names: readonly string[]): LocalIam {
  return localIam({ extract: eksClustersIamExtract(names.map((name) => eksClusterArn(name, LOCAL_REGION, LOCAL_ACCOUNT))) });
}

/** The world's EKS: each cluster's DescribeCluster answer, and how many requests it was asked. */
export class SimEks {
  /** DescribeCluster requests the functions made (the report's `requests.eks`), refused ones included. */
  requests = 0;
  private readonly clusters = new MemoryClusterDescriber();

  /** Registers EKS cluster `name`, whose API server is `world`'s. */
  add(name: string, world: SimWorld): void {
    this.clusters.put(name, LOCAL_REGION, { endpoint: world.url, caData: world.caData ?? '' });
  }

  /**
   * `kubeconfigs` of the first EKS cluster `name`, registering it first; when a cold start fails,
   * `release` (what the stack started so far) runs before the error is thrown on.
   */
  async firstKubeconfigs(name: string, world: SimWorld, ids: FunctionIdentities, clock: Clock, seed: number, release: () => Promise<unknown>): Promise<Record<SimFunction, Record<string, unknown>>> {
    this.add(name, world);
    try {
      return await this.kubeconfigs(name, world, ids, clock, seed);
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** DescribeCluster as function `fn`'s role calls it: counted, then authorised by the local IAM. */
  describerFor(ids: FunctionIdentities, fn: SimFunction): ClusterDescriber {
    const guarded = guardClusterDescriber(this.clusters, ids.iam, ids.principal(fn));
    return { describe: async (name, region) => (this.requests++, guarded.describe(name, region)) };
  }

  /**
   * Each function's kubeconfig for EKS cluster `name` (running `world`), as its cold start builds it:
   * the registry entry without endpoint and CA resolved through DescribeCluster as its role, and its
   * own token (its access entry's user). Throws what the resolution throws (e.g. a refused role).
   */
  async kubeconfigs(name: string, world: SimWorld, ids: FunctionIdentities, clock: Clock, seed: number): Promise<Record<SimFunction, Record<string, unknown>>> {
    const entry: EksClusterEntry = { name, region: LOCAL_REGION, authentication: 'iam-token' };
    const one = async (fn: SimFunction): Promise<Record<string, unknown>> => {
      const [resolved] = await resolveEksClusters([entry], { describer: this.describerFor(ids, fn), clock, random: seededRandom(seed + 6) });
      if (resolved === undefined) throw new TypeError(`EKS cluster ${name}: DescribeCluster resolved nothing`);
      const token = world.gate === undefined ? world.token : world.gate.tokens.issue(functionUser(ids, fn));
      return simKubeconfig(resolved.endpoint, token, 'default', resolved.caData === '' ? undefined : resolved.caData);
    };
    return { reconcile: await one('reconcile'), sweep: await one('sweep'), admin: await one('admin') };
  }
}
