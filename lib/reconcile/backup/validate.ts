/**
 * `ValidateBackup` / `ValidateRestore` for BR mode with v1's exact messages (TiDB Operator v1's `pkg/backup/util/util.go`), checked in v1's order: the first problem is the one reported.
 * Pure: the TiKV version comes from the TidbCluster the caller read.
 */

import { versionAtLeast } from './version.js';
import type { BackupSpec, RestoreSpec, S3Storage } from './types.js';

const BACKUP_TYPES = new Set(['', 'full', 'db', 'table']);

/** The first problem of a BR Backup's spec, or undefined when it is valid. `tikvVersion` is the TiKV image tag. */
export function validateBackup(ns: string, name: string, spec: BackupSpec, tikvVersion: string): string | undefined {
  const where = `in spec of ${ns}/${name}`;
  const common = validateBr('backup', where, spec, spec.backupType, tikvVersion);
  if (common !== undefined) return common;
  if (spec.backupMode === 'log') {
    if (!versionAtLeast(tikvVersion, '6.1.0')) return `tikv ${tikvVersion} doesn't support log backup ${where}, the minimal version is v6.1.0`;
    if (spec.commitTs !== undefined && spec.commitTs !== '' && parseTso(spec.commitTs) === undefined) return `fail to parse commitTs ${spec.commitTs} ${where}`;
    if (spec.logTruncateUntil !== undefined && spec.logTruncateUntil !== '' && parseTso(spec.logTruncateUntil) === undefined) {
      return `fail to parse logTruncateUntil ${spec.logTruncateUntil} ${where}`;
    }
  }
  if (spec.backupMode === 'volume-snapshot') return `only support volume snapshot backup across k8s clusters`;
  return validateRetryPolicy(spec, where);
}

/** The first problem of a BR Restore's spec, or undefined when it is valid. */
export function validateRestore(ns: string, name: string, spec: RestoreSpec, tikvVersion: string): string | undefined {
  const where = `in spec of ${ns}/${name}`;
  const common = validateBr('restore', where, spec, spec.backupType, tikvVersion);
  if (common !== undefined) return common;
  if (spec.restoreMode === 'pitr') {
    if (spec.pitrRestoredTs !== undefined && spec.pitrRestoredTs !== '' && parseTso(spec.pitrRestoredTs) === undefined) return `fail to parse pitrRestoredTs ${spec.pitrRestoredTs} ${where}`;
    const full = spec.pitrFullBackupStorageProvider !== undefined && Object.keys(spec.pitrFullBackupStorageProvider).length > 0;
    const start = spec.logRestoreStartTs !== undefined && spec.logRestoreStartTs !== '';
    if (full === start) return `pitrFullBackupStorageProvider and logRestoreStartTs option can only set one ${where}`;
  }
  if (spec.restoreMode === 'volume-snapshot') return `only support volume snapshot restore across k8s clusters`;
  return undefined;
}

function validateBr(what: 'backup' | 'restore', where: string, spec: BackupSpec | RestoreSpec, type: string | undefined, tikvVersion: string): string | undefined {
  // BR before TiKV v4.0.8 needs the TiDB endpoint (`util.go:480-484`).
  if (!versionAtLeast(tikvVersion, '4.0.8')) {
    const from = 'to' in spec ? spec.to : spec.from;
    if (from?.host === undefined || from.host === '') return `missing cluster config ${where}`;
    if (from.secretName === undefined || from.secretName === '') return `missing tidbSecretName config ${where}`;
  }
  const br = spec.br;
  if (br?.cluster === undefined || br.cluster === '') return `cluster should be configured for BR ${where}`;
  const t = type ?? '';
  if (!BACKUP_TYPES.has(t)) return `invalid backup type ${t} for BR ${where}`;
  if ((t === 'db' || t === 'table') && (br.db ?? '') === '') return `DB should be configured for BR with ${what} type ${t} ${where}`;
  if (t === 'table' && (br.table ?? '') === '') return `table should be configured for BR with ${what} type table ${where}`;
  return spec.s3 === undefined ? storageMissing(spec, where) : validateS3(spec.s3, where);
}

function storageMissing(spec: BackupSpec | RestoreSpec, where: string): string | undefined {
  // GCS, Azure and local storage are v1's too, but this reconciler runs BR to S3 only.
  if (spec.gcs !== undefined || spec.azblob !== undefined || spec.local !== undefined) return `only S3 storage is supported by this reconciler ${where}`;
  return `no storage provider is configured ${where}`;
}

/** The first problem of an `s3` storage block (bucket, endpoint), v1's messages; undefined when usable. */
export function validateS3(s3: S3Storage, where: string): string | undefined {
  const bucket = s3.bucket ?? bucketOfPath(s3.path);
  if (bucket === undefined || bucket === '') return `bucket should be configured for BR ${where}`;
  const endpoint = s3.endpoint ?? '';
  if (endpoint === '') return undefined;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    // Go's url.Parse accepts "host:port" with the host as scheme; a string without "://" has no host.
    return endpoint.includes('://') ? `invalid endpoint ${endpoint} is configured for BR ${where}` : `scheme not found in endpoint ${endpoint} configured for BR ${where}`;
  }
  if (url.host === '') return `host not found in endpoint ${endpoint} configured for BR ${where}`;
  return undefined;
}

function validateRetryPolicy(spec: BackupSpec, where: string): string | undefined {
  const policy = spec.backoffRetryPolicy;
  if (policy === undefined) return undefined;
  for (const field of ['minRetryDuration', 'retryTimeout'] as const) {
    const value = policy[field];
    if (value !== undefined && value !== '' && parseGoDurationMs(value) === undefined) return `fail to parse backoffRetryPolicy.${field} ${value} ${where}`;
  }
  return undefined;
}

/** The bucket of an `s3://bucket/prefix` path. */
export function bucketOfPath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  return path.replace(/^s3:\/\//, '').split('/')[0];
}

/**
 * `config.ParseTSString` (BR's, as TiDB Operator v1 calls it): empty → 0; all digits → a TSO; else a datetime
 * (RFC 3339, or `2006-01-02 15:04:05` read as UTC — v1 reads it in the operator's local zone, which a
 * Lambda's is) → `unixMillis << 18`. Undefined when unparsable. As a decimal string (TSOs exceed 2^53).
 */
export function parseTso(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return '0';
  if (/^\d+$/.test(t)) return BigInt(t).toString();
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(t) ? `${t.replace(' ', 'T')}Z` : t;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? (BigInt(ms) << 18n).toString() : undefined;
}

/** Go's `time.ParseDuration` for the units backup specs use (h, m, s, ms); undefined when unparsable. */
export function parseGoDurationMs(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(h|m|s|ms))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, num, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g)) {
    const factor = unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1;
    total += Number(num) * factor;
  }
  return total;
}
