/**
 * Server-side printing as the API server negotiates it: the Accept forms it serves (Table v1 and
 * v1beta1, PartialObjectMetadata, plain JSON) in the client's order, includeObject, 406 for forms
 * it cannot produce; and custom resources printed from their CRD's additionalPrinterColumns.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../lib/sim/object.js';
import { defaultResources } from '../../lib/sim/crd/tidbcluster.js';
import { type PrinterColumnDefinition, customResourcePrinter, printerForKind } from '../../lib/sim/printers/index.js';
import { asTable, negotiate } from '../../lib/sim/tables.js';
import { type BareServer, configMap, startBareServer } from '../support/api-server.js';

const NOW_MS = Date.UTC(2026, 0, 10, 12, 0, 0);
const ago = (seconds: number): string => new Date(NOW_MS - seconds * 1000).toISOString().replace('.000Z', 'Z');
const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('Accept negotiation', () => {
  it.each([
    { name: 'kubectl get: Table v1 first', accept: KUBECTL_GET, list: true, want: { as: 'Table', version: 'v1' } },
    { name: 'only the v1beta1 Table', accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', list: false, want: { as: 'Table', version: 'v1beta1' } },
    { name: 'a Table of an unknown version, then JSON', accept: 'application/json;as=Table;v=v2;g=meta.k8s.io, application/json', list: true, want: { as: 'object' } },
    { name: 'plain JSON first wins over a later Table', accept: 'application/json, application/json;as=Table;v=v1;g=meta.k8s.io', list: true, want: { as: 'object' } },
    { name: 'protobuf passed over for JSON', accept: 'application/vnd.kubernetes.protobuf, application/json', list: false, want: { as: 'object' } },
    { name: 'no Accept header', accept: undefined, list: false, want: { as: 'object' } },
    { name: 'any type', accept: '*/*', list: false, want: { as: 'object' } },
    { name: 'metadata of a list', accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', list: true, want: { as: 'PartialObjectMetadataList', version: 'v1' } },
    { name: 'metadata of one object', accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json', list: false, want: { as: 'PartialObjectMetadata', version: 'v1' } },
  ])('$name', ({ accept, list, want }) => {
    expect(negotiate(accept, list)).toEqual(want);
  });

  it.each([
    { name: 'a Table of another group', accept: 'application/json;as=Table;v=v1;g=example.com' },
    { name: 'a Table without a version', accept: 'application/json;as=Table;g=meta.k8s.io' },
    { name: 'list metadata asked for one object', accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
  ])('only forms the server cannot produce are 406: $name', ({ accept }) => {
    expect(() => negotiate(accept, false)).toThrow(expect.objectContaining({ code: 406, reason: 'NotAcceptable' }));
  });
});

const tc = (status: Record<string, unknown> | undefined): KubeObject => ({
  apiVersion: 'pingcap.com/v1alpha1',
  kind: 'TidbCluster',
  metadata: { name: 'basic', namespace: 'demo', creationTimestamp: ago(4 * 3600) },
  spec: { pd: { replicas: 3, requests: { storage: '1Gi' } }, tikv: { replicas: 3, requests: { storage: '100Gi' } }, tidb: { replicas: 2 } },
  ...(status ? { status } : {}),
});

// The TidbCluster as the simulated API server prints it: from its installed CRD's printer columns.
const tidbClusterPrinter = () => {
  const served = defaultResources().servedVersion('TidbCluster', 'v1alpha1');
  return customResourcePrinter({ additionalPrinterColumns: (served?.printerColumns ?? []) as PrinterColumnDefinition[] });
};

