/**
 * kubectl 1.34 against `tidb-reconciler sim serve` and the TidbCluster CRD it installs: apply is
 * validated against the CRD's schema (a wrong type is 422 naming the field, an unknown field is
 * refused as kubectl asks for Strict field validation), `kubectl explain` walks the schema, and
 * TiDB Operator's published CRD file installs the way it does on a real cluster — `create` or
 * `replace`, while a client-side `apply` fails on its last-applied annotation being too large.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Kubectl } from '../support/kubectl.js';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

const ROOT = join(import.meta.dirname, '..', '..');
const OPERATOR_CRD = join(ROOT, 'test', 'fixtures', 'tidb-operator-tidbclusters-crd.yaml.gz');
let sim: SimServe;
let kubectl: Kubectl;
let dir: string;

beforeAll(async () => {
  sim = await startSimServe('500ms');
  kubectl = sim.kubectl;
  dir = sim.dir;
  writeFileSync(join(dir, 'operator-crd.yaml'), gunzipSync(readFileSync(OPERATOR_CRD)));
}, 90000);

afterAll(async () => {
  await sim.stop();
}, 30000);

const tc = (pd: string) => `apiVersion: pingcap.com/v1alpha1
kind: TidbCluster
metadata: {name: basic}
spec:
  version: v8.5.0
  pd: {baseImage: pingcap/pd, ${pd}, requests: {storage: 1Gi}}
`;

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, { input, timeoutMs: 60000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

describe('kubectl and the TidbCluster CRD', () => {
  it('apply of replicas: three is refused 422 naming the field', async () => {
    const r = await kubectl(['apply', '-f', '-'], { input: tc('replicas: three') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('The TidbCluster "basic" is invalid: spec.pd.replicas: Invalid value: "string": spec.pd.replicas in body must be of type integer: "string"');
  }, 60000);

  it('apply of replica: 3 is refused as kubectl asks for Strict field validation', async () => {
    const r = await kubectl(['apply', '-f', '-'], { input: tc('replica: 3') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('TidbCluster in version "v1alpha1" cannot be handled as a TidbCluster: strict decoding error: unknown field "spec.pd.replica"');
  }, 60000);

  it('with --validate=warn the unknown field is pruned with a warning', async () => {
    const r = await kubectl(['apply', '--validate=warn', '-f', '-'], { input: tc('replicas: 3, replica: 3') });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Warning: unknown field "spec.pd.replica"');
    expect(await ok(['get', 'tc', 'basic', '-o', 'jsonpath={.spec.pd}'])).toBe('{"baseImage":"pingcap/pd","replicas":3,"requests":{"storage":"1Gi"}}');
  }, 60000);

  it('kubectl scale of a TidbCluster fails as its CRD has no scale subresource, and changes nothing', async () => {
    // As apiextensions-apiserver: /scale is served only for a CRD with subresources.scale.
    await ok(['apply', '-f', '-'], tc('replicas: 3'));
    const r = await kubectl(['scale', 'tc', 'basic', '--replicas=5'], { timeoutMs: 60000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the server could not find the requested resource');
    expect(await ok(['get', 'tc', 'basic', '-o', 'jsonpath={.spec.pd.replicas}'])).toBe('3');
  }, 60000);

  it('explain tc.spec.pd prints the PD spec from the CRD schema', async () => {
    const out = await ok(['explain', 'tc.spec.pd']);
    expect(out).toContain('KIND:       TidbCluster');
    expect(out).toContain('FIELD: pd <Object>');
    expect(out).toMatch(/replicas\t<integer> -required-\n\s+The desired ready replicas/);
    expect(await ok(['explain', 'tc.spec.pd.replicas'])).toContain('FIELD: replicas <integer>');
  }, 60000);

  it("TiDB Operator's CRD file: client-side apply is refused on its annotation size, replace and create install it", async () => {
    const file = join(dir, 'operator-crd.yaml');
    const applied = await kubectl(['apply', '-f', file], { timeoutMs: 60000 });
    expect(applied.code).not.toBe(0);
    expect(applied.stderr).toContain('The CustomResourceDefinition "tidbclusters.pingcap.com" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    expect(await ok(['replace', '-f', file])).toContain('customresourcedefinition.apiextensions.k8s.io/tidbclusters.pingcap.com replaced');
    expect(await ok(['get', 'crd', 'tidbclusters.pingcap.com', '-o', 'jsonpath={.metadata.annotations}'])).toContain('controller-gen.kubebuilder.io/version');
    const three = await kubectl(['apply', '-f', '-'], { input: tc('replicas: three') });
    expect(three.stderr).toContain('spec.pd.replicas: Invalid value: "string": spec.pd.replicas in body must be of type integer: "string"');
    // Deleting the CRD takes its custom resources with it, the one the warn test left included.
    await ok(['delete', 'crd', 'tidbclusters.pingcap.com']);
    // kubectl says so from fresh discovery, or from the server when its discovery cache still maps the name.
    expect((await kubectl(['get', 'tc'])).stderr).toMatch(/the server doesn't have a resource type "tc"|the server could not find the requested resource/);
    expect(await ok(['create', '-f', file])).toContain('customresourcedefinition.apiextensions.k8s.io/tidbclusters.pingcap.com created');
    expect(await ok(['apply', '-f', '-'], tc('replicas: 3'))).toContain('tidbcluster.pingcap.com/basic created');
  }, 120000);
});
