/**
 * Generates the TidbInitializer CustomResourceDefinition every simulated world installs beside the
 * TidbCluster's (lib/sim/crd/tidbinitializer-crd.json.gz): `tidbinitializers.pingcap.com`
 * (pingcap.com/v1alpha1, short name `ti`), copied unchanged — schema, short name, and no printer
 * columns and no subresources, as v1 declares it — from TiDB Operator release-1.6's
 * `manifests/crd/v1/pingcap.com_tidbinitializers.yaml`.
 *
 * Run: npx tsx scripts/gen-tidbinitializer-crd.ts <that YAML file>
 * (for example `git show release-1.6:manifests/crd/v1/pingcap.com_tidbinitializers.yaml > ti.yaml`
 * in a clone of github.com/pingcap/tidb-operator).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'yaml';

const file = process.argv[2];
if (!file) throw new Error('usage: gen-tidbinitializer-crd.ts <pingcap.com_tidbinitializers.yaml>');
const crd = parse(readFileSync(file, 'utf8')) as { metadata?: { name?: string } };
if (crd.metadata?.name !== 'tidbinitializers.pingcap.com') throw new Error(`${file} is not the tidbinitializers.pingcap.com CRD`);
const out = join(import.meta.dirname, '..', 'lib', 'sim', 'crd', 'tidbinitializer-crd.json.gz');
writeFileSync(out, gzipSync(JSON.stringify(crd)));
console.log(`wrote ${out}`);
