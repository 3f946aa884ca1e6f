/**
 * The sweep's `KubeClusterLister` against the simulated API server: every TidbCluster across
 * pages, and a listing whose continue token expired between pages started over.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '../../lib/kube/client.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { KubeClusterLister } from '../../lib/wiring/lister.js';
import { type BareServer, startBareServer } from '../support/api-server.js';
import { tidbCluster } from './exporter-harness.js';

const TC_PATH = '/apis/pingcap.com/v1alpha1/tidbclusters';

let s: BareServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('the sweep lists every TidbCluster page by page', () => {
  it.each([
    { name: 'five clusters in pages of two', churnBeforeList: 0, keys: ['a', 'b', 'c', 'd', 'e'], lists: 3, restarts: 0 },
    { name: 'a continue token overrun by writes before page two: the listing starts over and sees them', churnBeforeList: 2, keys: ['a', 'b', 'c', 'd', 'e', 'late'], lists: 5, restarts: 1 },
  ])('$name', async ({ churnBeforeList, keys, lists, restarts }) => {
    // Prepare
    s = await startBareServer({ historyLimit: 10 });
    const store = s.store;
    for (const name of ['a', 'b', 'c', 'd', 'e']) store.create('TidbCluster', tidbCluster(name));
    let served = 0;
    s.server.requestHook = (method, path) => {
      if (method !== 'GET' || path !== TC_PATH) return undefined;
      if (++served !== churnBeforeList) return undefined;
      for (let i = 0; i < 6; i++) {
        store.create('ConfigMap', { metadata: { name: `tmp-${i}`, namespace: 'demo' }, data: {} });
        store.delete('ConfigMap', 'demo', `tmp-${i}`);
      }
      store.create('TidbCluster', tidbCluster('late'));
      return undefined;
    };
    const logger = new MemoryLogger();
    const lister = new KubeClusterLister(KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000 }), 'eks-test', logger, 2);

    // Act
    const listed = await lister.listClusterKeys();

    // Assess
    expect(listed).toEqual(keys.map((name) => `eks-test/${tidbCluster(name).metadata.namespace}/${name}`));
    expect(lister.tally.listed).toBe(keys.length);
    expect(served).toBe(lists);
    expect(logger.lines.filter((l) => l.message.startsWith('sweep list restarted'))).toHaveLength(restarts);
  });
});

describe('namespace-scoped, the sweep lists TidbClusters in each watched namespace only', () => {
  it('one paged LIST per watched namespace, none cluster-wide, and no key of another namespace', async () => {
    // Prepare
    s = await startBareServer({});
    for (const ns of ['ns-a', 'ns-x', 'ns-c']) s.store.create('Namespace', { metadata: { name: ns } });
    for (const [name, namespace] of [['a', 'ns-a'], ['b', 'ns-a'], ['c', 'ns-a'], ['x', 'ns-x'], ['c1', 'ns-c']] as const) s.store.create('TidbCluster', tidbCluster(name, namespace));
    const paths: string[] = [];
    s.server.requestHook = (method, path) => {
      if (method === 'GET') paths.push(path);
      return undefined;
    };
    const lister = new KubeClusterLister(KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000 }), 'eks-test', new MemoryLogger(), 2, ['ns-a', 'ns-c']);

    // Act
    const listed = await lister.listClusterKeys();

    // Assess
    expect(listed).toEqual(['eks-test/ns-a/a', 'eks-test/ns-a/b', 'eks-test/ns-a/c', 'eks-test/ns-c/c1']);
    expect(lister.tally.listed).toBe(4);
    const nsA = '/apis/pingcap.com/v1alpha1/namespaces/ns-a/tidbclusters';
    expect(paths).toEqual([nsA, nsA, '/apis/pingcap.com/v1alpha1/namespaces/ns-c/tidbclusters']);
  });
});
