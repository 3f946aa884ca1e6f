import { describe, expect, it } from '@jest/globals';

import { formatClusterKey, parseClusterKey } from '../../lib/model/key.js';

describe('cluster keys: <k8sCluster>/<namespace>/<name>', () => {
  it.each([
    { name: 'an EKS cluster key', key: 'eks-prod/tidb/basic', ref: { k8sCluster: 'eks-prod', namespace: 'tidb', name: 'basic' } },
    { name: 'a dotted cluster and object name', key: 'kind.local/ns-1/tc.v2', ref: { k8sCluster: 'kind.local', namespace: 'ns-1', name: 'tc.v2' } },
  ])('parses and formats back: $name', ({ key, ref }) => {
    // Act
    const parsed = parseClusterKey(key);
    // Assess
    expect(parsed).toEqual({ ok: true, ref });
    expect(formatClusterKey(ref)).toBe(key);
  });

  it.each([
    { name: 'two parts', key: 'tidb/basic', field: 'key' },
    { name: 'four parts', key: 'a/b/c/d', field: 'key' },
    { name: 'an empty cluster', key: '/tidb/basic', field: 'k8sCluster' },
    { name: 'a cluster with #', key: 'eks#1/tidb/basic', field: 'k8sCluster' },
    { name: 'an upper-case namespace', key: 'eks/TiDB/basic', field: 'namespace' },
    { name: 'a namespace of 64 characters', key: `eks/${'n'.repeat(64)}/basic`, field: 'namespace' },
    { name: 'a name ending in a dash', key: 'eks/tidb/basic-', field: 'name' },
    { name: 'an empty name', key: 'eks/tidb/', field: 'name' },
  ])('rejects $name, naming the bad part', ({ key, field }) => {
    const parsed = parseClusterKey(key);
    expect(parsed).toMatchObject({ ok: false, field });
  });

  it('refuses to format a key that would not parse', () => {
    expect(() => formatClusterKey({ k8sCluster: 'eks', namespace: 'a/b', name: 'c' })).toThrow(/namespace must be a DNS-1123 label/);
  });
});
