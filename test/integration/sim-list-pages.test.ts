/**
 * The simulated API server pages a LIST as the real one (etcd3 storage): every page of one list is
 * the snapshot at the first page's resourceVersion, `remainingItemCount` only without selectors, a
 * token older than the retained history is 410 Expired with an inconsistent token, and a token that
 * does not decode is 400.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { type BareServer, configMap, startBareServer } from '../support/api-server.js';

let s: BareServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const CM = '/api/v1/namespaces/demo/configmaps';
type Page = { status: number; body: any };
const names = (page: Page): string[] => page.body.items.map((o: any) => o.metadata.name);
const next = (page: Page, limit: number): string => `${CM}?limit=${limit}&continue=${String(page.body.metadata.continue)}`;

async function withConfigMaps(...list: string[]): Promise<BareServer> {
  const server = await startBareServer({ historyLimit: 50 });
  for (const n of list) await server.call('POST', CM, configMap(n, { v: 'old' }));
  return server;
}

describe('LIST pages are one consistent snapshot', () => {
  it('writes after the first page neither appear in, vanish from nor change the later pages', async () => {
    // Prepare
    s = await withConfigMaps('a', 'b', 'c', 'd', 'e');
    const first = await s.call('GET', `${CM}?limit=2`);
    const c = (await s.call('GET', `${CM}/c`)).body;

    // Act: a create after the first page's position, a delete and an update of later objects
    await s.call('POST', CM, configMap('bb'));
    await s.call('DELETE', `${CM}/d`);
    await s.call('PUT', `${CM}/c`, { ...c, data: { v: 'new' } });
    const second = await s.call('GET', next(first, 2));
    const third = await s.call('GET', next(second, 2));

    // Assess
    expect([names(first), names(second), names(third)]).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(second.body.items[0].data).toEqual({ v: 'old' });
    expect(new Set([first, second, third].map((p) => p.body.metadata.resourceVersion)).size).toBe(1);
    expect(third.body.metadata.continue).toBeUndefined();
    // A new list sees the writes.
    expect(names(await s.call('GET', CM))).toEqual(['a', 'b', 'bb', 'c', 'e']);
  });

  it.each([
    { name: 'without a selector, remainingItemCount counts what follows', query: '', remaining: 3 },
    { name: 'with a label selector, remainingItemCount is left unset', query: '&labelSelector=app%3Dx', remaining: undefined },
  ])('$name', async ({ query, remaining }) => {
    // Prepare
    s = await startBareServer();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await s.call('POST', CM, configMap(n, {}, { app: 'x' }));

    // Act
    const page = await s.call('GET', `${CM}?limit=2${query}`);

    // Assess
    expect(names(page)).toEqual(['a', 'b']);
    expect(page.body.metadata.remainingItemCount).toBe(remaining);
    expect(JSON.parse(Buffer.from(page.body.metadata.continue, 'base64url').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: Number(page.body.metadata.resourceVersion), start: 'b\u0000' });
  });

  it('a token older than the retained history is 410 Expired; its inconsistent token continues against the current state', async () => {
    // Prepare: a history of 50 events, then 60 writes after the first page
    s = await withConfigMaps('a', 'b', 'c', 'd');
    const first = await s.call('GET', `${CM}?limit=2`);
    for (let i = 0; i < 30; i++) {
      await s.call('POST', CM, configMap(`x${i}`));
      await s.call('DELETE', `${CM}/x${i}`);
    }
    await s.call('POST', CM, configMap('cc'));

    // Act
    const stale = await s.call('GET', next(first, 2));
    const resumed = await s.call('GET', `${CM}?limit=10&continue=${String(stale.body.metadata.continue)}`);

    // Assess
    expect(stale.status).toBe(410);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(stale.body.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    expect(names(resumed)).toEqual(['c', 'cc', 'd']);
  });

  it.each([
    { name: 'a token that is not base64url', query: 'continue=%25%25', message: 'invalid continue token: continue key is not valid: illegal base64 data' },
    { name: 'a token of another version', query: `continue=${Buffer.from('{"v":"x","rv":1,"start":"a"}').toString('base64url')}`, message: 'invalid continue token: continue key is not valid: server does not recognize this encoded version x' },
    { name: 'a token with resourceVersion 0', query: `continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}').toString('base64url')}`, message: 'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)' },
    { name: 'a token reaching above the list', query: `continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":2,"start":"../x"}').toString('base64url')}`, message: 'invalid continue token: continue key is not valid: ../x' },
    { name: 'a resourceVersion with a continue token', query: `resourceVersion=5&continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":2,"start":"a"}').toString('base64url')}`, message: 'specifying resource version is not allowed when using continue' },
  ])('$name is 400 BadRequest', async ({ query, message }) => {
    // Prepare
    s = await withConfigMaps('a', 'b');

    // Act
    const res = await s.call('GET', `${CM}?limit=1&${query}`);

    // Assess
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message });
  });
});
