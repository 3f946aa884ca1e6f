import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type BareServer, configMap, startBareServer } from '../support/api-server.js';

let s: BareServer;
beforeEach(async () => {
  s = await startBareServer();
});
afterEach(async () => {
  await s.close();
});

const CM = '/api/v1/namespaces/demo/configmaps';

/** Opens a watch and collects its events until `count` arrived or the stream ended. */
async function watchEvents(path: string, count: number, during?: () => Promise<void>): Promise<{ type: string; object: any }[]> {
  const ctrl = new AbortController();
  const res = await fetch(s.url + path, { signal: ctrl.signal });
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  const events: { type: string; object: any }[] = [];
  let buf = '';
  const pending = during?.();
  const deadline = Date.now() + 5000;
  while (events.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += Buffer.from(value).toString('utf8');
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      events.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
      nl = buf.indexOf('\n');
    }
  }
  await pending;
  ctrl.abort();
  return events;
}

describe('create, get and optimistic concurrency', () => {
  it('a created object gets uid, resourceVersion and creationTimestamp', async () => {
    const res = await s.call('POST', CM, configMap('a'));
    expect(res.status).toBe(201);
    expect(res.body.metadata).toMatchObject({ name: 'a', namespace: 'demo' });
    expect(res.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(res.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await s.call('GET', `${CM}/a`)).body.data).toEqual({ a: '1' });
  });

  it('creating an existing name is 409 AlreadyExists with a Status body', async () => {
    await s.call('POST', CM, configMap('a'));
    const res = await s.call('POST', CM, configMap('a'));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409 });
  });

  it('an update with a stale resourceVersion is 409 Conflict and changes nothing', async () => {
    const created = (await s.call('POST', CM, configMap('a'))).body;
    const first = await s.call('PUT', `${CM}/a`, { ...created, data: { a: '2' } });
    expect(first.status).toBe(200);
    const stale = await s.call('PUT', `${CM}/a`, { ...created, data: { a: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect((await s.call('GET', `${CM}/a`)).body.data).toEqual({ a: '2' });
  });

  it('an update that changes nothing keeps the resourceVersion', async () => {
    const created = (await s.call('POST', CM, configMap('a'))).body;
    const same = await s.call('PUT', `${CM}/a`, created);
    expect(same.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('a spec change bumps generation, a status write does not, and neither overwrites the other', async () => {
    const path = '/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters';
    const tc = { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic' }, spec: { pd: { replicas: 3 } }, status: { ignored: true } };
    const created = (await s.call('POST', path, tc)).body;
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toBeUndefined();
    const withStatus = (await s.call('PUT', `${path}/basic/status`, { ...created, spec: { pd: { replicas: 9 } }, status: { pd: { phase: 'Normal' } } })).body;
    expect(withStatus.metadata.generation).toBe(1);
    expect(withStatus.spec.pd.replicas).toBe(3);
    const scaled = (await s.call('PUT', `${path}/basic`, { ...withStatus, spec: { pd: { replicas: 5 } }, status: {} })).body;
    expect(scaled.metadata.generation).toBe(2);
    expect(scaled.status).toEqual({ pd: { phase: 'Normal' } });
  });
});

describe('list', () => {
  it.each([
    { name: 'equality', selector: 'app=pd', want: ['a', 'b'] },
    { name: 'inequality', selector: 'app!=pd', want: ['c', 'd'] },
    { name: 'set-based in', selector: 'app in (pd,tikv)', want: ['a', 'b', 'c'] },
    { name: 'set-based notin', selector: 'app notin (pd)', want: ['c', 'd'] },
    { name: 'exists', selector: 'ordinal', want: ['a'] },
    { name: 'does not exist', selector: '!ordinal', want: ['b', 'c', 'd'] },
  ])('label selector: $name', async ({ selector, want }) => {
    await s.call('POST', CM, configMap('a', {}, { app: 'pd', ordinal: '0' }));
    await s.call('POST', CM, configMap('b', {}, { app: 'pd' }));
    await s.call('POST', CM, configMap('c', {}, { app: 'tikv' }));
    await s.call('POST', CM, configMap('d', {}, {}));
    const res = await s.call('GET', `${CM}?labelSelector=${encodeURIComponent(selector)}`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((o: any) => o.metadata.name)).toEqual(want);
  });

  it('a malformed label selector is 400', async () => {
    const res = await s.call('GET', `${CM}?labelSelector=${encodeURIComponent('app in (pd')}`);
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('Status');
  });

  it('a field selector on metadata.name selects one object; an unsupported field is 400', async () => {
    await s.call('POST', CM, configMap('a'));
    await s.call('POST', CM, configMap('b'));
    expect((await s.call('GET', `${CM}?fieldSelector=metadata.name%3Db`)).body.items.map((o: any) => o.metadata.name)).toEqual(['b']);
    const bad = await s.call('GET', `${CM}?fieldSelector=spec.foo%3Db`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('field label not supported');
  });

  it('limit and continue page through every object exactly once', async () => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) await s.call('POST', CM, configMap(n));
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const res = await s.call('GET', `${CM}?limit=2${token ? `&continue=${token}` : ''}`);
      seen.push(...res.body.items.map((o: any) => o.metadata.name));
      token = res.body.metadata.continue ?? '';
      pages++;
    } while (token);
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pages).toBe(3);
  });
});

describe('watch', () => {
  it('resumes from a resourceVersion with the changes after it', async () => {
    const a = (await s.call('POST', CM, configMap('a'))).body;
    await s.call('POST', CM, configMap('b'));
    await s.call('DELETE', `${CM}/a`);
    const events = await watchEvents(`${CM}?watch=true&resourceVersion=${a.metadata.resourceVersion}`, 2);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'b'],
      ['DELETED', 'a'],
    ]);
  });

  it('streams live changes after the initial state', async () => {
    await s.call('POST', CM, configMap('a'));
    const events = await watchEvents(`${CM}?watch=true`, 3, async () => {
      await new Promise((r) => setTimeout(r, 50));
      const cur = (await s.call('GET', `${CM}/a`)).body;
      await s.call('PUT', `${CM}/a`, { ...cur, data: { a: '2' } });
      await s.call('DELETE', `${CM}/a`);
    });
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('a version older than the retained history is 410 Gone', async () => {
    const small = await startBareServer({ historyLimit: 3 });
    try {
      for (const n of ['a', 'b', 'c', 'd', 'e']) await small.call('POST', CM, configMap(n));
      const res = await fetch(`${small.url}${CM}?watch=true&resourceVersion=1`);
      const line = (await res.text()).trim();
      const ev = JSON.parse(line);
      expect(ev.type).toBe('ERROR');
      expect(ev.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    } finally {
      await small.close();
    }
  });

  it('objects leaving a label selector arrive as DELETED', async () => {
    await s.call('POST', CM, configMap('a', {}, { app: 'pd' }));
    const events = await watchEvents(`${CM}?watch=true&labelSelector=app%3Dpd`, 2, async () => {
      await new Promise((r) => setTimeout(r, 50));
      const cur = (await s.call('GET', `${CM}/a`)).body;
      await s.call('PUT', `${CM}/a`, { ...cur, metadata: { ...cur.metadata, labels: { app: 'tikv' } } });
    });
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
  });

  it('timeoutSeconds ends the stream and bookmarks carry the current resourceVersion', async () => {
    await s.call('POST', CM, configMap('a'));
    const events = await watchEvents(`${CM}?watch=true&allowWatchBookmarks=true&timeoutSeconds=3`, 10, async () => {
      await new Promise((r) => setTimeout(r, 50));
      await s.clock.advance(3000);
    });
    expect(events[0]?.type).toBe('ADDED');
    const bookmarks = events.filter((e) => e.type === 'BOOKMARK');
    expect(bookmarks.length).toBeGreaterThanOrEqual(2);
    expect(bookmarks[0]?.object.metadata.resourceVersion).toBe(String(s.store.currentResourceVersion()));
  });
});

describe('patch', () => {
  it('a JSON merge patch with null removes the key', async () => {
    await s.call('POST', CM, configMap('a', { a: '1', b: '2' }));
    const res = await s.call('PATCH', `${CM}/a`, { data: { a: null, c: '3' } }, 'application/merge-patch+json');
    expect(res.body.data).toEqual({ b: '2', c: '3' });
  });

  it('a JSON patch whose test fails is 422 and changes nothing', async () => {
    await s.call('POST', CM, configMap('a'));
    const ops = [
      { op: 'test', path: '/data/a', value: 'nope' },
      { op: 'replace', path: '/data/a', value: 'x' },
    ];
    const res = await s.call('PATCH', `${CM}/a`, ops, 'application/json-patch+json');
    expect(res.status).toBe(422);
    expect((await s.call('GET', `${CM}/a`)).body.data).toEqual({ a: '1' });
  });

  it('a strategic merge patch changes one container and keeps the other', async () => {
    const dep = {
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } },
      },
    };
    await s.call('POST', '/apis/apps/v1/namespaces/demo/deployments', dep);
    const patch = { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } };
    const res = await s.call('PATCH', '/apis/apps/v1/namespaces/demo/deployments/web', patch, 'application/strategic-merge-patch+json');
    expect(res.status).toBe(200);
    expect(res.body.spec.template.spec.containers).toMatchObject([
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:2' },
    ]);
    expect(res.body.metadata.generation).toBe(2);
  });

  it('an unsupported patch content type is 415', async () => {
    await s.call('POST', CM, configMap('a'));
    const res = await s.call('PATCH', `${CM}/a`, { data: {} }, 'text/plain');
    expect(res.status).toBe(415);
  });
});

