/**
 * What a CompactBackup must satisfy before its Job is built. First v1's own checks with v1's messages
 * (`validate`, `compact_backup_controller.go` on release-1.6): `startTs`, `endTs` set, `concurrency`
 * > 0, `maxRetryTimes` ≥ 0. Then, stricter than v1, what v1 leaves to a crash or to seven failing
 * pods: `br.cluster` set (v1 dereferences a nil `br`), S3 storage with a bucket, both timestamps
 * parseable and `endTs` after `startTs` (the pod's own messages, `options.go`), and — compaction
 * being a TiDB v9.0 feature (`tikv-ctl compact-log-backup`) — a TiKV of at least v9.0.0, naming the
 * field whose version is too old. Pure.
 */

import type { TidbCluster } from '../../model/kube.js';
import { tikvVersionOf } from '../backup/job.js';
import { parseTso, validateS3 } from '../backup/validate.js';
import { imageTag, versionAtLeast } from '../backup/version.js';
import type { CompactSpec } from './types.js';

/** The TiKV version log backup compaction needs (TiDB ≥ v9.0, §3.5 of the data-plane spec). */
export const COMPACT_MIN_TIKV_VERSION = '9.0.0';

/** The first problem of the spec, v1's checks first; undefined when valid. Needs no TidbCluster. */
export function validateCompactSpec(ns: string, name: string, spec: CompactSpec): string | undefined {
  if ((spec.startTs ?? '') === '') return 'start-ts must be set';
  if ((spec.endTs ?? '') === '') return 'end-ts must be set';
  if ((spec.concurrency ?? 0) <= 0) return 'concurrency must be greater than 0';
  if ((spec.maxRetryTimes ?? 0) < 0) return 'maxRetryTimes must be greater than or equal to 0';
  const where = `in spec of ${ns}/${name}`;
  if ((spec.br?.cluster ?? '') === '') return `cluster should be configured for BR ${where}`;
  if (spec.s3 === undefined) {
    if (spec.gcs !== undefined || spec.azblob !== undefined || spec.local !== undefined) return `only S3 storage is supported by this reconciler ${where}`;
    return `no storage provider is configured ${where}`;
  }
  const s3 = validateS3(spec.s3, where);
  if (s3 !== undefined) return s3;
  const from = parseTso(spec.startTs ?? '');
  if (from === undefined) return `failed to parse startTs ${spec.startTs ?? ''}`;
  const until = parseTso(spec.endTs ?? '');
  if (until === undefined) return `failed to parse endTs ${spec.endTs ?? ''}`;
  if (BigInt(until) < BigInt(from)) return `until-ts ${until} must be greater than from-ts ${from}`;
  return undefined;
}

/**
 * Why the cluster cannot compact its log backup, or undefined when it can: the TidbCluster's TiKV
 * (whose log backup files are compacted, and which restores them) and the `tikv-ctl` that runs —
 * `spec.tikvImage` when it carries a tag — must both be at least v9.0.0. As v1's version gates, a tag
 * that is not a version (`latest`, a digest) passes.
 */
export function compactVersionProblem(spec: CompactSpec, tc: TidbCluster): string | undefined {
  const needs = `log backup compaction needs TiKV v${COMPACT_MIN_TIKV_VERSION} or later (TiDB v9.0)`;
  const version = tikvVersionOf(tc);
  if (!versionAtLeast(version, COMPACT_MIN_TIKV_VERSION)) {
    return `${needs}: spec.br.cluster ${tc.metadata.namespace ?? ''}/${tc.metadata.name ?? ''} runs TiKV ${version}`;
  }
  const ownTag = spec.tikvImage ? imageTag(spec.tikvImage) : '';
  if (ownTag !== '' && !versionAtLeast(ownTag, COMPACT_MIN_TIKV_VERSION)) return `${needs}: spec.tikvImage ${spec.tikvImage ?? ''} is ${ownTag}`;
  return undefined;
}
