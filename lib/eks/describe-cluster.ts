/**
 * EKS DescribeCluster over the EKS API with the function's credentials (`cluster-access.ts` says
 * when it is asked). Each call is bounded by a timeout; failures leave as typed errors naming the
 * call: AccessDenied (terminal, naming the missing `eks:DescribeCluster`), no such cluster
 * (terminal), throttling, server faults and a cluster without an endpoint yet (transient).
 */
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { NotFoundError, TerminalError, TransientError } from '../platform/errors.js';
import { callAws, withoutSdkLogging } from '../queue/aws-call.js';
import type { ClusterAccessData, ClusterDescriber } from './cluster-access.js';
import { EKS_CALL_TIMEOUT_MS } from './client.js';

/** The EKS API's DescribeCluster with the function's credentials, one client per region. */
export class EksClusterDescriber implements ClusterDescriber {
  private readonly clients = new Map<string, EKSClient>();

  constructor(private readonly clientFor: (region: string) => EKSClient = (region) => withoutSdkLogging(new EKSClient({ region, maxAttempts: 1 }))) {}

  async describe(name: string, region: string): Promise<ClusterAccessData> {
    const client = this.clients.get(region) ?? this.clientFor(region);
    this.clients.set(region, client);
    const operation = `eks:DescribeCluster ${name} (${region})`;
    let out;
    try {
      out = await callAws(operation, EKS_CALL_TIMEOUT_MS, (abortSignal) => client.send(new DescribeClusterCommand({ name }), { abortSignal }));
    } catch (err) {
      if (err instanceof NotFoundError) throw new TerminalError(`${operation}: no EKS cluster of that name in ${region}`, { cause: err });
      if (err instanceof TerminalError && /AccessDenied/.test(err.message)) {
        throw new TerminalError(`${operation}: access denied; the function's role needs eks:DescribeCluster on this cluster's ARN (${err.message})`, { cause: err });
      }
      throw err;
    }
    const endpoint = out.cluster?.endpoint ?? '';
    const caData = out.cluster?.certificateAuthority?.data ?? '';
    // A cluster still CREATING has neither yet.
    if (endpoint === '' || caData === '') throw new TransientError(`${operation}: the cluster has no endpoint or CA yet (status ${out.cluster?.status ?? 'unknown'})`);
    return { endpoint, caData };
  }
}
