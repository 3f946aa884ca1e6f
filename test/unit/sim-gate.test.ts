import { describe, expect, it } from '@jest/globals';

import { VirtualClock } from '../../lib/platform/clock.js';
import { ApiError } from '../../lib/sim/api-error.js';
import { CLUSTER_ADMIN_USER, TokenRegistry, serviceAccountUser } from '../../lib/sim/authn.js';
import { bootstrapRbacObjects } from '../../lib/sim/bootstrap-rbac.js';
import { ApiGate } from '../../lib/sim/gate.js';
import { ObjectStore } from '../../lib/sim/store.js';

const RBAC = 'rbac.authorization.k8s.io';

function gate(): { gate: ApiGate; admin: string; reader: string; sa: string } {
  const store = new ObjectStore(new VirtualClock());
  for (const object of bootstrapRbacObjects()) store.create(String(object.kind), object);
  store.create('Namespace', { metadata: { name: 'demo' } });
  store.create('ClusterRole', { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } as never);
  store.create('RoleBinding', { metadata: { name: 'readers', namespace: 'demo' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'pod-reader' }, subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'readers' }] } as never);
  store.create('RoleBinding', { metadata: { name: 'sa', namespace: 'demo' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'pod-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'probe' }] } as never);
  const g = new ApiGate(new TokenRegistry(), store);
  return { gate: g, admin: g.tokens.issue(CLUSTER_ADMIN_USER), reader: g.tokens.issue({ name: 'alice', groups: ['readers'] }), sa: g.tokens.issue(serviceAccountUser('demo', 'probe')) };
}

function outcome(g: ApiGate, method: string, path: string, headers: Record<string, string>): string {
  try {
    const user = g.check(method, new URL(path, 'http://sim'), headers);
    return `ok ${user.name} [${user.groups.join(',')}]`;
  } catch (err) {
    return err instanceof ApiError ? `${err.code} ${err.message}` : String(err);
  }
}

describe('the API server gate: authentication, impersonation, RBAC', () => {
  const g = gate();
  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
  it.each([
    { name: 'no token', method: 'GET', path: '/api/v1/namespaces/demo/pods', headers: {}, want: '401 Unauthorized' },
    { name: 'an unknown token', method: 'GET', path: '/api/v1/namespaces/demo/pods', headers: bearer('guessed'), want: '401 Unauthorized' },
    { name: 'no token, even for /version (no anonymous user)', method: 'GET', path: '/version', headers: {}, want: '401 Unauthorized' },
    { name: 'a group allowed by a RoleBinding', method: 'GET', path: '/api/v1/namespaces/demo/pods', headers: bearer(g.reader), want: 'ok alice [readers,system:authenticated]' },
    { name: 'the same list in another namespace', method: 'GET', path: '/api/v1/namespaces/default/pods', headers: bearer(g.reader), want: '403 pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"' },
    { name: 'a watch the rule does not grant', method: 'GET', path: '/api/v1/namespaces/demo/pods?watch=1', headers: bearer(g.reader), want: '403 pods is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "demo"' },
    { name: 'a ServiceAccount bound without a namespace in the subject', method: 'GET', path: '/api/v1/namespaces/demo/pods', headers: bearer(g.sa), want: 'ok system:serviceaccount:demo:probe [system:serviceaccounts,system:serviceaccounts:demo,system:authenticated]' },
    { name: 'discovery to an authenticated user (system:discovery)', method: 'GET', path: '/apis/apps/v1', headers: bearer(g.reader), want: 'ok alice [readers,system:authenticated]' },
    { name: 'a path no default role grants', method: 'GET', path: '/metrics', headers: bearer(g.reader), want: '403 forbidden: User "alice" cannot get path "/metrics"' },
    { name: 'a self access review (system:basic-user)', method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', headers: bearer(g.reader), want: 'ok alice [readers,system:authenticated]' },
    { name: 'impersonation by the admin', method: 'GET', path: '/api/v1/namespaces/demo/pods', headers: { ...bearer(g.admin), 'impersonate-user': 'bob', 'impersonate-group': 'readers' }, want: 'ok bob [readers,system:authenticated]' },
    { name: 'impersonation of a ServiceAccount adds its groups', method: 'GET', path: '/api/v1/namespaces/demo/pods', headers: { ...bearer(g.admin), 'impersonate-user': 'system:serviceaccount:demo:probe' }, want: 'ok system:serviceaccount:demo:probe [system:serviceaccounts,system:serviceaccounts:demo,system:authenticated]' },
    { name: 'the impersonated user is authorised, not the admin', method: 'GET', path: '/api/v1/namespaces/default/pods', headers: { ...bearer(g.admin), 'impersonate-user': 'bob', 'impersonate-group': 'readers' }, want: '403 pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"' },
    { name: 'impersonation by a user without the impersonate verb', method: 'GET', path: '/api/v1/namespaces/demo/pods', headers: { ...bearer(g.reader), 'impersonate-user': 'bob' }, want: '403 users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' },
  ])('$name', ({ method, path, headers, want }) => {
    expect(outcome(g.gate, method, path, headers)).toBe(want);
  });

  it('records each refusal and what each user was allowed', () => {
    const fresh = gate();
    outcome(fresh.gate, 'GET', '/api/v1/namespaces/demo/pods', bearer(fresh.reader));
    outcome(fresh.gate, 'DELETE', '/api/v1/namespaces/demo/pods/x', bearer(fresh.reader));
    expect([...(fresh.gate.usage.get('alice') ?? [])]).toEqual(['list "" pods']);
    expect(fresh.gate.denials.map((d) => d.message)).toEqual(['pods "x" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "demo"']);
  });

  it.each([
    { name: 'a Role granting what the writer holds there', resource: 'roles', namespace: 'demo', body: { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] }, want: 'ok' },
    { name: 'a Role granting more', resource: 'roles', namespace: 'demo', body: { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['list', 'watch'] }] }, want: '403 roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["readers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["list" "watch"]}' },
    { name: 'the same Role in a namespace the writer holds nothing in', resource: 'roles', namespace: 'default', body: { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] }, want: '403 roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["readers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["list"]}' },
    { name: 'a binding to a role whose permissions the writer holds', resource: 'rolebindings', namespace: 'demo', body: { metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'pod-reader' }, subjects: [] }, want: 'ok' },
    { name: 'a binding to cluster-admin', resource: 'rolebindings', namespace: 'demo', body: { metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [] }, want: '403 rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "alice" (groups=["readers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}' },
  ])('escalation prevention: $name', ({ resource, namespace, body, want }) => {
    const fresh = gate();
    let got = 'ok';
    try {
      fresh.gate.confirmNoEscalation({ name: 'alice', groups: ['readers', 'system:authenticated'] }, resource, namespace, body, 'create');
    } catch (err) {
      got = err instanceof ApiError ? `${err.code} ${err.message}` : String(err);
    }
    expect(got).toBe(want);
    expect(fresh.gate.denials).toHaveLength(want === 'ok' ? 0 : 1);
  });
});
