/**
 * Generates the CustomResourceDefinitions of TiDB Operator's TidbDashboard and TidbNGMonitoring
 * controllers, which every simulated world installs beside the TidbCluster's
 * (lib/sim/crd/dashboard-crds.json.gz): `tidbdashboards` and `tidbngmonitorings` (pingcap.com/v1alpha1),
 * copied unchanged — schema, short names (`td`, `tngm`), the `status` subresource — from TiDB
 * Operator release-1.6's `manifests/crd/v1/pingcap.com_<plural>.yaml`. (v1 declares no printer
 * columns for either, so `kubectl get td,tngm` prints NAME and AGE.)
 *
 * Run: npx tsx scripts/gen-dashboard-crds.ts <dir holding the two YAML files>
 * (for example `git show release-1.6:manifests/crd/v1/pingcap.com_tidbdashboards.yaml > dir/pingcap.com_tidbdashboards.yaml`
 * in a clone of github.com/pingcap/tidb-operator, release-1.6 @ edf76fd64).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'yaml';

const PLURALS = ['tidbdashboards', 'tidbngmonitorings'] as const;
const dir = process.argv[2];
if (!dir) throw new Error('usage: gen-dashboard-crds.ts <dir with pingcap.com_<plural>.yaml>');
const crds = PLURALS.map((plural) => {
  const crd = parse(readFileSync(join(dir, `pingcap.com_${plural}.yaml`), 'utf8')) as { metadata?: { name?: string } };
  if (crd.metadata?.name !== `${plural}.pingcap.com`) throw new Error(`pingcap.com_${plural}.yaml is not the ${plural}.pingcap.com CRD`);
  return crd;
});
const out = join(import.meta.dirname, '..', 'lib', 'sim', 'crd', 'dashboard-crds.json.gz');
writeFileSync(out, gzipSync(JSON.stringify(crds)));
console.log(`wrote ${out}`);
