/**
 * The exporter of a deployment that manages several EKS clusters (docs/adr/0027): each scheduled
 * invocation runs one watch session per registered cluster, all at the same time in the one
 * function (one Lambda, one schedule; each session with its own API server connection, token,
 * checkpoints and carry), so a cluster whose API server is down costs its own session's retries and
 * nothing of the others'. A registry of one is the single exporter it always was.
 */
import type { Env } from '../platform/config.js';
import { isResolved, parseEksClusters, type ResolvedEksCluster } from '../platform/eks-clusters.js';
import { type ClusterDescriber, resolveEksClusters } from '../eks/cluster-access.js';
import { RealClock } from '../platform/clock.js';
import { ConfigError } from '../platform/config.js';
import { parseExporterEnv, type ExporterSettings } from './config.js';
import { lambdaExporterFromEnv, type LambdaExporter, type SessionSummary } from './lambda.js';

/**
 * The exporter settings of each registered EKS cluster: without `EKS_CLUSTERS`, `parseExporterEnv`'s
 * one; with it, one per entry (its name, endpoint, CA and region standing for CLUSTER_NAME,
 * KUBE_ENDPOINT, KUBE_CA_DATA and AWS_REGION), every problem of every entry in one `ConfigError`.
 */
export function exporterEnvsOf(env: Env, resolved?: readonly ResolvedEksCluster[]): Env[] {
  const registry = parseEksClusters(env);
  if (registry === undefined) return [env];
  if (!registry.ok) throw new ConfigError(registry.problems);
  const clusters = resolved ?? registry.clusters;
  return clusters.map((c) => ({ ...env, EKS_CLUSTERS: undefined, CLUSTER_NAME: c.name, KUBE_ENDPOINT: c.endpoint, KUBE_CA_DATA: c.caData, AWS_REGION: c.region }));
}

/**
 * `exporterEnvsOf` after reading, from EKS DescribeCluster, the endpoint and CA of every entry that
 * leaves them out (`lib/eks/cluster-access.ts`); throws the resolver's error naming the entry.
 */
export async function resolvedExporterEnvs(env: Env, describer?: ClusterDescriber): Promise<Env[]> {
  const registry = parseEksClusters(env);
  if (registry === undefined || !registry.ok || registry.clusters.every(isResolved)) return exporterEnvsOf(env);
  // Loaded only here: an exporter whose registry is written out never loads the EKS SDK.
  const eks = describer ?? new (await import('../eks/describe-cluster.js')).EksClusterDescriber();
  return exporterEnvsOf(env, await resolveEksClusters(registry.clusters, { describer: eks, clock: new RealClock() }));
}

/** Every registered cluster's exporter settings (see `exporterEnvsOf`); throws `ConfigError` naming every problem. */
export function parseExporterFleetEnv(env: Env): ExporterSettings[] {
  return exporterEnvsOf(env).map((e) => parseExporterEnv(e, 'lambda'));
}

/** What one invocation of a fleet's exporter returns: each cluster's session, or its error. */
export type FleetSessionSummary = SessionSummary | { readonly clusters: Readonly<Record<string, SessionSummary | { readonly error: string }>> };

/** Runs every cluster's session per invocation (see the module comment). */
export class FleetExporter {
  constructor(private readonly sessions: readonly { readonly k8sCluster: string; readonly exporter: Pick<LambdaExporter, 'run'> }[]) {}

  /**
   * One session per cluster for the invocation's `remainingMs`, concurrently. Guarantees: with one
   * cluster, exactly `LambdaExporter.run`; otherwise a failed session is reported under its cluster
   * and never ends the others'; throws only when every session failed (the schedule runs it again).
   */
  async run(remainingMs: number): Promise<FleetSessionSummary> {
    const [only, ...rest] = this.sessions;
    if (only !== undefined && rest.length === 0) return only.exporter.run(remainingMs);
    const settled = await Promise.allSettled(this.sessions.map((s) => s.exporter.run(remainingMs)));
    const clusters: Record<string, SessionSummary | { readonly error: string }> = {};
    settled.forEach((result, i) => {
      const name = this.sessions[i]?.k8sCluster ?? String(i);
      clusters[name] = result.status === 'fulfilled' ? result.value : { error: result.reason instanceof Error ? result.reason.message : String(result.reason) };
    });
    if (settled.every((r) => r.status === 'rejected')) throw new Error(`every exporter session failed: ${JSON.stringify(clusters)}`);
    return { clusters };
  }
}

/**
 * The fleet's exporter wired to the real ends from `env` (entries without endpoint and CA read from
 * DescribeCluster); throws `ConfigError` naming every problem.
 */
export async function fleetExporterFromEnv(env: Env, describer?: ClusterDescriber): Promise<FleetExporter> {
  const envs = await resolvedExporterEnvs(env, describer);
  // Validate every entry before building any client, so a bad registry is named in one error.
  const settings = envs.map((e) => parseExporterEnv(e, 'lambda'));
  return new FleetExporter(envs.map((e, i) => ({ k8sCluster: settings[i]?.k8sCluster ?? '', exporter: lambdaExporterFromEnv(e) })));
}
