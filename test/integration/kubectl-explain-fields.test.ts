/**
 * kubectl 1.34 against a running `tidb-reconciler sim serve`, reading the built-in kinds' OpenAPI
 * schemas: `kubectl explain` prints their field docs, and `kubectl apply`/`patch` of a built-in kind
 * is read through its type as a real server reads it (unknown fields, wrong types).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimServe, startSimServe } from '../support/sim-serve.js';

let sim: SimServe;

beforeAll(async () => {
  sim = await startSimServe();
  await sim.ok(['create', 'namespace', 'gen']);
}, 90000);

afterAll(async () => {
  await sim.stop();
}, 30000);

const ok = (args: string[]): Promise<string> => sim.ok(args);
const kubectl: SimServe['kubectl'] = (args, opts) => sim.kubectl(args, opts);

async function readBack(args: string[]): Promise<Record<string, unknown>> {
  return JSON.parse(await ok(['get', ...args, '-o', 'json'])) as Record<string, unknown>;
}

const TYPO_DEPLOYMENT = (spec: string): string => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: typo, namespace: gen}
spec:
  ${spec}
  selector: {matchLabels: {app: typo}}
  template:
    metadata: {labels: {app: typo}}
    spec: {containers: [{name: web, image: "nginx:1"}]}
`;

describe('kubectl apply of a built-in kind is read through its Go type', () => {
  it.each([
    { name: 'an unknown field is refused (kubectl asks for Strict)', spec: 'replica: 3', error: 'strict decoding error: unknown field "spec.replica"' },
    { name: 'a string for an integer is refused', spec: 'replicas: three', error: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' },
  ])('$name', async ({ spec, error }) => {
    // Act
    const r = await kubectl(['apply', '-f', '-'], { input: TYPO_DEPLOYMENT(spec) });
    // Assess
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`Deployment in version "v1" cannot be handled as a Deployment: ${error}`);
  });

  it('with --validate=false the unknown field is dropped, never stored', async () => {
    // Act
    const r = await kubectl(['apply', '--validate=false', '-f', '-'], { input: TYPO_DEPLOYMENT('replica: 3') });
    // Assess
    expect(r.code).toBe(0);
    const spec = (await readBack(['deployment', 'typo', '-n', 'gen'])).spec as Record<string, unknown>;
    expect(spec.replica).toBeUndefined();
    expect(spec.replicas).toBe(1);
  });

  it('a patch adding an unknown field (kubectl patch asks for no validation) keeps the rest and drops the field', async () => {
    // Act
    await ok(['patch', 'deployment', 'typo', '-n', 'gen', '-p', '{"spec":{"replica":2,"minReadySeconds":5}}']);
    // Assess
    const spec = (await readBack(['deployment', 'typo', '-n', 'gen'])).spec as Record<string, unknown>;
    expect(spec.replica).toBeUndefined();
    expect(spec.minReadySeconds).toBe(5);
  });

  it('a patch with a wrong type is refused', async () => {
    // Act
    const r = await kubectl(['patch', 'deployment', 'typo', '-n', 'gen', '-p', '{"spec":{"replicas":"two"}}']);
    // Assess
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
  });
});

describe('kubectl explain of built-in kinds', () => {
  it.each([
    { name: 'pods.spec.containers', args: ['pods.spec.containers'], has: ['KIND:       Pod', 'FIELD: containers <[]Container>', 'image\t<string>', 'List of containers belonging to the pod.'] },
    { name: 'pods.spec.containers.resources (a map of Quantity)', args: ['pods.spec.containers.resources'], has: ['FIELD: resources <ResourceRequirements>', 'limits\t<map[string]Quantity>'] },
    { name: 'sts.spec.updateStrategy', args: ['sts.spec.updateStrategy'], has: ['GROUP:      apps', 'KIND:       StatefulSet', 'rollingUpdate\t<RollingUpdateStatefulSetStrategy>', 'type\t<string>'] },
    { name: 'svc', args: ['svc'], has: ['KIND:       Service', 'Service is a named abstraction of software service', 'spec\t<ServiceSpec>'] },
    { name: 'pvc.spec', args: ['pvc.spec'], has: ['FIELD: spec <PersistentVolumeClaimSpec>', 'storageClassName\t<string>', 'accessModes\t<[]string>'] },
    { name: 'rolebinding.roleRef', args: ['rolebinding.roleRef'], has: ['GROUP:      rbac.authorization.k8s.io', 'FIELD: roleRef <RoleRef>', 'apiGroup\t<string> -required-'] },
    { name: 'deployments --recursive', args: ['deployments', '--recursive'], has: ['progressDeadlineSeconds\t<integer>', 'maxSurge\t<IntOrString>', 'resources\t<ResourceRequirements>'] },
  ])('explain $name prints its field docs', async ({ args, has }) => {
    // Act
    const out = await ok(['explain', ...args]);
    // Assess
    for (const text of has) expect(out).toContain(text);
  });

  it('explain of a field that does not exist says so', async () => {
    // Act
    const r = await kubectl(['explain', 'deploy.spec.nosuch']);
    // Assess
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('field "nosuch" does not exist');
  });
});
