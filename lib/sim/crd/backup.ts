/**
 * TiDB Operator's data-plane CustomResourceDefinitions — Backup (`bk`), Restore (`rt`),
 * BackupSchedule (`bks`) and CompactBackup (`cpbk`), pingcap.com/v1alpha1 — which every simulated
 * world installs beside the TidbCluster's. Copied unchanged from release-1.6's
 * `manifests/crd/v1/pingcap.com_<plural>.yaml` by scripts/gen-backup-crds.ts: the schema (these
 * CRDs declare `subresources: {}`, so there is no /status and status is written with the object),
 * the short names and the printer columns `kubectl get bk,rt,bks,cpbk` shows. Read once per process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { KubeObject } from '../object.js';

const FILE = join(import.meta.dirname, 'backup-crds.json.gz');
let cached: readonly KubeObject[] | undefined;

/** The kinds these CRDs serve, in the order `backupCrds()` returns them. */
export const BACKUP_KINDS = ['Backup', 'Restore', 'BackupSchedule', 'CompactBackup'] as const;

/** The four CRDs (shared, read-only objects: the store copies what it is given). */
export function backupCrds(): readonly Readonly<KubeObject>[] {
  cached ??= JSON.parse(gunzipSync(readFileSync(FILE)).toString('utf8')) as KubeObject[];
  return cached;
}
