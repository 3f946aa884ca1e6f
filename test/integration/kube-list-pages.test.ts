/**
 * `KubeClient`'s LISTs go page by page against the simulated API server, which pages as the real
 * one: every object exactly once, the first page's resourceVersion kept, writes between pages not
 * seen, and an expired continue token restarting the list.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '../../lib/kube/client.js';
import { KUBE_LIST_PAGE_LIMIT } from '../../lib/kube/answer-size.js';
import { MAX_LIST_RESTARTS } from '../../lib/kube/pager.js';
import { TransientError } from '../../lib/platform/errors.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

const OWNED = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/managed-by': 'tidb-operator' };
const CM_PATH = '/api/v1/namespaces/demo/configmaps';

let s: BareServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A bare server with `count` owned ConfigMaps (written to the store directly: fast) and one foreign one. */
async function serverWith(count: number, historyLimit?: number): Promise<BareServer> {
  const server = await startBareServer(historyLimit === undefined ? {} : { historyLimit });
  for (let i = 0; i < count; i++) server.store.create('ConfigMap', { metadata: { name: `cm-${String(i).padStart(4, '0')}`, namespace: 'demo', labels: OWNED }, data: { v: 'old' } });
  server.store.create('ConfigMap', { metadata: { name: 'foreign', namespace: 'demo', labels: { other: 'x' } }, data: {} });
  return server;
}

/** Counts the LIST requests the server gets for ConfigMaps in `demo`; `onList(n)` runs before the n-th is served. */
function countLists(server: BareServer, onList: (n: number) => void = () => undefined): () => number {
  let lists = 0;
  server.server.requestHook = (method, path) => {
    if (method === 'GET' && path === CM_PATH) onList(++lists);
    return undefined;
  };
  return () => lists;
}

describe('KubeClient lists page by page', () => {
  it.each([
    { name: `more objects than one default page (${KUBE_LIST_PAGE_LIMIT})`, count: KUBE_LIST_PAGE_LIMIT + 7, pageLimit: undefined, pages: 2 },
    { name: 'a small page limit: many pages', count: 11, pageLimit: 3, pages: 4 },
  ])('$name: every selected object exactly once, in as many requests as pages', async ({ count, pageLimit, pages }) => {
    // Prepare
    s = await serverWith(count);
    const lists = countLists(s);
    const kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000, ...(pageLimit === undefined ? {} : { listPageLimit: pageLimit }) });

    // Act
    const list = await kube.listOwned('demo', 'ConfigMap', OWNED);

    // Assess
    const listed = list.items.map((o) => o.metadata.name);
    expect(listed).toHaveLength(count);
    expect(new Set(listed).size).toBe(count);
    expect(listed).not.toContain('foreign');
    expect(list.items.every((o) => o.kind === 'ConfigMap' && o.apiVersion === 'v1')).toBe(true);
    expect(lists()).toBe(pages);
  });

  it('writes between pages are not seen: the list is the snapshot at its first page, whose resourceVersion it keeps', async () => {
    // Prepare: after the first page, a new object, a deleted one and a changed one
    s = await serverWith(6);
    const store = s.store;
    const firstRv = String(store.currentResourceVersion());
    countLists(s, (n) => {
      if (n !== 2) return;
      store.create('ConfigMap', { metadata: { name: 'cm-0004a', namespace: 'demo', labels: OWNED }, data: {} });
      store.delete('ConfigMap', 'demo', 'cm-0005');
      const changed = store.mustGet('ConfigMap', 'demo', 'cm-0004');
      store.update('ConfigMap', { ...changed, data: { v: 'new' } });
    });
    const kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000, listPageLimit: 2 });

    // Act
    const list = await kube.listOwned('demo', 'ConfigMap', OWNED);

    // Assess
    expect(list.items.map((o) => o.metadata.name)).toEqual(['cm-0000', 'cm-0001', 'cm-0002', 'cm-0003', 'cm-0004', 'cm-0005']);
    expect(list.items.find((o) => o.metadata.name === 'cm-0004')?.data).toEqual({ v: 'old' });
    expect(list.resourceVersion).toBe(firstRv);
  });

  it('a continue token that expires between pages (410 Expired) restarts the list, which then sees the writes', async () => {
    // Prepare: a history of 20 events, overrun by 30 writes before the second page is served
    s = await serverWith(5, 20);
    const store = s.store;
    const lists = countLists(s, (n) => {
      if (n !== 2) return;
      for (let i = 0; i < 15; i++) {
        store.create('ConfigMap', { metadata: { name: `tmp-${i}`, namespace: 'demo' }, data: {} });
        store.delete('ConfigMap', 'demo', `tmp-${i}`);
      }
      store.create('ConfigMap', { metadata: { name: 'cm-late', namespace: 'demo', labels: OWNED }, data: {} });
    });
    const kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000, listPageLimit: 2 });

    // Act
    const list = await kube.listOwned('demo', 'ConfigMap', OWNED);

    // Assess: page 1, the expired page 2, then pages 1–3 of the new list (6 objects)
    expect(list.items.map((o) => o.metadata.name)).toEqual(['cm-0000', 'cm-0001', 'cm-0002', 'cm-0003', 'cm-0004', 'cm-late']);
    expect(lists()).toBe(5);
    expect(list.resourceVersion).toBe(String(store.currentResourceVersion()));
  });

  it('a token that keeps expiring fails the list as a TransientError after a bounded number of restarts', async () => {
    // Prepare: every continued page finds the history overrun
    s = await serverWith(5, 10);
    const store = s.store;
    let churn = 0;
    const lists = countLists(s, (n) => {
      if (n % 2 === 1) return;
      for (let i = 0; i < 12; i++) store.create('ConfigMap', { metadata: { name: `tmp-${churn++}`, namespace: 'demo' }, data: {} });
    });
    const kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000, listPageLimit: 2 });

    // Act
    const failure = await kube.listOwned('demo', 'ConfigMap', OWNED).catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toMatch(/^list ConfigMap in demo: 410 Expired: The provided continue parameter is too old/);
    expect(lists()).toBe(2 * (MAX_LIST_RESTARTS + 1));
  });
});
