/**
 * SubjectAccessReview on the simulated API server: the RBAC evaluator (lib/sim/rbac.ts) over the
 * stored Roles and bindings, asked through the reconciler's own KubeClient and over raw HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient } from '../../lib/kube/client.js';
import type { AccessReview } from '../../lib/kube/port.js';
import { startBareServer, type BareServer } from '../support/api-server.js';
import { bootstrapRbacObjects } from '../../lib/sim/bootstrap-rbac.js';

const RBAC = 'rbac.authorization.k8s.io';

describe('SubjectAccessReview on the simulated API server', () => {
  let api: BareServer;
  let kube: KubeClient;
  beforeAll(async () => {
    api = await startBareServer();
    kube = KubeClient.fromKubeConfig(api.kubeConfig);
    const s = api.store;
    s.create('Namespace', { metadata: { name: 'team-a' } });
    // What every world (and every real cluster) has: the default ClusterRoles and their bindings.
    for (const object of bootstrapRbacObjects()) s.create(String(object.kind), object);
    s.create('ClusterRole', { metadata: { name: 'tc-admin' }, rules: [{ apiGroups: ['pingcap.com'], resources: ['tidbclusters'], verbs: ['get', 'patch'] }] } as never);
    s.create('ClusterRole', { metadata: { name: 'proxy-only' }, rules: [{ apiGroups: [''], resources: ['pods/proxy'], verbs: ['*'] }] } as never);
    s.create('ClusterRole', { metadata: { name: 'any-status' }, rules: [{ apiGroups: ['*'], resources: ['*/status'], verbs: ['update'] }] } as never);
    s.create('Role', { metadata: { name: 'one-cluster', namespace: 'demo' }, rules: [{ apiGroups: ['pingcap.com'], resources: ['tidbclusters'], resourceNames: ['basic'], verbs: ['patch'] }] } as never);
    s.create('RoleBinding', { metadata: { name: 'team-a-admins', namespace: 'team-a' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'tc-admin' }, subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'team-a' }] } as never);
    s.create('RoleBinding', { metadata: { name: 'bob-basic', namespace: 'demo' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'one-cluster' }, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'bob' }] } as never);
    s.create('RoleBinding', { metadata: { name: 'sa-proxy', namespace: 'demo' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'proxy-only' }, subjects: [{ kind: 'ServiceAccount', name: 'probe' }] } as never);
    s.create('RoleBinding', { metadata: { name: 'dangling', namespace: 'demo' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'gone' }, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'carol' }] } as never);
    s.create('ClusterRoleBinding', { metadata: { name: 'all-sa-status' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'any-status' }, subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'system:serviceaccounts' }] } as never);
  }, 30_000);
  afterAll(async () => {
    await api.close();
  });

  const tc = { verb: 'patch', group: 'pingcap.com', resource: 'tidbclusters' };
  it.each<{ name: string; review: AccessReview; allowed: boolean; reason: string }>([
    { name: 'a group bound in its namespace may patch there', review: { user: 'alice', groups: ['team-a'], ...tc, namespace: 'team-a' }, allowed: true, reason: 'RBAC: allowed by RoleBinding "team-a-admins/team-a" of ClusterRole "tc-admin" to Group "team-a"' },
    { name: 'the same group may not patch in another namespace', review: { user: 'alice', groups: ['team-a'], ...tc, namespace: 'demo' }, allowed: false, reason: '' },
    { name: 'a verb the role does not list is not allowed', review: { user: 'alice', groups: ['team-a'], ...tc, verb: 'delete', namespace: 'team-a' }, allowed: false, reason: '' },
    { name: 'resourceNames allow the named object only', review: { user: 'bob', groups: [], ...tc, namespace: 'demo', name: 'basic' }, allowed: true, reason: 'RBAC: allowed by RoleBinding "bob-basic/demo" of Role "one-cluster" to User "bob"' },
    { name: 'resourceNames never allow another object', review: { user: 'bob', groups: [], ...tc, namespace: 'demo', name: 'other' }, allowed: false, reason: '' },
    { name: 'a rule for pods/proxy does not allow the pods themselves', review: { user: 'system:serviceaccount:demo:probe', groups: ['system:serviceaccounts', 'system:serviceaccounts:demo'], verb: 'get', group: '', resource: 'pods', namespace: 'demo' }, allowed: false, reason: '' },
    { name: 'a missing role is named in the denial', review: { user: 'carol', groups: [], ...tc, namespace: 'demo' }, allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' },
    { name: 'system:masters is allowed everything', review: { user: 'root', groups: ['system:masters'], verb: 'delete', group: '', resource: 'nodes', namespace: '' }, allowed: true, reason: '' },
  ])('$name', async ({ review, allowed, reason }) => {
    // Act
    const decision = await kube.reviewAccess(review);
    // Assess
    expect(decision).toEqual({ allowed, denied: false, reason });
  });

  it.each([
    { name: 'a ServiceAccount subject without a namespace is the binding\'s, and pods/proxy matches that subresource', attrs: { verb: 'get', resource: 'pods', subresource: 'proxy', namespace: 'demo' }, user: 'system:serviceaccount:demo:probe', groups: [], allowed: true },
    { name: '*/status matches the status of any resource', attrs: { verb: 'update', group: 'apps', resource: 'statefulsets', subresource: 'status', namespace: 'demo' }, user: 'system:serviceaccount:x:y', groups: ['system:serviceaccounts'], allowed: true },
    { name: '*/status does not match the object itself', attrs: { verb: 'update', group: 'apps', resource: 'statefulsets', namespace: 'demo' }, user: 'system:serviceaccount:x:y', groups: ['system:serviceaccounts'], allowed: false },
  ])('$name', async ({ attrs, user, groups, allowed }) => {
    // Act
    const r = await api.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: attrs } });
    // Assess
    expect(r.status).toBe(201);
    expect(r.body.status.allowed).toBe(allowed);
  });

  it.each([
    { name: 'neither user nor group', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } }, message: 'spec.user: Invalid value: "": at least one of user or group must be specified' },
    { name: 'no attributes', spec: { user: 'a' }, message: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' },
  ])('a review with $name is refused 422', async ({ spec, message }) => {
    const r = await api.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain(message);
  });

  it('a review is never stored: GET is not allowed, and discovery lists both reviews as create-only', async () => {
    const get = await api.call('GET', '/apis/authorization.k8s.io/v1/subjectaccessreviews');
    const discovery = await api.call('GET', '/apis/authorization.k8s.io/v1');
    expect(get.status).toBe(405);
    expect(discovery.body.resources).toEqual([
      { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
    ]);
  });

  it.each([
    { name: 'the version, to anyone authenticated (system:public-info-viewer)', user: 'x', groups: ['system:authenticated'], path: '/version', allowed: true },
    { name: 'discovery, to anyone authenticated (system:discovery)', user: 'x', groups: ['system:authenticated'], path: '/apis/apps/v1', allowed: true },
    { name: 'the OpenAPI document, to anyone authenticated', user: 'x', groups: ['system:authenticated'], path: '/openapi/v3/apis/apps/v1', allowed: true },
    { name: 'discovery, not to a caller outside system:authenticated', user: 'x', groups: ['other'], path: '/apis', allowed: false },
    { name: 'an unknown path, to nobody but system:masters', user: 'x', groups: ['system:authenticated'], path: '/metrics', allowed: false },
  ])('non-resource: $name', async ({ user, groups, path, allowed }) => {
    const res = await api.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { user, groups, nonResourceAttributes: { verb: 'get', path } } });
    expect(res.body.status.allowed).toBe(allowed);
  });
});
