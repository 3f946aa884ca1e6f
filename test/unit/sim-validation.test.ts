/**
 * Object validation on create/update, with the API server's field paths and wording, and the
 * resource quantities it depends on.
 */

import { describe, it, expect } from '@jest/globals';
import { ApiError } from '../../lib/sim/api-error.js';
import { isValidQuantity, parseQuantity } from '../../lib/sim/quantity.js';
import { validateObject } from '../../lib/sim/validation.js';

const SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const pod = (name: string, spec: object = { containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }] }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'tidb', labels: { 'app.kubernetes.io/component': 'pd' } },
  spec,
});

const statefulSet = (spec: Record<string, unknown>) => ({
  metadata: { name: 'basic-pd', namespace: 'tidb' },
  spec: {
    replicas: 3,
    selector: { matchLabels: { 'app.kubernetes.io/component': 'pd' } },
    template: { metadata: { labels: { 'app.kubernetes.io/component': 'pd' } }, spec: { containers: [{ name: 'pd', image: 'pd' }] } },
    ...spec,
  },
});

const fieldsAndMessages = (kind: string, obj: unknown) => validateObject(kind, obj).map((c) => `${c.field}: ${c.message}`);

describe('metadata validation', () => {
  it('a name with an underscore and capitals is rejected in the server words', () => {
    expect(validateObject('Pod', pod('DB_1'))).toEqual([
      { field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "DB_1": ${SUBDOMAIN_RULE}` },
    ]);
  });

  it.each([
    { name: 'a pod name like basic-pd-0 is accepted', kind: 'Pod', obj: pod('basic-pd-0') },
    { name: 'a dotted ConfigMap name is accepted', kind: 'ConfigMap', obj: { metadata: { name: 'basic.pd-config' } } },
    { name: 'generateName stands in for a missing name', kind: 'ConfigMap', obj: { metadata: { generateName: 'basic-pd-' } } },
    { name: 'a TidbCluster only needs valid metadata', kind: 'TidbCluster', obj: { metadata: { name: 'basic' }, spec: {} } },
    { name: 'an empty label value is allowed', kind: 'ConfigMap', obj: { metadata: { name: 'a', labels: { 'example.com/x': '' } } } },
  ])('$name', ({ kind, obj }) => {
    expect(validateObject(kind, obj)).toEqual([]);
  });

  it.each([
    { name: 'a missing name is required', kind: 'ConfigMap', obj: { metadata: {} }, want: 'metadata.name: Required value: name or generateName is required' },
    { name: 'a Namespace name may not contain dots', kind: 'Namespace', obj: { metadata: { name: 'a.b' } }, want: 'metadata.name: Invalid value: "a.b": must not contain dots' },
    {
      name: 'a Service name must start with a letter (DNS-1035)',
      kind: 'Service',
      obj: { metadata: { name: '1pd' }, spec: { clusterIP: 'None' } },
      want: `metadata.name: Invalid value: "1pd": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    },
    { name: 'a StatefulSet name is a DNS label', kind: 'StatefulSet', obj: { ...statefulSet({}), metadata: { name: 'basic.pd' } }, want: 'metadata.name: Invalid value: "basic.pd": must not contain dots' },
    { name: 'a subdomain name is at most 253 characters', kind: 'ConfigMap', obj: { metadata: { name: 'a'.repeat(254) } }, want: `metadata.name: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters` },
    {
      name: 'the namespace must be a DNS label',
      kind: 'ConfigMap',
      obj: { metadata: { name: 'a', namespace: 'TiDB' } },
      want: `metadata.namespace: Invalid value: "TiDB": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    },
    { name: 'a label name part is at most 63 characters', kind: 'ConfigMap', obj: { metadata: { name: 'a', labels: { ['k'.repeat(64)]: 'v' } } }, want: `metadata.labels: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters` },
    { name: 'a label value is at most 63 characters', kind: 'ConfigMap', obj: { metadata: { name: 'a', labels: { k: 'v'.repeat(64) } } }, want: `metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters` },
    { name: 'a label prefix must be non-empty', kind: 'ConfigMap', obj: { metadata: { name: 'a', labels: { '/k': 'v' } } }, want: 'metadata.labels: Invalid value: "/k": prefix part must be non-empty' },
  ])('$name', ({ kind, obj, want }) => {
    expect(fieldsAndMessages(kind, obj)).toEqual([want]);
  });

  it('an invalid label value is reported with the value, not the key', () => {
    const causes = validateObject('ConfigMap', { metadata: { name: 'a', labels: { tier: 'db tier' } } });

    expect(causes.map((c) => c.field)).toEqual(['metadata.labels']);
    expect(causes[0]?.message).toMatch(/^Invalid value: "db tier": a valid label must be an empty string or consist of alphanumeric characters/);
  });

  it('a body that is not an object is one cause', () => {
    expect(validateObject('Pod', 'nope')).toHaveLength(1);
  });
});

describe('spec validation', () => {
  it.each([
    { name: 'a pod needs containers', kind: 'Pod', obj: pod('p', {}), want: ['spec.containers: Required value'] },
    { name: 'a container needs a name and an image', kind: 'Pod', obj: pod('p', { containers: [{}] }), want: ['spec.containers[0].name: Required value', 'spec.containers[0].image: Required value'] },
    { name: 'container names are unique', kind: 'Pod', obj: pod('p', { containers: [{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }] }), want: ['spec.containers[1].name: Duplicate value: "a"'] },
    { name: 'a container port is 1..65535', kind: 'Pod', obj: pod('p', { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 70000 }] }] }), want: ['spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'] },
    { name: 'a Service needs ports', kind: 'Service', obj: { metadata: { name: 'pd' }, spec: {} }, want: ['spec.ports: Required value'] },
    { name: 'a headless Service may have no ports', kind: 'Service', obj: { metadata: { name: 'pd-peer' }, spec: { clusterIP: 'None' } }, want: [] },
    { name: 'an ExternalName Service may have no ports', kind: 'Service', obj: { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'x.example.com' } }, want: [] },
    { name: 'a Service port is 1..65535', kind: 'Service', obj: { metadata: { name: 'pd' }, spec: { ports: [{ port: 0 }] } }, want: ['spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive'] },
    { name: 'several Service ports each need a name', kind: 'Service', obj: { metadata: { name: 'pd' }, spec: { ports: [{ name: 'client', port: 2379 }, { port: 2380 }] } }, want: ['spec.ports[1].name: Required value'] },
    { name: 'an unknown Service type is unsupported', kind: 'Service', obj: { metadata: { name: 'pd' }, spec: { type: 'Bogus', ports: [{ port: 1 }] } }, want: ['spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'] },
  ])('$name', ({ kind, obj, want }) => {
    expect(fieldsAndMessages(kind, obj)).toEqual(want);
  });

  it.each([
    { name: 'a StatefulSet without serviceName is valid', kind: 'StatefulSet', spec: {}, want: [] },
    { name: 'a Deployment like the StatefulSet is valid', kind: 'Deployment', spec: {}, want: [] },
    {
      name: 'template labels must satisfy the selector',
      kind: 'StatefulSet',
      spec: { template: { metadata: { labels: { 'app.kubernetes.io/component': 'tikv' } }, spec: {} } },
      want: ['spec.template.metadata.labels: Invalid value: map[string]string{"app.kubernetes.io/component":"tikv"}: `selector` does not match template `labels`'],
    },
    {
      name: 'a missing selector is required, and then matches no template',
      kind: 'Deployment',
      spec: { selector: undefined },
      want: ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: map[string]string{"app.kubernetes.io/component":"pd"}: `selector` does not match template `labels`'],
    },
    { name: 'an empty selector is invalid', kind: 'StatefulSet', spec: { selector: {} }, want: ['spec.selector: Invalid value: {}: empty selector is invalid for statefulset'] },
    { name: 'replicas may not be negative', kind: 'Deployment', spec: { replicas: -1 }, want: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'] },
    { name: 'a template restartPolicy must be Always', kind: 'StatefulSet', spec: { template: { metadata: { labels: { 'app.kubernetes.io/component': 'pd' } }, spec: { restartPolicy: 'Never' } } }, want: ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'] },
    { name: 'a Deployment template is validated as a pod spec', kind: 'Deployment', spec: { template: { metadata: { labels: { 'app.kubernetes.io/component': 'pd' } }, spec: { containers: [] } } }, want: ['spec.template.spec.containers: Required value'] },
    {
      name: 'set-based selectors are honoured',
      kind: 'Deployment',
      spec: { selector: { matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: ['pd', 'tikv'] }] } },
      want: [],
    },
  ])('$name', ({ kind, spec, want }) => {
    expect(fieldsAndMessages(kind, statefulSet(spec))).toEqual(want);
  });

  const claim = (spec: object) => ({ metadata: { name: 'pd-basic-pd-0' }, spec });

  it.each([
    { name: 'a valid claim has no causes', spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } }, want: [] },
    { name: 'a claim needs a storage request', spec: { accessModes: ['ReadWriteOnce'], resources: {} }, want: ['spec.resources[storage]: Required value'] },
    {
      name: 'the storage request must be a quantity',
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: 'ten gigs' } } },
      want: ['spec.resources[storage]: Invalid value: "ten gigs": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\''],
    },
    { name: 'the storage request must be positive', spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '0' } } }, want: ['spec.resources[storage]: Invalid value: "0": must be greater than zero'] },
    { name: 'a claim needs an access mode', spec: { resources: { requests: { storage: '1Gi' } } }, want: ['spec.accessModes: Required value: at least 1 access mode is required'] },
    {
      name: 'an unknown access mode is unsupported',
      spec: { accessModes: ['ReadWriteSometimes'], resources: { requests: { storage: '1Gi' } } },
      want: ['spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'],
    },
  ])('$name', ({ spec, want }) => {
    expect(fieldsAndMessages('PersistentVolumeClaim', claim(spec))).toEqual(want);
  });

  it('ConfigMap data keys must be config keys', () => {
    expect(fieldsAndMessages('ConfigMap', { metadata: { name: 'a' }, data: { 'pd.toml': 'x', 'bad key': 'y' } })).toEqual([
      `data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
  });
});

describe('resource quantities', () => {
  it.each([
    { name: 'binary gibibytes', text: '10Gi', want: 10 * 2 ** 30 },
    { name: 'binary kibibytes', text: '1Ki', want: 1024 },
    { name: 'millicores', text: '500m', want: 0.5 },
    { name: 'a decimal fraction with a decimal suffix', text: '1.5G', want: 1.5e9 },
    { name: 'a decimal exponent', text: '1e3', want: 1000 },
    { name: 'an upper-case exponent', text: '2E2', want: 200 },
    { name: 'a plain integer', text: '100', want: 100 },
    { name: 'kilo is lower-case k', text: '4k', want: 4000 },
    { name: 'E alone is exa', text: '1E', want: 1e18 },
    { name: 'a leading dot', text: '.5', want: 0.5 },
    { name: 'a negative value', text: '-1', want: -1 },
    { name: 'nano', text: '3n', want: 3e-9 },
  ])('$name: $text', ({ text, want }) => {
    expect(parseQuantity(text)).toBeCloseTo(want, 12);
    expect(isValidQuantity(text)).toBe(true);
  });

  it.each([
    { name: 'words', text: 'ten gigs' },
    { name: 'a space before the suffix', text: '10 Gi' },
    { name: 'an unknown suffix', text: '10Gb' },
    { name: 'upper-case K', text: '1K' },
    { name: 'two dots', text: '1.5.3' },
    { name: 'the empty string', text: '' },
    { name: 'a dangling exponent', text: '1e' },
  ])('$name is not a quantity', ({ text }) => {
    expect(isValidQuantity(text)).toBe(false);
    let thrown: unknown;
    try {
      parseQuantity(text);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe(400);
  });

  it('a JSON number is a quantity as it stands', () => {
    expect(parseQuantity(2)).toBe(2);
    expect(isValidQuantity(2)).toBe(true);
    expect(isValidQuantity(Number.NaN)).toBe(false);
  });
});
