/**
 * TiDB Operator's TidbInitializer CustomResourceDefinition (`tidbinitializers.pingcap.com`, short
 * name `ti`, pingcap.com/v1alpha1), which every simulated world installs beside the TidbCluster's.
 * Copied unchanged from release-1.6's `manifests/crd/v1/pingcap.com_tidbinitializers.yaml` by
 * scripts/gen-tidbinitializer-crd.ts: v1 declares no printer columns (so `kubectl get ti` shows NAME
 * and AGE) and no subresources (status is written with the object). Read once per process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { KubeObject } from '../object.js';

const FILE = join(import.meta.dirname, 'tidbinitializer-crd.json.gz');
let cached: Readonly<KubeObject> | undefined;

/** The CRD (a shared, read-only object: the store copies what it is given). */
export function tidbInitializerCrd(): Readonly<KubeObject> {
  cached ??= JSON.parse(gunzipSync(readFileSync(FILE)).toString('utf8')) as KubeObject;
  return cached;
}
