/**
 * `AccessEntries` over the EKS API (DescribeAccessEntry, ListAccessEntries) for one cluster, with
 * the function's own credentials. Each call is bounded by a timeout; ResourceNotFoundException is
 * "no entry"; every other failure leaves as a typed error (see `callAws`). The function's role needs
 * `eks:DescribeAccessEntry` on the cluster's access entries and `eks:ListAccessEntries` on the
 * cluster (serverless.yml).
 */
import { DescribeAccessEntryCommand, EKSClient, ListAccessEntriesCommand } from '@aws-sdk/client-eks';
import { NotFoundError } from '../platform/errors.js';
import { callAws, withoutSdkLogging } from '../queue/aws-call.js';
import type { AccessEntries, AccessEntry } from './port.js';

/** How long one EKS call may take (the admin function has 30 s in all). */
export const EKS_CALL_TIMEOUT_MS = 5_000;

// ListAccessEntries pages; a cluster with more entries than this many pages is not searched further.
const MAX_LIST_PAGES = 20;

/** The access entries of EKS cluster `clusterName` in `region`. */
export class EksAccessEntries implements AccessEntries {
  private readonly client: EKSClient;

  constructor(
    private readonly clusterName: string,
    region: string,
    client?: EKSClient,
  ) {
    this.client = client ?? withoutSdkLogging(new EKSClient({ region, maxAttempts: 2 }));
  }

  async describe(principalArn: string): Promise<AccessEntry | undefined> {
    try {
      const out = await callAws(`eks:DescribeAccessEntry ${principalArn}`, EKS_CALL_TIMEOUT_MS, (abortSignal) =>
        this.client.send(new DescribeAccessEntryCommand({ clusterName: this.clusterName, principalArn }), { abortSignal }),
      );
      const e = out.accessEntry;
      if (e === undefined) return undefined;
      return { principalArn: e.principalArn ?? principalArn, username: e.username ?? '', kubernetesGroups: e.kubernetesGroups ?? [], type: e.type ?? 'STANDARD' };
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  async listPrincipalArns(): Promise<readonly string[]> {
    const arns: string[] = [];
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const out = await callAws(`eks:ListAccessEntries ${this.clusterName}`, EKS_CALL_TIMEOUT_MS, (abortSignal) =>
        this.client.send(new ListAccessEntriesCommand({ clusterName: this.clusterName, ...(nextToken ? { nextToken } : {}) }), { abortSignal }),
      );
      arns.push(...(out.accessEntries ?? []));
      nextToken = out.nextToken;
      if (!nextToken) break;
    }
    return arns;
  }
}
