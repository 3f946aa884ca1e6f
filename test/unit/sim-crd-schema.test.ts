/**
 * A CRD's structural schema applied to custom resources: pruning, defaulting and validation with
 * the apiextensions API server's field paths and wording; CRD checks and the served versions a CRD
 * adds; and the project's generated TidbCluster CRD against the fields the project writes.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { validateCrd, servedVersions } from '../../lib/sim/crd/definitions.js';
import { type StructuralSchema, applyStructuralSchema } from '../../lib/sim/crd/schema.js';
import { tidbClusterCrd } from '../../lib/sim/crd/tidbcluster.js';
import type { KubeObject } from '../../lib/sim/object.js';

const SCHEMA: StructuralSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        ratio: { type: 'number', minimum: 0, maximum: 1 },
        mode: { type: 'string', enum: ['', 'ms'] },
        image: { type: 'string', default: 'pingcap/pd:v8.5.0' },
        storage: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        ports: { type: 'array', items: { type: 'object', required: ['port'], properties: { port: { type: 'integer', default: 80 }, name: { type: 'string', pattern: '^[a-z]+$' } } } },
      },
      required: ['replicas'],
    },
  },
};

const apply = (spec: Record<string, unknown>) => applyStructuralSchema(SCHEMA, { apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'a' }, spec });
const messages = (spec: Record<string, unknown>) => apply(spec).causes.map((c) => `${c.field}: ${c.message}`);

describe('validation', () => {
  it.each([
    { name: 'a string where an integer belongs', spec: { replicas: 'three' }, want: 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"' },
    { name: 'a fraction where an integer belongs', spec: { replicas: 1.5 }, want: 'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"' },
    { name: 'a value outside the enum', spec: { replicas: 1, mode: 'x' }, want: 'spec.mode: Unsupported value: "x": supported values: "", "ms"' },
    { name: 'a missing required field', spec: {}, want: 'spec.replicas: Required value' },
    { name: 'a boolean where int-or-string belongs', spec: { replicas: 1, storage: true }, want: 'spec.storage: Invalid value: "boolean": spec.storage in body must be of type integer,string: "boolean"' },
    { name: 'null where the field is not nullable', spec: { replicas: 1, mode: null }, want: 'spec.mode: Invalid value: "null": spec.mode in body must be of type string: "null"' },
    { name: 'a number above the maximum', spec: { replicas: 1, ratio: 2 }, want: 'spec.ratio: Invalid value: 2: spec.ratio in body should be less than or equal to 1' },
    { name: 'a map value of the wrong type', spec: { replicas: 1, labels: { a: 1 } }, want: 'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"' },
    { name: 'a list item breaking its pattern', spec: { replicas: 1, ports: [{ port: 1, name: 'A' }] }, want: `spec.ports[0].name: Invalid value: "A": spec.ports[0].name in body should match '^[a-z]+$'` },
  ])('$name is refused naming the field', ({ spec, want }) => {
    expect(messages(spec)).toEqual([want]);
  });

  it.each([
    { name: 'an integer for int-or-string', spec: { replicas: 1, storage: 10 } },
    { name: 'a string for int-or-string', spec: { replicas: 1, storage: '10Gi' } },
    { name: 'an integer where a number belongs', spec: { replicas: 1, ratio: 1 } },
    { name: 'null where the field is nullable', spec: { replicas: 1, note: null } },
    { name: 'anything under preserve-unknown-fields', spec: { replicas: 1, config: { a: { b: [1, 'x'] } } } },
  ])('$name is accepted', ({ spec }) => {
    expect(messages(spec)).toEqual([]);
  });
});

describe('pruning', () => {
  it('drops unknown fields at any depth and reports their paths', () => {
    const r = apply({ replicas: 1, replica: 3, ports: [{ port: 1, protocol: 'TCP' }], extra: { a: 1 } });
    expect(r.unknownFields).toEqual(['spec.replica', 'spec.ports[0].protocol', 'spec.extra']);
    expect((r.value as { spec: unknown }).spec).toEqual({ replicas: 1, image: 'pingcap/pd:v8.5.0', ports: [{ port: 1 }] });
  });

  it('keeps what preserve-unknown-fields covers, map entries, and the object meta fields', () => {
    const r = applyStructuralSchema(SCHEMA, { apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'a', labels: { b: 'c' } }, spec: { replicas: 1, config: { anything: true }, labels: { k: 'v' } } });
    expect(r.unknownFields).toEqual([]);
    expect(r.value).toMatchObject({ apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'a', labels: { b: 'c' } }, spec: { config: { anything: true }, labels: { k: 'v' } } });
  });

  it('treats an undefined field as absent', () => {
    const r = applyStructuralSchema(SCHEMA, { metadata: { name: 'a' }, spec: { replicas: 1, mode: undefined }, status: undefined });
    expect({ unknown: r.unknownFields, causes: r.causes, value: r.value }).toEqual({ unknown: [], causes: [], value: { metadata: { name: 'a' }, spec: { replicas: 1, image: 'pingcap/pd:v8.5.0' } } });
    expect(Object.keys(r.value as object)).toEqual(['metadata', 'spec']);
  });

  it('drops an unknown top-level field', () => {
    expect(applyStructuralSchema(SCHEMA, { metadata: { name: 'a' }, spec: { replicas: 1 }, extra: 1 }).unknownFields).toEqual(['extra']);
  });
});

describe('defaulting', () => {
  it.each([
    { name: 'an absent field gets its default', spec: { replicas: 1 }, want: { replicas: 1, image: 'pingcap/pd:v8.5.0' } },
    { name: 'a given value is kept', spec: { replicas: 1, image: 'x' }, want: { replicas: 1, image: 'x' } },
    { name: 'a null non-nullable field gets its default', spec: { replicas: 1, image: null }, want: { replicas: 1, image: 'pingcap/pd:v8.5.0' } },
    { name: 'list items get their defaults', spec: { replicas: 1, image: 'x', ports: [{ name: 'a' }] }, want: { replicas: 1, image: 'x', ports: [{ name: 'a', port: 80 }] } },
  ])('$name', ({ spec, want }) => {
    const r = apply(spec);
    expect(r.causes).toEqual([]);
    expect((r.value as { spec: unknown }).spec).toEqual(want);
  });
});

const crd = (over: Record<string, unknown> = {}, name = 'widgets.example.com'): KubeObject => ({
  metadata: { name },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced',
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } }, subresources: { status: {} } },
      { name: 'v1beta1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
    ...over,
  },
});

describe('CustomResourceDefinition checks', () => {
  it('a well-formed CRD passes and serves its served versions, storage first', () => {
    expect(validateCrd(crd())).toEqual([]);
    expect(servedVersions(crd()).map((v) => [v.resource.version, v.resource.namespaced, v.resource.subresources])).toEqual([['v1', true, ['status']]]);
  });

  it.each([
    { name: 'a name that is not plural.group', obj: crd({}, 'widget.example.com'), want: 'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group' },
    { name: 'a group without a dot', obj: crd({ group: 'example' }, 'widgets.example'), want: 'spec.group: Invalid value: "example": should be a domain with at least one dot' },
    { name: 'an unknown scope', obj: crd({ scope: 'Global' }), want: 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"' },
    {
      name: 'two storage versions',
      obj: crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }, { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] }),
      want: 'spec.versions: Invalid value: ["v1","v2"]: must have exactly one version marked as storage version',
    },
    { name: 'a version without a schema', obj: crd({ versions: [{ name: 'v1', served: true, storage: true }] }), want: 'spec.versions[0].schema.openAPIV3Schema: Required value' },
    {
      name: 'a property without a type (not structural)',
      obj: crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } } } }] }),
      want: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    },
    {
      name: 'properties beside additionalProperties',
      obj: crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } } } } }] }),
      want: 'spec.versions[0].schema.openAPIV3Schema.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    },
  ])('$name is refused', ({ obj, want }) => {
    expect(validateCrd(obj).map((c) => `${c.field}: ${c.message}`)).toEqual([want]);
  });
});

describe('the project TidbCluster CRD', () => {
  const crdObj = tidbClusterCrd() as KubeObject;
  const schema = servedVersions(crdObj)[0]?.schema as StructuralSchema;
  const tc = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic' }, spec, ...(status ? { status } : {}) });

  it('is a valid CRD serving pingcap.com/v1alpha1 tidbclusters with a status subresource and TiDB Operator columns', () => {
    expect(validateCrd(crdObj)).toEqual([]);
    const [v] = servedVersions(crdObj);
    expect(v?.resource).toMatchObject({ group: 'pingcap.com', version: 'v1alpha1', kind: 'TidbCluster', plural: 'tidbclusters', shortNames: ['tc'], subresources: ['status'], namespaced: true });
    expect((v?.printerColumns as { name: string }[]).map((c) => c.name)).toEqual(['Ready', 'PD', 'Storage', 'Ready', 'Desire', 'TiKV', 'Storage', 'Ready', 'Desire', 'TiDB', 'Ready', 'Desire', 'Status', 'Age']);
  });

  it('keeps every field of a full cluster spec and status the project writes', () => {
    const spec = {
      version: 'v8.5.0',
      timezone: 'UTC',
      pvReclaimPolicy: 'Retain',
      paused: false,
      tlsCluster: { enabled: true },
      pd: { baseImage: 'pingcap/pd', replicas: 3, requests: { storage: '10Gi', cpu: 1 }, config: { schedule: { 'leader-schedule-limit': 4 } }, storageClassName: 'gp3' },
      tikv: { baseImage: 'pingcap/tikv', replicas: 3, requests: { storage: '100Gi' } },
      tidb: { baseImage: 'pingcap/tidb', replicas: 2, service: { type: 'ClusterIP' } },
    };
    const status = { clusterID: '42', pd: { phase: 'Normal', synced: true, leader: { name: 'basic-pd-0', id: '1', clientURL: 'http://x', health: true }, statefulSet: { replicas: 3, readyReplicas: 3 } }, conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: 'ok' }] };
    const r = applyStructuralSchema(schema, tc(spec, status));
    expect({ unknown: r.unknownFields, causes: r.causes }).toEqual({ unknown: [], causes: [] });
    expect(r.value).toMatchObject({ spec, status });
  });

  it('refuses replicas: three naming the field, and prunes replica: 3', () => {
    expect(applyStructuralSchema(schema, tc({ pd: { replicas: 'three' } })).causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      'spec.pd.replicas: Invalid value: "string": spec.pd.replicas in body must be of type integer: "string"',
    ]);
    expect(applyStructuralSchema(schema, tc({ pd: { replicas: 3, replica: 3 } })).unknownFields).toEqual(['spec.pd.replica']);
  });
});

describe("TiDB Operator's published TidbCluster CRD", () => {
  const file = join(import.meta.dirname, '..', 'fixtures', 'tidb-operator-tidbclusters-crd.yaml.gz');
  const upstream = parse(gunzipSync(readFileSync(file)).toString('utf8')) as KubeObject;

  it('is a valid, structural CRD for the same kind', () => {
    expect(validateCrd(upstream)).toEqual([]);
    expect(servedVersions(upstream)[0]?.resource).toMatchObject({ group: 'pingcap.com', version: 'v1alpha1', kind: 'TidbCluster', plural: 'tidbclusters' });
  });

  it('accepts the example cluster unchanged and refuses replicas: three as the project CRD does', () => {
    const schema = servedVersions(upstream)[0]?.schema as StructuralSchema;
    const example = parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'basic-tidbcluster.yaml'), 'utf8')) as Record<string, unknown>;
    const r = applyStructuralSchema(schema, example);
    expect({ unknown: r.unknownFields, causes: r.causes }).toEqual({ unknown: [], causes: [] });
    const three = applyStructuralSchema(schema, { metadata: { name: 'basic' }, spec: { pd: { replicas: 'three' } } });
    expect(three.causes.map((c) => c.field)).toContain('spec.pd.replicas');
  });
});
