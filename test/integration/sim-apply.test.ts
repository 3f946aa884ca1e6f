/**
 * Server-side apply over HTTP (`PATCH` with `application/apply-patch+yaml`), as kubectl sends it:
 * create when absent, merge and ownership when present, conflicts, dryRun, and the body checks.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type BareServer, startBareServer } from '../support/api-server.js';

let s: BareServer;
beforeEach(async () => {
  s = await startBareServer();
});
afterEach(async () => {
  await s.close();
});

const APPLY = 'application/apply-patch+yaml';
const CM = '/api/v1/namespaces/demo/configmaps';
const DEP = '/apis/apps/v1/namespaces/demo/deployments';
const yamlDeployment = (image: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: ${image}
`;

describe('server-side apply', () => {
  it('creates the object when absent (201, defaults applied, the manager recorded)', async () => {
    // Act
    const res = await s.call('PATCH', `${DEP}/web?fieldManager=kubectl&fieldValidation=Strict`, yamlDeployment('web:1', 2), APPLY);
    // Assess
    expect(res.status).toBe(201);
    expect(res.body.spec.strategy.type).toBe('RollingUpdate');
    expect(res.body.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' })]);
    expect((await s.call('GET', `${DEP}/web`)).body.spec.replicas).toBe(2);
  });

  it('a second apply updates the object; another manager changing its field is 409 until forced', async () => {
    // Prepare
    await s.call('PATCH', `${DEP}/web?fieldManager=kubectl`, yamlDeployment('web:1', 2), APPLY);
    // Act
    const updated = await s.call('PATCH', `${DEP}/web?fieldManager=kubectl`, yamlDeployment('web:2', 2), APPLY);
    const other = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 5 } });
    const conflict = await s.call('PATCH', `${DEP}/web?fieldManager=hpa`, other, APPLY);
    const forced = await s.call('PATCH', `${DEP}/web?fieldManager=hpa&force=true`, other, APPLY);
    // Assess
    expect(updated.status).toBe(200);
    expect(updated.body.spec.template.spec.containers[0].image).toBe('web:2');
    expect(updated.body.metadata.generation).toBe(2);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ kind: 'Status', reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas' });
    expect(forced.status).toBe(200);
    expect(forced.body.spec.replicas).toBe(5);
    expect(forced.body.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(['kubectl', 'hpa']);
  });

  it('the same configuration applied again writes nothing (same resourceVersion)', async () => {
    // Prepare
    const first = await s.call('PATCH', `${DEP}/web?fieldManager=kubectl`, yamlDeployment('web:1', 2), APPLY);
    await s.clock.advance(5000);
    // Act
    const again = await s.call('PATCH', `${DEP}/web?fieldManager=kubectl`, yamlDeployment('web:1', 2), APPLY);
    // Assess
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });

  it('dryRun answers the applied object and stores nothing', async () => {
    // Act
    const res = await s.call('PATCH', `${CM}/a?fieldManager=kubectl&dryRun=All`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n', APPLY);
    // Assess
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ k: 'v' });
    expect((await s.call('GET', `${CM}/a`)).status).toBe(404);
  });

  it.each([
    { name: 'Strict refuses an unknown field', validation: 'Strict', code: 400, replicas: undefined },
    { name: 'Warn prunes it; the manager does not own it', validation: 'Warn', code: 201, replicas: 3 },
  ])('field validation on a custom resource: $name', async ({ validation, code, replicas }) => {
    // Prepare
    const tc = 'apiVersion: pingcap.com/v1alpha1\nkind: TidbCluster\nmetadata: {name: basic}\nspec: {version: v8.5.0, pd: {baseImage: pingcap/pd, replicas: 3, replica: 3, requests: {storage: 1Gi}}}\n';
    // Act
    const res = await s.call('PATCH', `/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters/basic?fieldManager=kubectl&fieldValidation=${validation}`, tc, APPLY);
    // Assess
    expect(res.status).toBe(code);
    if (code === 400) {
      expect(res.body.message).toContain('unknown field "spec.pd.replica"');
    } else {
      expect(res.body.spec.pd).toEqual({ baseImage: 'pingcap/pd', replicas, requests: { storage: '1Gi' } });
      expect(res.body.metadata.managedFields[0].fieldsV1['f:spec']['f:pd']).toEqual({ 'f:baseImage': {}, 'f:replicas': {}, 'f:requests': { 'f:storage': {} } });
    }
  });

  it.each([
    { name: 'no fieldManager is 422', query: '', body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n', code: 422, message: 'fieldManager: Required value: is required for apply patch' },
    { name: 'a different kind is 400', query: '?fieldManager=k', body: 'apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n', code: 400, message: 'invalid object type: /v1, Kind=Secret' },
    { name: 'a different apiVersion is 400', query: '?fieldManager=k', body: 'apiVersion: apps/v1\nkind: ConfigMap\nmetadata: {name: a}\n', code: 400, message: 'invalid object type: apps/v1, Kind=ConfigMap' },
    { name: 'a different name is 400', query: '?fieldManager=k', body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n', code: 400, message: 'the name of the object (b) does not match the name on the URL (a)' },
    { name: 'a body that is not YAML is 400', query: '?fieldManager=k', body: 'a: [', code: 400, message: 'error decoding YAML' },
  ])('$name', async ({ query, body, code, message }) => {
    // Act
    const res = await s.call('PATCH', `${CM}/a${query}`, body, APPLY);
    // Assess
    expect(res.status).toBe(code);
    expect(res.body.message).toContain(message);
  });
});
