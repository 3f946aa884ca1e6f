/**
 * Generates the TidbMonitor CustomResourceDefinition every simulated world installs
 * (lib/sim/crd/tidbmonitor-crd.json.gz): `tidbmonitors.pingcap.com` (short name `tm`), copied
 * unchanged — schema, short names, and the printer columns (v1 declares none, so `kubectl get tm`
 * prints NAME and AGE) — from TiDB Operator release-1.6's `manifests/crd/v1/pingcap.com_tidbmonitors.yaml`.
 *
 * Run: npx tsx scripts/gen-monitor-crd.ts <dir holding pingcap.com_tidbmonitors.yaml>
 * (for example `git show release-1.6:manifests/crd/v1/pingcap.com_tidbmonitors.yaml > dir/pingcap.com_tidbmonitors.yaml`
 * in a clone of github.com/pingcap/tidb-operator, release-1.6 @ edf76fd64).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'yaml';

const dir = process.argv[2];
if (!dir) throw new Error('usage: gen-monitor-crd.ts <dir with pingcap.com_tidbmonitors.yaml>');
const crd = parse(readFileSync(join(dir, 'pingcap.com_tidbmonitors.yaml'), 'utf8')) as { metadata?: { name?: string } };
if (crd.metadata?.name !== 'tidbmonitors.pingcap.com') throw new Error('pingcap.com_tidbmonitors.yaml is not the tidbmonitors.pingcap.com CRD');
const out = join(import.meta.dirname, '..', 'lib', 'sim', 'crd', 'tidbmonitor-crd.json.gz');
writeFileSync(out, gzipSync(JSON.stringify(crd)));
console.log(`wrote ${out}`);
