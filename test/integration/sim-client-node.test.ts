import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  type V1ConfigMap,
  Watch,
  makeInformer,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { type BareServer, startBareServer } from '../support/api-server.js';

let s: BareServer;
beforeEach(async () => {
  s = await startBareServer({ token: 'client-token' });
});
afterEach(async () => {
  await s.close();
});

async function waitUntil(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('@kubernetes/client-node against the simulated API server', () => {
  it('creates, reads, updates, patches and deletes through the typed API', async () => {
    const core = s.kubeConfig.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'cfg' }, data: { k: 'v1' } } });
    expect(created.metadata?.uid).toBeDefined();
    const read = await core.readNamespacedConfigMap({ name: 'cfg', namespace: 'demo' });
    expect(read.data).toEqual({ k: 'v1' });
    const replaced = await core.replaceNamespacedConfigMap({ name: 'cfg', namespace: 'demo', body: { ...read, data: { k: 'v2' } } });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));
    const patched = await core.patchNamespacedConfigMap(
      { name: 'cfg', namespace: 'demo', body: { data: { extra: 'x' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.data).toEqual({ k: 'v2', extra: 'x' });
    await core.deleteNamespacedConfigMap({ name: 'cfg', namespace: 'demo' });
    const list = await core.listNamespacedConfigMap({ namespace: 'demo' });
    expect(list.items).toHaveLength(0);
  });

  it('a stale replace surfaces as an ApiException with code 409 and a Conflict Status body', async () => {
    const core = s.kubeConfig.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'cfg' }, data: { k: '1' } } });
    await core.replaceNamespacedConfigMap({ name: 'cfg', namespace: 'demo', body: { ...created, data: { k: '2' } } });
    const err = await core.replaceNamespacedConfigMap({ name: 'cfg', namespace: 'demo', body: { ...created, data: { k: '3' } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    const apiErr = err as ApiException<string>;
    expect(apiErr.code).toBe(409);
    expect(JSON.parse(apiErr.body).reason).toBe('Conflict');
  });

  it('reads a missing object as an ApiException with code 404', async () => {
    const core = s.kubeConfig.makeApiClient(CoreV1Api);
    const err = await core.readNamespacedPod({ name: 'nope', namespace: 'demo' }).catch((e: unknown) => e);
    expect((err as ApiException<string>).code).toBe(404);
  });

  it('serves TidbClusters and their status subresource through CustomObjectsApi', async () => {
    const custom = s.kubeConfig.makeApiClient(CustomObjectsApi);
    const base = { group: 'pingcap.com', version: 'v1alpha1', namespace: 'demo', plural: 'tidbclusters' };
    await custom.createNamespacedCustomObject({ ...base, body: { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic' }, spec: { pd: { replicas: 3 } } } });
    const tc = (await custom.getNamespacedCustomObject({ ...base, name: 'basic' })) as { metadata: { resourceVersion: string } };
    await custom.replaceNamespacedCustomObjectStatus({ ...base, name: 'basic', body: { ...tc, status: { pd: { phase: 'Normal' } } } });
    const after = (await custom.getNamespacedCustomObject({ ...base, name: 'basic' })) as { status: unknown; metadata: { generation: number } };
    expect(after.status).toEqual({ pd: { phase: 'Normal' } });
    expect(after.metadata.generation).toBe(1);
  });

  it('scales a Deployment through the scale subresource', async () => {
    const apps = s.kubeConfig.makeApiClient(AppsV1Api);
    const labels = { app: 'web' };
    await apps.createNamespacedDeployment({
      namespace: 'demo',
      body: { metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    const scale = await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'demo', body: { spec: { replicas: 3 } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    expect(scale.spec?.replicas).toBe(3);
    expect((await apps.readNamespacedDeployment({ name: 'web', namespace: 'demo' })).spec?.replicas).toBe(3);
  });

  it('Watch delivers ADDED, MODIFIED and DELETED in order', async () => {
    const core = s.kubeConfig.makeApiClient(CoreV1Api);
    const seen: string[] = [];
    const controller = await new Watch(s.kubeConfig).watch('/api/v1/namespaces/demo/configmaps', {}, (phase, obj: V1ConfigMap) => seen.push(`${phase}:${obj.metadata?.name}`), () => undefined);
    const created = await core.createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'w' }, data: { a: '1' } } });
    await core.replaceNamespacedConfigMap({ name: 'w', namespace: 'demo', body: { ...created, data: { a: '2' } } });
    await core.deleteNamespacedConfigMap({ name: 'w', namespace: 'demo' });
    await waitUntil(() => seen.length >= 3);
    controller.abort();
    expect(seen).toEqual(['ADDED:w', 'MODIFIED:w', 'DELETED:w']);
  });

  it('an informer lists, then keeps its cache in step with the watch', async () => {
    const core = s.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'a' } } });
    const informer = makeInformer<V1ConfigMap>(s.kubeConfig, '/api/v1/namespaces/demo/configmaps', () => core.listNamespacedConfigMap({ namespace: 'demo' }));
    const events: string[] = [];
    informer.on('add', (o) => events.push(`add:${o.metadata?.name}`));
    informer.on('delete', (o) => events.push(`delete:${o.metadata?.name}`));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'b' } } });
    await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'demo' });
    await waitUntil(() => events.length >= 3);
    await informer.stop();
    expect(events).toEqual(['add:a', 'add:b', 'delete:a']);
    expect(informer.list('demo').map((o) => o.metadata?.name)).toEqual(['b']);
  });
});
