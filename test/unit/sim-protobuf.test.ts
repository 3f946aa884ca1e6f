/**
 * Protobuf request bodies as the simulated API server decodes them: kubectl 1.34's own bodies for
 * each generator command decode to the object kubectl would have sent as JSON, the Go JSON rules
 * (pointers, omitempty, inline structs, bytes, Time, Quantity, IntOrString, RawExtension) hold for
 * bodies encoded here with protobufjs, and what the server cannot read is refused with its status.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { PROTOBUF_MAGIC, decodeProtobufBody, protoPackageOf } from '../../lib/sim/protobuf/decode.js';
import { apiErrorOf } from '../support/api-error.js';

const ROOT = join(import.meta.dirname, '..', '..');

type Captured = { name: string; args: string[]; body: string; expected: Record<string, unknown> };
const CAPTURED = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'kubectl-protobuf.json'), 'utf8')) as Captured[];

const messages = protobuf.Root.fromJSON(
  (JSON.parse(readFileSync(join(ROOT, 'lib', 'sim', 'protobuf', 'k8s-protobuf.json'), 'utf8')) as { protobuf: protobuf.INamespace }).protobuf,
);

/** A body as a Kubernetes client frames it: magic, then runtime.Unknown around the object's message. */
function frame(apiVersion: string, kind: string, typeName: string, object: Record<string, unknown>, contentEncoding = ''): Buffer {
  const type = messages.lookupType(typeName);
  const raw = type.encode(type.fromObject(object)).finish();
  const unknown = messages.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const envelope = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding, contentType: '' })).finish();
  return Buffer.concat([PROTOBUF_MAGIC, envelope]);
}

describe("kubectl 1.34's generator bodies", () => {
  it('the fixture covers every generator command kubectl sends protobuf for', () => {
    expect(CAPTURED.map((c) => c.expected.kind)).toEqual(
      expect.arrayContaining(['Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'Service', 'Deployment', 'Role', 'RoleBinding']),
    );
  });

  it.each(CAPTURED)('$name: decodes to the object kubectl would send as JSON', ({ body, expected }) => {
    // Prepare
    const bytes = Buffer.from(body, 'base64');
    // Act
    const decoded = decodeProtobufBody(bytes);
    // Assess
    expect(decoded).toEqual(expected);
  });
});

describe('Go JSON rules of the decoded object', () => {
  it.each([
    {
      name: 'a pointer field keeps its zero value (replicas: 0), a plain omitempty one is left out',
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      type: 'k8s.io.api.apps.v1.Deployment',
      object: { metadata: { name: 'd', generateName: '', generation: 0 }, spec: { replicas: 0, minReadySeconds: 0, paused: false } },
      want: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 0 } },
      absent: [['metadata', 'generateName'], ['metadata', 'generation'], ['spec', 'minReadySeconds'], ['spec', 'paused'], ['spec', 'revisionHistoryLimit']],
    },
    {
      name: 'an inline struct is flattened into its parent (Volume.volumeSource)',
      apiVersion: 'v1',
      kind: 'Pod',
      type: 'k8s.io.api.core.v1.Pod',
      object: { spec: { volumes: [{ name: 'data', volumeSource: { persistentVolumeClaim: { claimName: 'pvc-1' } } }] } },
      want: { apiVersion: 'v1', kind: 'Pod', spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'pvc-1' } }] } },
    },
    {
      name: 'Quantity is its string, IntOrString its int or its string',
      apiVersion: 'v1',
      kind: 'Pod',
      type: 'k8s.io.api.core.v1.Pod',
      object: {
        spec: {
          containers: [
            {
              name: 'c',
              resources: { requests: { cpu: { string: '500m' } } },
              readinessProbe: { handler: { tcpSocket: { port: { type: 1, strVal: 'http' } } } },
              livenessProbe: { handler: { httpGet: { port: { type: 0, intVal: 8080 } } } },
            },
          ],
        },
      },
      want: {
        apiVersion: 'v1',
        kind: 'Pod',
        spec: {
          containers: [
            {
              name: 'c',
              resources: { requests: { cpu: '500m' } },
              readinessProbe: { tcpSocket: { port: 'http' } },
              livenessProbe: { httpGet: { port: 8080 } },
            },
          ],
        },
      },
    },
    {
      name: 'a Time is RFC 3339 to the second, a MicroTime to the microsecond',
      apiVersion: 'v1',
      kind: 'Event',
      type: 'k8s.io.api.core.v1.Event',
      object: { metadata: { name: 'e', creationTimestamp: { seconds: 1700000000 } }, eventTime: { seconds: 1700000000, nanos: 123456789 } },
      want: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', creationTimestamp: '2023-11-14T22:13:20Z' }, eventTime: '2023-11-14T22:13:20.123456Z' },
    },
    {
      name: 'bytes are base64 and a RawExtension is the JSON it carries',
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      type: 'k8s.io.api.apps.v1.ControllerRevision',
      object: { metadata: { name: 'r' }, data: { raw: Buffer.from('{"spec":{"replicas":3}}') }, revision: 2 },
      want: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { spec: { replicas: 3 } }, revision: 2 },
    },
    {
      name: 'binary ConfigMap data is base64',
      apiVersion: 'v1',
      kind: 'ConfigMap',
      type: 'k8s.io.api.core.v1.ConfigMap',
      object: { metadata: { name: 'bin' }, binaryData: { blob: Buffer.from([0, 1, 2, 255]) } },
      want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin' }, binaryData: { blob: 'AAEC/w==' } },
    },
  ])('$name', ({ apiVersion, kind, type, object, want, absent }) => {
    // Prepare
    const body = frame(apiVersion, kind, type, object);
    // Act
    const decoded = decodeProtobufBody(body);
    // Assess
    expect(decoded).toMatchObject(want);
    for (const path of absent ?? []) expect(decoded).not.toHaveProperty(path);
  });

  it('a field not on the wire is written as Go writes its zero value (nil slice or pointer null, struct zero, omitempty left out)', () => {
    // Prepare: a body that leaves out what a Go client would always send (the non-nullable structs).
    const body = frame('apps/v1', 'Deployment', 'k8s.io.api.apps.v1.Deployment', { metadata: { name: 'd' } });
    // Act
    const decoded = decodeProtobufBody(body);
    // Assess
    expect(decoded).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: null, template: { metadata: {}, spec: { containers: null } }, strategy: {} },
      status: {},
    });
  });
});

