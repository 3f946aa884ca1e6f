/**
 * EKS access entries as the admin function reads them: which Kubernetes identity (user name and
 * groups) an IAM principal is mapped to in the cluster. The adapter is `client.ts` (the EKS API);
 * `MemoryAccessEntries` serves the local stack and the simulator. Methods throw the typed errors of
 * `platform/errors.ts` (`TransientError` for throttling, timeouts and server faults, `TerminalError`
 * for anything the caller must fix, e.g. a missing `eks:DescribeAccessEntry` permission).
 */

/** One access entry, as DescribeAccessEntry returns it. */
export type AccessEntry = {
  readonly principalArn: string;
  /** The Kubernetes user name; may hold templates such as `{{SessionName}}` (see `admin-caller.ts`). */
  readonly username: string;
  readonly kubernetesGroups: readonly string[];
  /** STANDARD for people and services; node types (EC2_LINUX, …) are never admin callers. */
  readonly type: string;
};

/** The access entries of one EKS cluster. */
export interface AccessEntries {
  /** The entry for exactly this principal ARN, or undefined when there is none. */
  describe(principalArn: string): Promise<AccessEntry | undefined>;
  /** The principal ARNs of every entry (to find a role whose ARN carries a path). */
  listPrincipalArns(): Promise<readonly string[]>;
}

/** Access entries held in memory: the local stack's and the simulator's EKS. */
export class MemoryAccessEntries implements AccessEntries {
  private readonly entries = new Map<string, AccessEntry>();

  constructor(entries: readonly AccessEntry[] = []) {
    for (const e of entries) this.put(e);
  }

  /** Adds or replaces the entry of `entry.principalArn`. */
  put(entry: AccessEntry): void {
    this.entries.set(entry.principalArn, entry);
  }

  async describe(principalArn: string): Promise<AccessEntry | undefined> {
    return this.entries.get(principalArn);
  }

  async listPrincipalArns(): Promise<readonly string[]> {
    return [...this.entries.keys()];
  }
}
