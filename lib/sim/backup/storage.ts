/**
 * Where a backup-manager pod's data goes and with whose credentials: the S3 location of a
 * Backup / Restore spec (`s3: {bucket, prefix}`, BR's `--storage=s3://<bucket>/<prefix>`), and the
 * credentials the AWS SDK's default chain finds in the pod (§1.7 of the data-plane spec): the env
 * `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (secretKeyRefs into the S3 Secret) first, else the
 * IRSA role of the pod's service account (annotation `eks.amazonaws.com/role-arn`), else the role
 * of an EKS Pod Identity association for the pod's namespace and service account, else none
 * (`NoCredentialProviders`). An IRSA role the world does not know cannot be assumed.
 */
import type { KubeObject } from '../object.js';
import type { ObjectStore } from '../store.js';
import type { PodIdentityAssociations } from './pod-identity.js';
import type { S3Credentials } from './s3.js';

/** An S3 location: bucket and key prefix (no leading or trailing slash; '' for the bucket root). */
export type S3Location = { readonly bucket: string; readonly prefix: string };

/** A storage or credential problem, worded as BR / the AWS SDK report it. */
export class StorageSetupError extends Error {
  override readonly name = 'StorageSetupError';
}

/** The IRSA annotation on a ServiceAccount naming the role its pods assume. */
export const IRSA_ROLE_ANNOTATION = 'eks.amazonaws.com/role-arn';

/** The S3 location of a spec's `s3` provider; undefined when the spec names no S3 storage. */
export function s3LocationOf(storage: unknown): S3Location | undefined {
  const s3 = (storage as { s3?: { bucket?: unknown; prefix?: unknown } } | undefined)?.s3;
  if (!s3 || typeof s3.bucket !== 'string' || !s3.bucket) return undefined;
  return { bucket: s3.bucket, prefix: typeof s3.prefix === 'string' ? s3.prefix.replace(/^\/+|\/+$/g, '') : '' };
}

/** `s3://bucket/prefix`, as `status.backupPath`. */
export function s3Uri(loc: S3Location): string {
  return `s3://${loc.bucket}/${loc.prefix}`;
}

/** The key of `name` under the location's prefix. */
export function keyUnder(loc: S3Location, name: string): string {
  return loc.prefix ? `${loc.prefix}/${name}` : name;
}

type EnvVar = { name?: string; value?: string; valueFrom?: { secretKeyRef?: { name?: string; key?: string } } };

/** The value of env `name` of the pod's container `container`, resolving a secretKeyRef (undefined when unset or unresolvable). */
export function envOf(store: ObjectStore, pod: KubeObject, container: string, name: string): string | undefined {
  const c = ((pod.spec?.containers ?? []) as { name?: string; env?: EnvVar[] }[]).find((x) => x.name === container);
  const v = [...(c?.env ?? [])].reverse().find((e) => e.name === name);
  if (!v) return undefined;
  if (v.value !== undefined) return v.value;
  const ref = v.valueFrom?.secretKeyRef;
  if (!ref?.name || !ref.key) return undefined;
  const secret = store.get('Secret', pod.metadata.namespace, ref.name);
  const data = (secret?.data ?? {}) as Record<string, string>;
  return data[ref.key] === undefined ? undefined : Buffer.from(data[ref.key] ?? '', 'base64').toString('utf8');
}

/**
 * The credentials the AWS SDK's default chain resolves in the pod's container, in the chain's order
 * as BR (aws-sdk-go v1: session/credentials.go `resolveCredentials`, then the default chain's
 * remote provider) sees the pod: static keys from the env, else the web identity of the service account's IRSA role (assumable only when
 * `knownRoles` has it: AssumeRoleWithWebIdentity fails otherwise), else the container credentials
 * the EKS Pod Identity agent serves when an association matches the pod's namespace and service
 * account (the webhook injects `AWS_CONTAINER_CREDENTIALS_FULL_URI`:
 * https://docs.aws.amazon.com/eks/latest/userguide/pod-identities.html; container credentials come
 * after web identity in the SDKs' chain:
 * https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html), else none.
 * The association's role exists (EKS created it), so the bucket's policy decides what it may do.
 */
export function podCredentials(store: ObjectStore, pod: KubeObject, container: string, knownRoles: ReadonlySet<string>, podIdentity?: PodIdentityAssociations): S3Credentials {
  const accessKeyId = envOf(store, pod, container, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = envOf(store, pod, container, 'AWS_SECRET_ACCESS_KEY');
  if (accessKeyId && secretAccessKey) return { kind: 'keys', accessKeyId, secretAccessKey };
  const saName = typeof pod.spec?.serviceAccountName === 'string' && pod.spec.serviceAccountName ? pod.spec.serviceAccountName : 'default';
  const sa = store.get('ServiceAccount', pod.metadata.namespace, saName);
  const roleArn = sa?.metadata.annotations?.[IRSA_ROLE_ANNOTATION];
  if (roleArn) {
    if (!knownRoles.has(roleArn)) {
      throw new StorageSetupError(`WebIdentityErr: failed to retrieve credentials\ncaused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity\n\tstatus code: 403`);
    }
    return { kind: 'role', roleArn };
  }
  const podRole = podIdentity?.roleFor(pod.metadata.namespace ?? '', saName);
  if (podRole) return { kind: 'role', roleArn: podRole };
  throw new StorageSetupError('NoCredentialProviders: no valid providers in chain. Deprecated.\n\tFor verbose messaging see aws.Config.CredentialsChainVerboseErrors');
}