describe('custom resources print their CRD\'s additionalPrinterColumns', () => {
  it('the TidbCluster prints TiDB Operator\'s columns, NAME first; STATUS is a wide column', () => {
    // Act
    const printer = tidbClusterPrinter();

    // Assess
    expect(printer.columns.map((c) => c.name)).toEqual(['Name', 'Ready', 'PD', 'Storage', 'Ready', 'Desire', 'TiKV', 'Storage', 'Ready', 'Desire', 'TiDB', 'Ready', 'Desire', 'Status', 'Age']);
    expect(printer.columns.filter((c) => c.priority).map((c) => c.name)).toEqual(['Status']);
    expect(printer.columns.map((c) => c.type)).toEqual(['string', 'string', 'string', 'string', 'integer', 'integer', 'string', 'string', 'integer', 'integer', 'string', 'integer', 'integer', 'string', 'date']);
  });

  it.each([
    {
      name: 'a ready cluster',
      status: {
        conditions: [{ type: 'Ready', status: 'True', message: 'TiDB cluster is fully up and running' }],
        pd: { image: 'pingcap/pd:v8.5.0', statefulSet: { readyReplicas: 3 } },
        tikv: { image: 'pingcap/tikv:v8.5.0', statefulSet: { readyReplicas: 2 } },
        tidb: { image: 'pingcap/tidb:v8.5.0', statefulSet: { readyReplicas: 2 } },
      },
      want: ['basic', 'True', 'pingcap/pd:v8.5.0', '1Gi', 3, 3, 'pingcap/tikv:v8.5.0', '100Gi', 2, 3, 'pingcap/tidb:v8.5.0', 2, 2, 'TiDB cluster is fully up and running', '4h'],
    },
    { name: 'a cluster without status: the status cells are null', status: undefined, want: ['basic', null, null, '1Gi', null, 3, null, '100Gi', null, 3, null, null, 2, null, '4h'] },
  ])('$name', ({ status, want }) => {
    expect(tidbClusterPrinter().cells(tc(status), NOW_MS)).toEqual(want);
  });

  it.each([
    { name: 'an integer column takes whole numbers', type: 'integer', path: '.spec.n', spec: { n: 3.7 }, want: 3 },
    { name: 'an integer column does not parse strings', type: 'integer', path: '.spec.n', spec: { n: '3' }, want: null },
    { name: 'a number column', type: 'number', path: '.spec.n', spec: { n: 0.5 }, want: 0.5 },
    { name: 'a boolean column', type: 'boolean', path: '.spec.b', spec: { b: true }, want: true },
    { name: 'a string column prints a number as text', type: 'string', path: '.spec.n', spec: { n: 3 }, want: '3' },
    { name: 'a string column prints an object as JSON', type: 'string', path: '.spec.o', spec: { o: { a: 1 } }, want: '{"a":1}' },
    { name: 'a date column is an age', type: 'date', path: '.spec.at', spec: { at: ago(303) }, want: '5m3s' },
    { name: 'a date column with a bad time', type: 'date', path: '.spec.at', spec: { at: 'yesterday' }, want: '<invalid>' },
    { name: 'a missing field is null', type: 'string', path: '.spec.missing', spec: {}, want: null },
    { name: 'several matches: the first', type: 'string', path: '.spec.list[*].name', spec: { list: [{ name: 'a' }, { name: 'b' }] }, want: 'a' },
  ])('$name', ({ type, path, spec, want }) => {
    // Prepare
    const printer = customResourcePrinter({ additionalPrinterColumns: [{ name: 'X', type, jsonPath: path }] });

    // Act
    const cells = printer.cells({ metadata: { name: 'x' }, spec }, NOW_MS);

    // Assess
    expect(cells).toEqual(['x', want]);
  });

  it('a version without printer columns prints NAME and the server\'s default AGE', () => {
    const printer = customResourcePrinter({});
    expect(printer.columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(printer.cells({ metadata: { name: 'x', creationTimestamp: ago(90) } }, NOW_MS)).toEqual(['x', '90s']);
  });

  it('a column description defaults to its JSONPath; format and priority pass through', () => {
    const printer = customResourcePrinter({ additionalPrinterColumns: [{ name: 'Size', type: 'integer', format: 'int32', priority: 1, jsonPath: '.spec.size' }] });
    expect(printer.columns[1]).toEqual({ name: 'Size', type: 'integer', format: 'int32', priority: 1, description: 'Custom resource definition column (in JSONPath format): .spec.size' });
  });

  it('a column whose JSONPath cannot be read falls back to the default table', () => {
    const printer = customResourcePrinter({ additionalPrinterColumns: [{ name: 'Bad', type: 'string', jsonPath: '.spec[' }] });
    expect(printer.columns.map((c) => c.name)).toEqual(['Name', 'Created At']);
  });
});

describe('asTable', () => {
  const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'abc', remainingItemCount: 1 }, items: [{ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', resourceVersion: '41', creationTimestamp: ago(10) }, data: { k: 'v' } }] };

  it.each([
    { name: 'by default each row carries the object\'s metadata', includeObject: null, want: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: list.items[0]?.metadata } },
    { name: 'Object: the whole object', includeObject: 'Object', want: list.items[0] },
    { name: 'None: no object', includeObject: 'None', want: null },
  ])('includeObject $includeObject — $name', ({ includeObject, want }) => {
    const table = asTable(printerForKind('ConfigMap'), list, NOW_MS, includeObject) as { rows: { cells: unknown[]; object: unknown }[]; metadata: unknown };
    expect(table.rows).toEqual([{ cells: ['a', 1, '10s'], object: want }]);
    expect(table.metadata).toEqual(list.metadata);
  });

  it('an unknown includeObject value is refused 400', () => {
    expect(() => asTable(printerForKind('ConfigMap'), list, NOW_MS, 'All')).toThrow(expect.objectContaining({ code: 400, message: 'unrecognized includeObject value: "All"' }));
  });
});

describe('the simulated API server prints tables over HTTP', () => {
  let s: BareServer;
  beforeEach(async () => {
    s = await startBareServer();
  });
  afterEach(async () => {
    await s.close();
  });

  async function get(path: string, accept: string): Promise<{ status: number; body: any }> {
    const res = await fetch(s.url + path, { headers: { Accept: accept, Authorization: 'Bearer any' }, signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: await res.json() };
  }

  it('a list and one object, as kubectl get asks; a v1beta1 Table when that is what is asked', async () => {
    // Prepare
    await s.call('POST', '/api/v1/namespaces/demo/configmaps', configMap('one', { a: '1', b: '2' }));

    // Act
    const list = await get('/api/v1/namespaces/demo/configmaps', KUBECTL_GET);
    const one = await get('/api/v1/namespaces/demo/configmaps/one', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');

    // Assess
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [{ cells: ['one', 2, '0s'] }] });
    expect(list.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(one.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1', rows: [{ cells: ['one', 2, '0s'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1' } }] });
  });

  it('a Table only of forms it cannot produce is 406; a plain GET is unchanged', async () => {
    const refused = await get('/api/v1/namespaces/demo/configmaps', 'application/json;as=Table;v=v9;g=meta.k8s.io');
    const plain = await get('/api/v1/namespaces', 'application/json');
    expect(refused).toMatchObject({ status: 406, body: { kind: 'Status', reason: 'NotAcceptable', code: 406 } });
    expect(plain.body.kind).toBe('NamespaceList');
    expect(plain.body.items.map((ns: KubeObject) => ns.status?.phase)).toEqual(['Active', 'Active']);
  });

  it('a watch asked for as a Table streams one-row tables, column definitions in the first only', async () => {
    // Prepare
    await s.call('POST', '/api/v1/namespaces/demo/configmaps', configMap('one'));
    const controller = new AbortController();
    const res = await fetch(`${s.url}/api/v1/namespaces/demo/configmaps?watch=true`, { headers: { Accept: KUBECTL_GET, Authorization: 'Bearer any' }, signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();

    // Act
    await s.call('POST', '/api/v1/namespaces/demo/configmaps', configMap('two'));
    let text = '';
    while (text.split('\n').length < 3) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();

    // Assess
    const events = text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { kind: string; columnDefinitions: unknown[] | null; rows: { cells: unknown[] }[] } });
    expect(events.map((e) => [e.type, e.object.kind, e.object.rows[0]?.cells[0], e.object.columnDefinitions?.length ?? null])).toEqual([
      ['ADDED', 'Table', 'one', 3],
      ['ADDED', 'Table', 'two', null],
    ]);
  });
});