describe('bodies the server cannot read', () => {
  it.each([
    { name: 'a kind without a protobuf form (a custom resource) is 415 naming the kind', body: () => frame('pingcap.com/v1alpha1', 'TidbCluster', 'k8s.io.api.core.v1.ConfigMap', {}), code: 415, message: 'kind TidbCluster (pingcap.com/v1alpha1)' },
    { name: 'a built-in kind the server does not serve is 415 naming the kind', body: () => frame('batch/v1', 'Job', 'k8s.io.api.core.v1.ConfigMap', {}), code: 415, message: 'kind Job (batch/v1)' },
    { name: 'a compressed raw object is 415', body: () => frame('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', {}, 'gzip'), code: 415, message: 'content encoding "gzip"' },
    { name: 'a body without the k8s\\0 magic is 400', body: () => Buffer.from('{"kind":"ConfigMap"}'), code: 400, message: 'expected prefix [107 56 115 0]' },
    { name: 'an envelope without a kind is 400', body: () => frame('v1', '', 'k8s.io.api.core.v1.ConfigMap', {}), code: 400, message: "'Kind' is missing" },
    { name: 'a truncated message is 400', body: () => frame('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'x' } }).subarray(0, 12), code: 400, message: 'unknown format' },
  ])('$name', ({ body, code, message }) => {
    // Act
    const err = apiErrorOf(() => decodeProtobufBody(body()));
    // Assess
    expect(err.code).toBe(code);
    expect(err.message).toContain(message);
  });
});

describe('proto package of a group/version', () => {
  it.each([
    { name: 'the core group', apiVersion: 'v1', want: 'k8s.io.api.core.v1' },
    { name: 'a group without dots', apiVersion: 'apps/v1', want: 'k8s.io.api.apps.v1' },
    { name: 'a k8s.io group is named by its first label', apiVersion: 'rbac.authorization.k8s.io/v1', want: 'k8s.io.api.rbac.v1' },
    { name: 'a group outside Kubernetes has none', apiVersion: 'pingcap.com/v1alpha1', want: undefined },
  ])('$name', ({ apiVersion, want }) => {
    expect(protoPackageOf(apiVersion)).toBe(want);
  });
});
