/**
 * kubectl 1.34's `apply --server-side` against `tidb-reconciler sim serve`: TiDB Operator's published
 * CRD file installs (a client-side apply of it fails on its annotation size, as on a real cluster), a
 * changed TidbCluster applied again updates it, and a second field manager changing a field the
 * first owns is refused until `--force-conflicts`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

const ROOT = join(import.meta.dirname, '..', '..');
const OPERATOR_CRD = join(ROOT, 'test', 'fixtures', 'tidb-operator-tidbclusters-crd.yaml.gz');
let sim: SimServe;
let crdFile: string;

beforeAll(async () => {
  sim = await startSimServe();
  crdFile = join(mkdtempSync(join(tmpdir(), 'sim-ssa-')), 'operator-crd.yaml');
  writeFileSync(crdFile, gunzipSync(readFileSync(OPERATOR_CRD)));
}, 90000);

afterAll(async () => {
  await sim.stop();
}, 30000);

const tc = (replicas: number) => `apiVersion: pingcap.com/v1alpha1
kind: TidbCluster
metadata: {name: basic}
spec:
  version: v8.5.0
  pd: {baseImage: pingcap/pd, replicas: ${replicas}, requests: {storage: 1Gi}}
`;

describe('kubectl apply --server-side', () => {
  it("installs TiDB Operator's CRD file, over the CRD the world starts with and after it was deleted", async () => {
    // Act
    const applied = await sim.ok(['apply', '--server-side', '-f', crdFile]);
    // Assess
    expect(applied).toContain('customresourcedefinition.apiextensions.k8s.io/tidbclusters.pingcap.com serverside-applied');
    expect(await sim.ok(['get', 'crd', 'tidbclusters.pingcap.com'])).toMatch(/^NAME\s+CREATED AT\ntidbclusters\.pingcap\.com\s+\d{4}-/);
    expect(await sim.ok(['get', 'crd', 'tidbclusters.pingcap.com', '-o', 'jsonpath={.metadata.annotations}'])).toContain('controller-gen.kubebuilder.io/version');
    expect(await sim.ok(['get', 'crd', 'tidbclusters.pingcap.com', '-o', 'jsonpath={.metadata.managedFields[*].manager} {.metadata.managedFields[*].operation}'])).toBe('kubectl Apply');
    // Prepare (a fresh install)
    await sim.ok(['delete', 'crd', 'tidbclusters.pingcap.com']);
    // Act
    const created = await sim.ok(['apply', '--server-side', '-f', crdFile]);
    // Assess
    expect(created).toContain('tidbclusters.pingcap.com serverside-applied');
    expect(await sim.ok(['get', 'crd', 'tidbclusters.pingcap.com', '-o', 'name'])).toBe('customresourcedefinition.apiextensions.k8s.io/tidbclusters.pingcap.com\n');
  }, 120000);

  it('a changed TidbCluster applied again updates it; schema admission still applies', async () => {
    // Prepare
    expect(await sim.ok(['apply', '--server-side', '-f', '-'], tc(3))).toContain('tidbcluster.pingcap.com/basic serverside-applied');
    // Act
    await sim.ok(['apply', '--server-side', '-f', '-'], tc(4));
    const wrong = await sim.kubectl(['apply', '--server-side', '-f', '-'], { input: tc(3).replace('replicas: 3', 'replicas: three') });
    // Assess
    expect(await sim.ok(['get', 'tc', 'basic', '-o', 'jsonpath={.spec.pd.replicas}'])).toBe('4');
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('spec.pd.replicas: Invalid value: "string": spec.pd.replicas in body must be of type integer: "string"');
  }, 60000);

  it('another field manager changing an owned field conflicts until --force-conflicts', async () => {
    // Act
    const refused = await sim.kubectl(['apply', '--server-side', '--field-manager=ops', '-f', '-'], { input: tc(5) });
    const forced = await sim.ok(['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'], tc(5));
    // Assess
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.pd.replicas');
    expect(forced).toContain('tidbcluster.pingcap.com/basic serverside-applied');
    expect(await sim.ok(['get', 'tc', 'basic', '-o', 'jsonpath={.spec.pd.replicas} {.metadata.managedFields[*].manager}'])).toBe('5 kubectl ops');
  }, 60000);
});
