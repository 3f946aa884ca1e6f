/**
 * EKS Pod Identity in the simulated world: the cluster's pod identity associations, each mapping one
 * namespace + service account to the IAM role its pods get (EKS's CreatePodIdentityAssociation:
 * cluster, namespace, serviceAccount, roleArn; one association per namespace and service account —
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_CreatePodIdentityAssociation.html).
 * The EKS Pod Identity webhook gives a matching pod `AWS_CONTAINER_CREDENTIALS_FULL_URI` and the
 * agent on its node serves the role's credentials there
 * (https://docs.aws.amazon.com/eks/latest/userguide/pod-identities.html).
 */

/** One pod identity association. */
export type PodIdentityAssociation = { readonly namespace: string; readonly serviceAccount: string; readonly roleArn: string };

/** A second association for the same namespace and service account (EKS answers ResourceInUseException). */
export class PodIdentityConflictError extends Error {
  override readonly name = 'PodIdentityConflictError';
}

/** The associations of one simulated EKS cluster. */
export class PodIdentityAssociations {
  private readonly byAccount = new Map<string, PodIdentityAssociation>();

  /** Creates the association; refuses a second one for the same namespace and service account. */
  add(a: PodIdentityAssociation): void {
    const key = `${a.namespace}/${a.serviceAccount}`;
    if (this.byAccount.has(key)) throw new PodIdentityConflictError(`ResourceInUseException: Association already exists for ${key}`);
    this.byAccount.set(key, a);
  }

  /** The role associated with `serviceAccount` in `namespace`, or undefined when none is. */
  roleFor(namespace: string, serviceAccount: string): string | undefined {
    return this.byAccount.get(`${namespace}/${serviceAccount}`)?.roleArn;
  }
}
