/**
 * Where a registered EKS cluster's API server is, when its `EKS_CLUSTERS` entry leaves out
 * `endpoint` and `caData` (docs/adr/0027): EKS DescribeCluster, asked once at cold start with the
 * function's own role, gives `cluster.endpoint` and `cluster.certificateAuthority.data`
 * (https://docs.aws.amazon.com/eks/latest/APIReference/API_DescribeCluster.html). The role needs
 * `eks:DescribeCluster` on the cluster's ARN. `EksClusterDescriber` (`describe-cluster.ts`, loaded
 * only when an entry needs it, so a function whose registry is written out never loads the EKS SDK)
 * is the adapter (each call under a timeout, failures as typed errors); `MemoryClusterDescriber`
 * is the world's; `resolveEksClusters` fills in a registry, retrying throttling and server faults
 * within a budget and naming the entry in every failure.
 */
import type { Clock } from '../platform/clock.js';
import { TerminalError, TransientError } from '../platform/errors.js';
import { type EksClusterEntry, EKS_CLUSTERS_ENV, isResolved, type ResolvedEksCluster } from '../platform/eks-clusters.js';
import { withRetries, type RetryPolicy } from '../platform/retry.js';

/** What DescribeCluster says of how to reach a cluster's API server. */
export type ClusterAccessData = { readonly endpoint: string; readonly caData: string };

/**
 * DescribeCluster as the functions use it. Throws `TransientError` for throttling, timeouts and
 * server faults, `TerminalError` for anything the deployment must fix (no permission, no cluster).
 */
export interface ClusterDescriber {
  describe(name: string, region: string): Promise<ClusterAccessData>;
}

/** DescribeCluster over clusters held in memory: the local stack's and the simulator's EKS. */
export class MemoryClusterDescriber implements ClusterDescriber {
  private readonly clusters = new Map<string, ClusterAccessData & { readonly region: string }>();

  /** Adds or replaces cluster `name` in `region`. */
  put(name: string, region: string, access: ClusterAccessData): void {
    this.clusters.set(name, { ...access, region });
  }

  async describe(name: string, region: string): Promise<ClusterAccessData> {
    const found = this.clusters.get(name);
    // EKS answers ResourceNotFoundException; the adapter turns that into this terminal error.
    if (found === undefined || found.region !== region) throw new TerminalError(`eks:DescribeCluster ${name} (${region}): no EKS cluster of that name in ${region}`);
    return { endpoint: found.endpoint, caData: found.caData };
  }
}

/**
 * How hard cold start tries: 4 attempts, 200 ms doubling to 2 s (at most ~3.5 s of waiting; with the
 * 5 s call timeout, inside the shortest function timeout, the admin's 30 s).
 */
export const DESCRIBE_RETRY_POLICY: RetryPolicy = { attempts: 4, baseMs: 200, capMs: 2_000 };

/** What `resolveEksClusters` runs on. */
export type ResolveContext = {
  readonly describer: ClusterDescriber;
  readonly clock: Clock;
  readonly random?: () => number;
  readonly policy?: RetryPolicy;
  /** No retry wait may end after this (on `clock`). */
  readonly deadlineAtMs?: number;
};

/**
 * `entries` with every missing `endpoint`/`caData` read from DescribeCluster, all at once. Entries
 * that name both are returned untouched and cost no call. A failure (after retrying transient ones)
 * throws the first failing entry's error, of the same class, its message naming the entry
 * (`EKS_CLUSTERS[1] (prod-b): …`).
 */
export async function resolveEksClusters(entries: readonly EksClusterEntry[], ctx: ResolveContext): Promise<ResolvedEksCluster[]> {
  const retry = {
    policy: ctx.policy ?? DESCRIBE_RETRY_POLICY,
    clock: ctx.clock,
    random: ctx.random ?? Math.random,
    ...(ctx.deadlineAtMs === undefined ? {} : { deadlineAtMs: ctx.deadlineAtMs }),
  };
  const settled = await Promise.allSettled(
    entries.map(async (entry): Promise<ResolvedEksCluster> => {
      if (isResolved(entry)) return entry;
      const access = await withRetries(retry, { isRetryable: (err) => err instanceof TransientError }, () => ctx.describer.describe(entry.name, entry.region));
      return { ...entry, ...access };
    }),
  );
  const failed = settled.findIndex((s) => s.status === 'rejected');
  const failure = settled[failed];
  if (failure?.status === 'rejected') {
    const err: unknown = failure.reason;
    const message = `${EKS_CLUSTERS_ENV}[${failed}] (${entries[failed]?.name ?? ''}): ${err instanceof Error ? err.message : String(err)}`;
    throw err instanceof TransientError ? new TransientError(message, { cause: err }) : new TerminalError(message, { cause: err, field: `${EKS_CLUSTERS_ENV}[${failed}]` });
  }
  return settled.map((s) => (s as PromiseFulfilledResult<ResolvedEksCluster>).value);
}
