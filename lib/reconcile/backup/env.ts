/**
 * The storage credentials and environment of a backup-manager Job, as v1's `GenerateStorageCertEnv`
 * (TiDB Operator v1's `pkg/backup/util/util.go`). With `s3.secretName` the keys reach the pod only as `secretKeyRef`s —
 * the reconciler never reads a value. Without it no key env is set and the AWS SDK's default chain
 * finds the pod's web identity (IRSA) or EKS Pod Identity through the Job's service account.
 */

import type { EnvVar, JobShapingSpec, S3Storage } from './types.js';

/** The Secret keys an S3 Secret must hold (v1's `constants.S3AccessKey` / `S3SecretKey`). */
export const S3_SECRET_KEYS = { accessKey: 'access_key', secretKey: 'secret_key' } as const;

/** Why the S3 Secret cannot be used (reason, message), or undefined when it can or none is named. */
export function s3SecretProblem(ns: string, s3: S3Storage | undefined, secretKeys: readonly string[] | undefined): { reason: string; message: string } | undefined {
  const name = s3?.secretName;
  if (name === undefined || name === '') return undefined;
  if (secretKeys === undefined) return { reason: 'GetS3SecretFailed', message: `secrets "${name}" not found in namespace ${ns}` };
  for (const key of [S3_SECRET_KEYS.accessKey, S3_SECRET_KEYS.secretKey]) {
    if (!secretKeys.includes(key)) return { reason: 's3KeyNotExist', message: `secret ${ns}/${name} missing some keys [${key}]` };
  }
  return undefined;
}

/**
 * v1's `GenerateTidbPasswordEnv` checks (pkg/backup/util/util.go:346-375): the TiDB password Secret
 * (`from`/`to`.secretName) must exist and hold `password`; `secretKeys` undefined = not found.
 */
export function tidbSecretProblem(ns: string, name: string, secretName: string | undefined, secretKeys: readonly string[] | undefined): { reason: string; message: string } | undefined {
  if (secretName === undefined || secretName === '') return undefined;
  if (secretKeys === undefined) return { reason: 'GetTidbSecretFailed', message: `backup ${ns}/${name} get tidb secret ${secretName} failed, err: secrets "${secretName}" not found` };
  if (!secretKeys.includes('password')) return { reason: 'KeyNotExist', message: `backup ${ns}/${name}, tidb secret ${secretName} missing password key password` };
  return undefined;
}

/** The S3 env of the pod: provider, endpoint, region, ACL and storage class, and the key refs with a Secret. */
export function s3Env(s3: S3Storage, useKMS: boolean): EnvVar[] {
  const aws = (s3.provider ?? 'aws') === 'aws';
  const env: EnvVar[] = [
    { name: 'S3_PROVIDER', value: s3.provider ?? 'aws' },
    { name: 'S3_ENDPOINT', value: s3.endpoint ?? '' },
    { name: 'AWS_REGION', value: s3.region ?? '' },
    { name: 'AWS_ACL', value: s3.acl ?? (aws ? 'private' : '') },
    { name: 'AWS_STORAGE_CLASS', value: s3.storageClass ?? (aws ? 'STANDARD_IA' : '') },
  ];
  if (useKMS) env.push({ name: 'AWS_DEFAULT_REGION', value: s3.region ?? '' });
  const secret = s3.secretName;
  if (secret !== undefined && secret !== '') {
    env.push({ name: 'AWS_ACCESS_KEY_ID', valueFrom: { secretKeyRef: { name: secret, key: S3_SECRET_KEYS.accessKey } } });
    env.push({ name: 'AWS_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: secret, key: S3_SECRET_KEYS.secretKey } } });
  }
  return env;
}

/**
 * The whole env of a backup-manager container: the TiDB password ref when `from` / `to` is set, then
 * the storage env (v1's order, backup_manager.go `makeBRBackupJob`), `BR_LOG_TO_TERM`, then
 * `spec.env` — whose entries replace built-ins of the same name (v1's `backup_test.go:250-305`,
 * fixtures B06/B09).
 */
export function jobEnv(spec: JobShapingSpec, tidbSecretName: string | undefined): EnvVar[] {
  const builtIn: EnvVar[] = [];
  if (tidbSecretName !== undefined && tidbSecretName !== '') {
    const name = spec.useKMS === true ? 'KMS_ENCRYPTED_BACKUP_MANAGER_PASSWORD' : 'BACKUP_MANAGER_PASSWORD';
    builtIn.push({ name, valueFrom: { secretKeyRef: { name: tidbSecretName, key: 'password' } } });
  }
  if (spec.s3) builtIn.push(...s3Env(spec.s3, spec.useKMS === true));
  builtIn.push({ name: 'BR_LOG_TO_TERM', value: '\u0001' });
  const user = spec.env ?? [];
  const overridden = new Set(user.map((e) => e.name));
  return [...builtIn.filter((e) => !overridden.has(e.name)), ...user];
}

/** The backup's remote path as v1 records it (`status.backupPath`): `s3://<bucket>/<prefix>`, or `s3.path`. */
export function s3BackupPath(s3: S3Storage): string {
  if (s3.path !== undefined && s3.path !== '') return s3.path.startsWith('s3://') ? s3.path : `s3://${s3.path}`;
  const prefix = (s3.prefix ?? '').replace(/^\/+/, '');
  return `s3://${s3.bucket ?? ''}${prefix === '' ? '' : `/${prefix}`}`;
}