describe('delete, finalizers and garbage collection', () => {
  it('an object with a finalizer stays with a deletionTimestamp until the finalizer is removed', async () => {
    await s.call('POST', CM, { ...configMap('a'), metadata: { name: 'a', finalizers: ['example.com/hold'] } });
    const del = await s.call('DELETE', `${CM}/a`);
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    const held = (await s.call('GET', `${CM}/a`)).body;
    expect(held.metadata.finalizers).toEqual(['example.com/hold']);
    await s.call('PUT', `${CM}/a`, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect((await s.call('GET', `${CM}/a`)).status).toBe(404);
  });

  async function ownerAndDependent(): Promise<void> {
    const owner = (await s.call('POST', CM, configMap('owner'))).body;
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
    await s.call('POST', CM, { ...configMap('dep'), metadata: { name: 'dep', ownerReferences: [ref] } });
  }

  it.each([
    { name: 'background deletes the dependent after the owner', policy: 'Background', dependentRemains: false, ownerRefsLeft: 0 },
    { name: 'orphan keeps the dependent and drops its owner reference', policy: 'Orphan', dependentRemains: true, ownerRefsLeft: 0 },
    { name: 'foreground deletes the dependent, then the owner', policy: 'Foreground', dependentRemains: false, ownerRefsLeft: 0 },
  ])('propagation $name', async ({ policy, dependentRemains }) => {
    await ownerAndDependent();
    await s.call('DELETE', `${CM}/owner?propagationPolicy=${policy}`);
    await s.clock.advance(10);
    await s.clock.advance(10);
    const dep = await s.call('GET', `${CM}/dep`);
    expect(dep.status).toBe(dependentRemains ? 200 : 404);
    if (dependentRemains) expect(dep.body.metadata.ownerReferences).toBeUndefined();
    expect((await s.call('GET', `${CM}/owner`)).status).toBe(404);
  });

  it('deleting a namespace removes its content, then the namespace', async () => {
    await s.call('POST', CM, configMap('a'));
    await s.call('DELETE', '/api/v1/namespaces/demo');
    expect((await s.call('GET', '/api/v1/namespaces/demo')).body.status.phase).toBe('Terminating');
    await s.clock.advance(10);
    await s.clock.advance(10);
    expect((await s.call('GET', `${CM}/a`)).status).toBe(404);
    expect((await s.call('GET', '/api/v1/namespaces/demo')).status).toBe(404);
  });
});

describe('write records', () => {
  it('every write through the API is reported with its verb, the stored object or the error', async () => {
    const seen: { verb: string; name: string | undefined; rv?: string; error?: string }[] = [];
    s.server.onWrite = (w) => seen.push({ verb: w.verb, name: w.name, rv: (w.object as any)?.metadata?.resourceVersion, error: w.error });
    const created = (await s.call('POST', CM, configMap('a'))).body;
    await s.call('PUT', `${CM}/a`, { ...created, data: { a: '2' } });
    await s.call('PUT', `${CM}/a`, { ...created, data: { a: '3' } });
    await s.call('DELETE', `${CM}/a`);
    await s.call('GET', `${CM}/a`);
    expect(seen.map((w) => [w.verb, w.name, w.error !== undefined])).toEqual([
      ['create', 'a', false],
      ['update', 'a', false],
      ['update', 'a', true],
      ['delete', 'a', false],
    ]);
    expect(seen[0]?.rv).toBe(created.metadata.resourceVersion);
    expect(seen[3]?.rv).toBe(seen[1]?.rv);
  });
});

describe('defaulting', () => {
  it('a StatefulSet gets the API defaults a reconciler will read back', async () => {
    const sts = {
      metadata: { name: 'db' },
      spec: { serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'pingcap/pd:v8.5.0', ports: [{ containerPort: 2379 }] }] } } },
    };
    const res = await s.call('POST', '/apis/apps/v1/namespaces/demo/statefulsets', sts);
    expect(res.body.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      template: { spec: { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, containers: [{ imagePullPolicy: 'IfNotPresent', ports: [{ protocol: 'TCP' }] }] } },
    });
  });

  it('a Service gets a cluster IP at create unless it is headless', async () => {
    const svc = (name: string, clusterIP?: string) => ({ metadata: { name }, spec: { selector: { a: 'b' }, ports: [{ port: 80 }], ...(clusterIP ? { clusterIP } : {}) } });
    const normal = await s.call('POST', '/api/v1/namespaces/demo/services', svc('normal'));
    const headless = await s.call('POST', '/api/v1/namespaces/demo/services', svc('headless', 'None'));
    expect(normal.body.spec.clusterIP).toMatch(/^10\.100\.\d+\.\d+$/);
    expect(normal.body.spec.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    expect(headless.body.spec.clusterIP).toBe('None');
  });
});

