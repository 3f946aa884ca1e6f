/**
 * The simulated API server serves only the subresources a kind has, as kube-apiserver registers
 * them: a custom resource gets `/scale` only when its CRD declares `subresources.scale`
 * (apiextensions-apiserver's customresource_handler.go), and then reads and writes replicas at the
 * declared paths; any other `/{name}/{sub}` is 404 and changes nothing — so `kubectl scale` of a
 * TidbCluster (whose CRD has no scale subresource) fails as it does on a real cluster.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type BareServer, configMap, startBareServer } from '../support/api-server.js';

let s: BareServer;
beforeEach(async () => {
  s = await startBareServer();
});
afterEach(async () => {
  await s.close();
});

const MERGE = 'application/merge-patch+json';

function widgetCrd(plural: string, kind: string, scale: boolean): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { kind, plural },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, ...(scale ? { scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size', labelSelectorPath: '.status.selector' } } : {}) },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer' } } },
                status: { type: 'object', properties: { size: { type: 'integer' }, selector: { type: 'string' } } },
              },
            },
          },
        },
      ],
    },
  };
}

describe('subresources a kind does not have are 404', () => {
  it.each([
    { name: 'a custom resource without subresources.scale: /scale is 404 and the object keeps its size', scale: false, code: 404, sizeAfter: 1 },
    { name: 'a custom resource with subresources.scale: /scale writes the declared replicas path', scale: true, code: 200, sizeAfter: 4 },
  ])('$name', async ({ scale, code, sizeAfter }) => {
    // Prepare
    const plural = scale ? 'scalers' : 'widgets';
    expect((await s.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd(plural, scale ? 'Scaler' : 'Widget', scale))).status).toBe(201);
    const path = `/apis/example.com/v1/namespaces/demo/${plural}`;
    expect((await s.call('POST', path, { apiVersion: 'example.com/v1', kind: scale ? 'Scaler' : 'Widget', metadata: { name: 'w' }, spec: { size: 1 } })).status).toBe(201);

    // Act
    const answer = await s.call('PATCH', `${path}/w/scale`, { spec: { replicas: 4 } }, MERGE);

    // Assess
    expect(answer.status).toBe(code);
    expect((await s.call('GET', `${path}/w`)).body.spec.size).toBe(sizeAfter);
    if (scale) expect(answer.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 4 }, status: { replicas: 0 } });
  });

  it.each([
    { name: 'a TidbCluster has no scale subresource', path: '/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters/basic/scale' },
    { name: 'a ConfigMap has no status subresource', path: '/api/v1/namespaces/demo/configmaps/c/status' },
    { name: 'a Pod has no scale subresource', path: '/api/v1/namespaces/demo/pods/p/scale' },
  ])('$name', async ({ path }) => {
    // Prepare
    await s.call('POST', '/api/v1/namespaces/demo/configmaps', configMap('c'));

    // Act
    const answer = await s.call('GET', path);

    // Assess
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource' });
  });
});
