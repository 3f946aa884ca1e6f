/**
 * The CustomResourceDefinitions of TiDB Operator's TidbDashboard (`td`) and TidbNGMonitoring
 * (`tngm`) controllers, pingcap.com/v1alpha1, which every simulated world installs beside the
 * TidbCluster's. Copied unchanged from release-1.6's `manifests/crd/v1/pingcap.com_<plural>.yaml` by
 * scripts/gen-dashboard-crds.ts: the schema, the short names and the `status` subresource (their
 * controllers write status through /status, unlike the backup kinds). v1 declares no printer
 * columns for them. Read once per process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { KubeObject } from '../object.js';

const FILE = join(import.meta.dirname, 'dashboard-crds.json.gz');
let cached: readonly KubeObject[] | undefined;

/** The kinds these CRDs serve, in the order `dashboardCrds()` returns them. */
export const DASHBOARD_KINDS = ['TidbDashboard', 'TidbNGMonitoring'] as const;

/** The two CRDs (shared, read-only objects: the store copies what it is given). */
export function dashboardCrds(): readonly Readonly<KubeObject>[] {
  cached ??= JSON.parse(gunzipSync(readFileSync(FILE)).toString('utf8')) as KubeObject[];
  return cached;
}
