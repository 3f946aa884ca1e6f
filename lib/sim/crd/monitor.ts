/**
 * TiDB Operator's TidbMonitor CustomResourceDefinition (`tidbmonitors.pingcap.com`, short name `tm`,
 * pingcap.com/v1alpha1), which every simulated world installs beside the TidbCluster's. Copied
 * unchanged from release-1.6's `manifests/crd/v1/pingcap.com_tidbmonitors.yaml` by
 * scripts/gen-monitor-crd.ts: the schema (`spec.initializer`, `spec.prometheus` and `spec.reloader`
 * required; no subresources, so status is written with the object) and no printer columns — `kubectl
 * get tm` prints NAME and AGE, as on a cluster running TiDB Operator. Read once per process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { KubeObject } from '../object.js';

const FILE = join(import.meta.dirname, 'tidbmonitor-crd.json.gz');
let cached: KubeObject | undefined;

/** The TidbMonitor CRD (a shared, read-only object: the store copies what it is given). */
export function tidbMonitorCrd(): Readonly<KubeObject> {
  cached ??= JSON.parse(gunzipSync(readFileSync(FILE)).toString('utf8')) as KubeObject;
  return cached;
}
