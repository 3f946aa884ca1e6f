import { describe, expect, it } from '@jest/globals';

import { statusBody } from '../../lib/sim/api-error.js';
import { forbidden, requestAttributes } from '../../lib/sim/request-attributes.js';

const res = (verb: string, apiGroup: string, resource: string, subresource: string, namespace: string, name: string): unknown => ({ kind: 'resource', verb, apiGroup, resource, subresource, namespace, name });

describe('request attributes, as requestinfo.go reads them', () => {
  it.each([
    { name: 'a namespaced list', method: 'GET', path: '/api/v1/namespaces/demo/pods', query: '', want: res('list', '', 'pods', '', 'demo', '') },
    { name: 'a list across namespaces', method: 'GET', path: '/api/v1/pods', query: '', want: res('list', '', 'pods', '', '', '') },
    { name: 'a get of one object', method: 'GET', path: '/api/v1/namespaces/demo/pods/basic-pd-0', query: '', want: res('get', '', 'pods', '', 'demo', 'basic-pd-0') },
    { name: 'a watch by query', method: 'GET', path: '/apis/apps/v1/statefulsets', query: 'watch=1', want: res('watch', 'apps', 'statefulsets', '', '', '') },
    { name: 'a watch by the legacy prefix', method: 'GET', path: '/apis/pingcap.com/v1alpha1/watch/namespaces/demo/tidbclusters', query: '', want: res('watch', 'pingcap.com', 'tidbclusters', '', 'demo', '') },
    { name: 'a watch of one object by field selector', method: 'GET', path: '/api/v1/namespaces/demo/pods', query: 'watch=true&fieldSelector=metadata.name%3Dbasic-pd-0', want: res('watch', '', 'pods', '', 'demo', 'basic-pd-0') },
    { name: 'a create', method: 'POST', path: '/api/v1/namespaces/demo/configmaps', query: '', want: res('create', '', 'configmaps', '', 'demo', '') },
    { name: 'a status update', method: 'PUT', path: '/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters/basic/status', query: '', want: res('update', 'pingcap.com', 'tidbclusters', 'status', 'demo', 'basic') },
    { name: 'a patch', method: 'PATCH', path: '/api/v1/persistentvolumes/pv-1', query: '', want: res('patch', '', 'persistentvolumes', '', '', 'pv-1') },
    { name: 'a delete', method: 'DELETE', path: '/api/v1/namespaces/demo/pods/basic-pd-0', query: '', want: res('delete', '', 'pods', '', 'demo', 'basic-pd-0') },
    { name: 'a delete of a collection', method: 'DELETE', path: '/api/v1/namespaces/demo/pods', query: '', want: res('deletecollection', '', 'pods', '', 'demo', '') },
    { name: 'a POST through the pod proxy', method: 'POST', path: '/api/v1/namespaces/demo/pods/https:basic-pd-0:2379/proxy/pd/api/v1/leader/transfer/x', query: '', want: res('create', '', 'pods', 'proxy', 'demo', 'https:basic-pd-0:2379') },
    { name: 'a GET through the service proxy', method: 'GET', path: '/api/v1/namespaces/demo/services/basic-pd:2379/proxy/pd/api/v1/members', query: '', want: res('get', '', 'services', 'proxy', 'demo', 'basic-pd:2379') },
    { name: 'a pod log', method: 'GET', path: '/api/v1/namespaces/demo/pods/basic-pd-0/log', query: '', want: res('get', '', 'pods', 'log', 'demo', 'basic-pd-0') },
    { name: 'a namespace itself', method: 'GET', path: '/api/v1/namespaces/demo', query: '', want: res('get', '', 'namespaces', '', 'demo', 'demo') },
    { name: 'a scale', method: 'PATCH', path: '/apis/apps/v1/namespaces/demo/statefulsets/basic-pd/scale', query: '', want: res('patch', 'apps', 'statefulsets', 'scale', 'demo', 'basic-pd') },
    { name: 'a review', method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', query: '', want: res('create', 'authorization.k8s.io', 'selfsubjectaccessreviews', '', '', '') },
    { name: 'discovery of the core group', method: 'GET', path: '/api/v1', query: '', want: { kind: 'nonResource', verb: 'get', path: '/api/v1' } },
    { name: 'discovery of a group', method: 'GET', path: '/apis/apps', query: '', want: { kind: 'nonResource', verb: 'get', path: '/apis/apps' } },
    { name: 'the OpenAPI document', method: 'GET', path: '/openapi/v3', query: '', want: { kind: 'nonResource', verb: 'get', path: '/openapi/v3' } },
    { name: 'the version', method: 'GET', path: '/version', query: '', want: { kind: 'nonResource', verb: 'get', path: '/version' } },
  ])('$name', ({ method, path, query, want }) => {
    expect(requestAttributes(method, path, new URLSearchParams(query))).toEqual(want);
  });
});

describe("the 403 in kube-apiserver's words", () => {
  const user = 'arn:aws:sts::000000000000:assumed-role/r/f';
  it.each([
    { name: 'a namespaced list', method: 'GET', path: '/api/v1/namespaces/demo/pods', want: `pods is forbidden: User "${user}" cannot list resource "pods" in API group "" in the namespace "demo"` },
    { name: 'at the cluster scope', method: 'GET', path: '/apis/pingcap.com/v1alpha1/tidbclusters', want: `tidbclusters.pingcap.com is forbidden: User "${user}" cannot list resource "tidbclusters" in API group "pingcap.com" at the cluster scope` },
    { name: 'a watch', method: 'GET', path: '/apis/apps/v1/statefulsets?watch=1', want: `statefulsets.apps is forbidden: User "${user}" cannot watch resource "statefulsets" in API group "apps" at the cluster scope` },
    { name: 'a named object with a subresource', method: 'POST', path: '/api/v1/namespaces/demo/pods/basic-pd-0/proxy/x', want: `pods "basic-pd-0" is forbidden: User "${user}" cannot create resource "pods/proxy" in API group "" in the namespace "demo"` },
    { name: 'a named object', method: 'GET', path: '/api/v1/namespaces/demo/secrets/basic-cluster-client-secret', want: `secrets "basic-cluster-client-secret" is forbidden: User "${user}" cannot get resource "secrets" in API group "" in the namespace "demo"` },
    { name: 'a non-resource path', method: 'GET', path: '/metrics', want: `forbidden: User "${user}" cannot get path "/metrics"` },
  ])('$name', ({ method, path, want }) => {
    const url = new URL(path, 'http://sim');
    const error = forbidden(user, requestAttributes(method, url.pathname, url.searchParams));
    expect(statusBody(error)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: want });
  });

  it('carries the details kube-apiserver gives (name, group, kind = the resource)', () => {
    const error = forbidden('bob', requestAttributes('DELETE', '/apis/apps/v1/namespaces/demo/statefulsets/basic-pd', new URLSearchParams()));
    expect(statusBody(error)['details']).toEqual({ name: 'basic-pd', group: 'apps', kind: 'statefulsets' });
  });
});