describe('bad input gets the Status the API server sends', () => {
  it.each([
    { name: 'malformed JSON body', method: 'POST', path: CM, body: '{"metadata":', code: 400, reason: 'BadRequest' },
    { name: 'unknown resource', method: 'GET', path: '/api/v1/namespaces/demo/widgets', body: undefined, code: 404, reason: 'NotFound' },
    { name: 'missing object', method: 'GET', path: `${CM}/nope`, body: undefined, code: 404, reason: 'NotFound' },
    { name: 'invalid name', method: 'POST', path: CM, body: configMap('DB_1'), code: 422, reason: 'Invalid' },
    { name: 'missing name', method: 'POST', path: CM, body: { metadata: {} }, code: 422, reason: 'Invalid' },
    { name: 'namespace that does not exist', method: 'POST', path: '/api/v1/namespaces/ghost/configmaps', body: configMap('a'), code: 404, reason: 'NotFound' },
    { name: 'body that is not an object', method: 'POST', path: CM, body: '[1,2]', code: 400, reason: 'BadRequest' },
  ])('$name → $code', async ({ method, path, body, code, reason }) => {
    const res = await s.call(method, path, body);
    expect(res.status).toBe(code);
    expect(res.body).toMatchObject({ kind: 'Status', code, reason });
  });

  it('a request without the bearer token is 401 when the server requires one', async () => {
    const secured = await startBareServer({ token: 'sekret' });
    try {
      const res = await fetch(`${secured.url}/api/v1/namespaces`);
      expect(res.status).toBe(401);
      expect((await secured.call('GET', '/api/v1/namespaces')).status).toBe(200);
    } finally {
      await secured.close();
    }
  });
});
