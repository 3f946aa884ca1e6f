/**
 * `sim.podIdentityAssociations`: the simulated EKS cluster's Pod Identity associations, as EKS's
 * CreatePodIdentityAssociation takes them (namespace, serviceAccount, roleArn; one association per
 * namespace and service account —
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_CreatePodIdentityAssociation.html).
 * The namespace defaults to the first cluster's; a second association for the same namespace and
 * service account, a malformed name or a role that is not an IAM role ARN is a file error naming
 * the field.
 */
import type { PodIdentityAssociation } from '../../sim/backup/pod-identity.js';
import { ROLE_ARN } from './backup-settings.js';
import { FieldError, type FieldPath, describeValue, expectMapping, readString, rejectUnknownFields, required } from './reader.js';

// Kubernetes names: a namespace is a DNS-1123 label, a ServiceAccount a DNS-1123 subdomain.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Reads `sim.podIdentityAssociations` (a list of `{namespace?, serviceAccount, roleArn}`), the namespace defaulting to `defaultNamespace`. */
export function readPodIdentityAssociations(value: unknown, path: FieldPath, defaultNamespace: string): PodIdentityAssociation[] {
  if (!Array.isArray(value)) throw new FieldError(path, `expected a list of pod identity associations, got ${describeValue(value)}`);
  const seen = new Set<string>();
  return value.map((raw: unknown, i) => {
    const at: FieldPath = [...path, i];
    const map = expectMapping(raw, at, 'a mapping {namespace, serviceAccount, roleArn}');
    rejectUnknownFields(map, at, ['namespace', 'serviceAccount', 'roleArn'], 'for a pod identity association');
    const namespace = 'namespace' in map ? readString(map['namespace'], [...at, 'namespace']) : defaultNamespace;
    if (namespace.length > 63 || !DNS_LABEL.test(namespace)) throw new FieldError([...at, 'namespace'], `"${namespace}" is not a valid namespace name`);
    const serviceAccount = readString(required(map, 'serviceAccount', at), [...at, 'serviceAccount']);
    if (serviceAccount.length > 253 || !DNS_SUBDOMAIN.test(serviceAccount)) throw new FieldError([...at, 'serviceAccount'], `"${serviceAccount}" is not a valid ServiceAccount name`);
    const roleArn = readString(required(map, 'roleArn', at), [...at, 'roleArn']);
    if (!ROLE_ARN.test(roleArn)) throw new FieldError([...at, 'roleArn'], `"${roleArn}" is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)`);
    const key = `${namespace}/${serviceAccount}`;
    if (seen.has(key)) throw new FieldError([...at, 'serviceAccount'], `service account ${key} already has an association (EKS allows one per namespace and service account)`);
    seen.add(key);
    return { namespace, serviceAccount, roleArn };
  });
}

/** `sim` with its `podIdentityAssociations` read from the raw `sim:` section (done once the first cluster's namespace is known). */
export function withPodIdentityAssociations<S extends object>(sim: S, rawSim: unknown, defaultNamespace: string): S & { podIdentityAssociations?: readonly PodIdentityAssociation[] } {
  if (rawSim === null || typeof rawSim !== 'object' || !('podIdentityAssociations' in rawSim)) return sim;
  const value = (rawSim as Record<string, unknown>)['podIdentityAssociations'];
  return { ...sim, podIdentityAssociations: readPodIdentityAssociations(value, ['sim', 'podIdentityAssociations'], defaultNamespace) };
}
