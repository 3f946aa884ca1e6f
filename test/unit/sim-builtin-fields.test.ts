/**
 * Creates and updates of built-in kinds read through the kind's Go type, as the real API server
 * reads them: wrong JSON types are 400 in encoding/json's words, unknown fields are refused under
 * `fieldValidation=Strict` (kubectl's default) and dropped otherwise; custom resources pass unchanged.
 */
import { describe, expect, it } from '@jest/globals';
import { decodeBuiltinFields } from '../../lib/sim/builtin-fields.js';
import { defaultResources } from '../../lib/sim/crd/tidbcluster.js';
import { apiErrorOf } from '../support/api-error.js';

const mustResource = (kind: string) => defaultResources().mustByKind(kind);

const deployment = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'web' }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata,
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } },
    ...spec,
  },
});

describe('refused bodies', () => {
  it.each([
    {
      name: 'an unknown field under Strict',
      body: deployment({ replica: 3 }),
      message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"',
    },
    {
      name: 'every unknown field under Strict, list items with their index',
      body: deployment({ template: { spec: { containers: [{ name: 'web', image: 'nginx:1', imagePullPolicyy: 'Always' }] } }, paused: false, foo: 1 }),
      message: 'strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy", unknown field "spec.foo"',
    },
    {
      name: 'a string for an int32',
      body: deployment({ replicas: 'three' }),
      message: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'a bool for a string inside a list (the Go path has no index)',
      body: deployment({ template: { spec: { containers: [{ name: 'web', image: 'nginx:1', env: [{ name: true, value: '2' }] }] } } }),
      message: 'json: cannot unmarshal bool into Go struct field EnvVar.spec.template.spec.containers.env.name of type string',
    },
    {
      name: 'a number for a label value',
      body: deployment({}, { name: 'web', labels: { tier: 1 } }),
      message: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    },
    {
      name: 'an object for a list',
      body: deployment({ template: { spec: { containers: { name: 'web' } } } }),
      message: 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
    },
    {
      name: 'a bool for an IntOrString',
      body: deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: true } } }),
      message: 'json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type intstr.IntOrString',
    },
  ])('$name is 400', ({ body, message }) => {
    // Act
    const err = apiErrorOf(() => decodeBuiltinFields(mustResource('Deployment'), body, 'Strict'));
    // Assess
    expect(err.code).toBe(400);
    expect(err.message).toContain(message);
  });
});

describe('accepted bodies', () => {
  it.each([
    { name: 'without Strict an unknown field is dropped', kind: 'Deployment', body: deployment({ replica: 3, replicas: 2 }), validation: null, want: deployment({ replicas: 2 }) },
    { name: 'Ignore drops it too', kind: 'Deployment', body: deployment({ replica: 3 }), validation: 'Ignore', want: deployment({}) },
    { name: 'an undefined value is absent (it never reaches JSON)', kind: 'Deployment', body: deployment({ replicas: undefined }), validation: 'Strict', want: deployment({ replicas: undefined }) },
    { name: 'a null is the zero value', kind: 'Deployment', body: deployment({ replicas: null, strategy: null }), validation: 'Strict', want: deployment({ replicas: null, strategy: null }) },
    { name: 'an IntOrString takes an int or a string', kind: 'Deployment', body: deployment({ strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: '10%' } } }), validation: 'Strict', want: deployment({ strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: '10%' } } }) },
    {
      name: 'a Quantity takes a string or a number',
      kind: 'PersistentVolumeClaim',
      body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { resources: { requests: { storage: '1Gi', cpu: 1 } } } },
      validation: 'Strict',
      want: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { resources: { requests: { storage: '1Gi', cpu: 1 } } } },
    },
    {
      name: 'a RawExtension holds any object',
      kind: 'ControllerRevision',
      body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { spec: { anything: [1, 'x'] } }, revision: 1 },
      validation: 'Strict',
      want: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { spec: { anything: [1, 'x'] } }, revision: 1 },
    },
    {
      name: 'a custom resource is left to its own validation',
      kind: 'TidbCluster',
      body: { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic' }, spec: { pd: { replica: 3 } } },
      validation: 'Strict',
      want: { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: 'basic' }, spec: { pd: { replica: 3 } } },
    },
  ])('$name', ({ kind, body, validation, want }) => {
    // Act
    const kept = decodeBuiltinFields(mustResource(kind), body, validation);
    // Assess
    expect(kept).toEqual(want);
  });
});
