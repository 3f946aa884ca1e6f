/**
 * CustomResourceDefinitions over the simulated API server's HTTP API: a CRD is served the moment it
 * is stored (discovery, OpenAPI v3, its custom resources), its schema prunes, defaults and validates
 * what clients write — unknown fields refused under `fieldValidation=Strict`, warned about otherwise —
 * and deleting it removes its custom resources before it goes.
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

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/demo/widgets';
const TCS = '/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters';

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets', shortNames: ['wg'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer', default: 1 }, color: { type: 'string', enum: ['red', 'blue'] } } },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

const widget = (spec: Record<string, unknown>, name = 'w') => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

/** A raw request, for the headers `call` does not return. */
async function raw(method: string, path: string, body: unknown): Promise<{ status: number; body: any; warnings: string | null }> {
  const res = await fetch(s.url + path, { method, headers: { 'Content-Type': 'application/json', Authorization: 'Bearer any' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), warnings: res.headers.get('warning') };
}

describe('a CRD is served once stored', () => {
  it('appears in discovery and OpenAPI, with its status', async () => {
    expect((await s.call('GET', WIDGETS)).status).toBe(404);
    const created = await s.call('POST', CRDS, WIDGET_CRD);
    expect(created.status).toBe(201);
    expect(created.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(created.body.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual(['NamesAccepted=True', 'Established=True']);
    expect(created.body.status.storedVersions).toEqual(['v1']);
    const groups = (await s.call('GET', '/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).toEqual(expect.arrayContaining(['example.com', 'pingcap.com', 'apiextensions.k8s.io']));
    const list = (await s.call('GET', '/apis/example.com/v1')).body;
    expect(list.resources.map((r: { name: string; kind: string }) => `${r.name}:${r.kind}`)).toEqual(['widgets:Widget', 'widgets/status:Widget']);
    expect((await s.call('GET', '/openapi/v3')).body.paths['apis/example.com/v1']).toBeDefined();
    const doc = (await s.call('GET', '/openapi/v3/apis/example.com/v1')).body;
    expect(doc.components.schemas['com.example.v1.Widget']).toMatchObject({ 'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }], properties: { spec: { properties: { size: { type: 'integer' } } } } });
    expect((await s.call('POST', WIDGETS, widget({ size: 2 }))).status).toBe(201);
  });

  it('refuses a CRD whose name is not plural.group, in the server words', async () => {
    const r = await s.call('POST', CRDS, { ...WIDGET_CRD, metadata: { name: 'widget.example.com' } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('CustomResourceDefinition.apiextensions.k8s.io "widget.example.com" is invalid: metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group');
  });
});

describe('custom resources are pruned, defaulted and validated', () => {
  beforeEach(async () => {
    expect((await s.call('POST', CRDS, WIDGET_CRD)).status).toBe(201);
  });

  it('a wrong type is 422 naming the field', async () => {
    const r = await s.call('POST', WIDGETS, widget({ size: 'big' }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Widget.example.com "w" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"');
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.size', message: 'Invalid value: "string": spec.size in body must be of type integer: "string"' }]);
  });

  it('an enum violation is 422 listing the supported values', async () => {
    const r = await s.call('POST', WIDGETS, widget({ color: 'green' }));
    expect(r.body.message).toBe('Widget.example.com "w" is invalid: spec.color: Unsupported value: "green": supported values: "red", "blue"');
  });

  it.each([
    { name: 'create', method: 'POST', path: WIDGETS, want: 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape"' },
    { name: 'replace', method: 'PUT', path: `${WIDGETS}/w`, want: 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape"' },
  ])('an unknown field under Strict is refused on $name', async ({ method, path, want }) => {
    const rv = method === 'PUT' ? (await s.call('POST', WIDGETS, widget({}))).body.metadata.resourceVersion : undefined;
    const body = widget({ shape: 'round' });
    const r = await s.call(method, `${path}?fieldValidation=Strict`, { ...body, metadata: { ...body.metadata, resourceVersion: rv } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(want);
  });

  it('an unknown field in a patch under Strict is refused', async () => {
    await s.call('POST', WIDGETS, widget({}));
    const r = await s.call('PATCH', `${WIDGETS}/w?fieldValidation=Strict`, { spec: { shape: 'round' } }, 'application/merge-patch+json');
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('strict decoding error: unknown field "spec.shape"');
  });

  it('an unknown field is pruned with a warning by default, and defaults are filled in', async () => {
    const r = await raw('POST', WIDGETS, widget({ shape: 'round' }));
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ size: 1 });
    expect(r.warnings).toBe('299 - "unknown field \\"spec.shape\\""');
    expect((await raw('POST', `${WIDGETS}?fieldValidation=Ignore`, widget({ shape: 'round' }, 'w2'))).warnings).toBeNull();
  });

  it('a replace must carry the resourceVersion it replaces (no unconditional update)', async () => {
    await s.call('POST', WIDGETS, widget({}));
    const r = await s.call('PUT', `${WIDGETS}/w`, widget({ size: 3 }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Widget.example.com "w" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  });

  it('a create drops the status before validating, so a status the schema refuses does not matter', async () => {
    const r = await s.call('POST', WIDGETS, { ...widget({}), status: { ready: 'yes' } });
    expect(r.status).toBe(201);
    expect(r.body.status).toBeUndefined();
  });

  it('a status write is pruned to the status schema', async () => {
    const created = (await s.call('POST', WIDGETS, widget({}))).body;
    const r = await s.call('PUT', `${WIDGETS}/w/status`, { ...created, status: { ready: true, extra: 1 } });
    expect(r.body.status).toEqual({ ready: true });
  });
});

describe('the TidbCluster CRD installed at start', () => {
  it('refuses replicas: three naming the field, as the issue asks', async () => {
    const r = await s.call('POST', TCS, { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic' }, spec: { pd: { replicas: 'three' } } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('TidbCluster.pingcap.com "basic" is invalid: spec.pd.replicas: Invalid value: "string": spec.pd.replicas in body must be of type integer: "string"');
  });

  it('cannot be joined by a second CRD serving the same kind, nor can a built-in kind (objects are kept by kind)', async () => {
    const other = { ...WIDGET_CRD, metadata: { name: 'tidbclusters.example.com' }, spec: { ...WIDGET_CRD.spec, names: { kind: 'TidbCluster', plural: 'tidbclusters' } } };
    const r = await s.call('POST', CRDS, other);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.names.kind: Duplicate value: "TidbCluster": already served by tidbclusters.pingcap.com');
    const pods = { ...WIDGET_CRD, metadata: { name: 'pods.example.com' }, spec: { ...WIDGET_CRD.spec, names: { kind: 'Pod', plural: 'pods' } } };
    expect((await s.call('POST', CRDS, pods)).body.message).toContain('spec.names.kind: Duplicate value: "Pod": already served by pods');
  });
});

/** The first `count` events of a watch opened on `path` while `during` runs. */
async function watched(path: string, count: number, during: () => Promise<unknown>): Promise<string[]> {
  const ctrl = new AbortController();
  const res = await fetch(`${s.url}${path}?watch=true`, { signal: ctrl.signal, headers: { Authorization: 'Bearer any' } });
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  const events: string[] = [];
  let buf = '';
  const pending = during();
  const deadline = Date.now() + 5000;
  while (events.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += Buffer.from(value).toString('utf8');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const ev = JSON.parse(buf.slice(0, nl)) as { type: string; object: { kind: string; metadata: { name: string } } };
      events.push(`${ev.type} ${ev.object.kind} ${ev.object.metadata.name}`);
      buf = buf.slice(nl + 1);
    }
  }
  ctrl.abort();
  await pending;
  return events;
}

describe('watch', () => {
  it('CRDs and their custom resources are watched like any kind', async () => {
    // A watch without a resourceVersion starts with the CRDs that exist (the TidbCluster's, the backup controllers' and the TidbMonitor's).
    const existing = ['backups', 'backupschedules', 'compactbackups', 'restores', 'tidbclusters', 'tidbdashboards', 'tidbinitializers', 'tidbmonitors', 'tidbngmonitorings'].map((p) => `ADDED CustomResourceDefinition ${p}.pingcap.com`);
    const events = await watched(CRDS, existing.length + 1, () => s.call('POST', CRDS, WIDGET_CRD));
    expect([...events.slice(0, -1)].sort()).toEqual(existing);
    expect(events.at(-1)).toBe('ADDED CustomResourceDefinition widgets.example.com');
    expect(await watched(WIDGETS, 2, async () => {
      await s.call('POST', WIDGETS, widget({}));
      await s.call('PATCH', `${WIDGETS}/w`, { spec: { size: 4 } }, 'application/merge-patch+json');
    })).toEqual(['ADDED Widget w', 'MODIFIED Widget w']);
  });
});

describe('deleting a CRD', () => {
  it('removes its custom resources, then the CRD, and the kind is no longer served', async () => {
    await s.call('POST', CRDS, WIDGET_CRD);
    await s.call('POST', WIDGETS, widget({}, 'a'));
    await s.call('POST', WIDGETS, widget({}, 'b'));
    const deleting = await s.call('DELETE', `${CRDS}/widgets.example.com`);
    expect(deleting.status).toBe(202);
    expect((await s.call('POST', WIDGETS, widget({}, 'c'))).body.message).toBe('create not allowed while custom resource definition is terminating');
    await s.clock.advance(10);
    await s.clock.advance(10);
    expect((await s.call('GET', `${CRDS}/widgets.example.com`)).status).toBe(404);
    expect((await s.call('GET', WIDGETS)).status).toBe(404);
    expect(s.store.list('Widget')).toEqual([]);
  });
});
