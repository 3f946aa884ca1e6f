import { describe, it, expect } from '@jest/globals';

import { MAX_EKS_CLUSTERS, parseEksClusters } from '../../../lib/platform/eks-clusters.js';
import { lambdaSettings } from '../../../lib/wiring/lambda-env.js';

const CA = 'LS0tLS1CRUdJTg==';
const entry = (name: string, extra: Record<string, unknown> = {}) => ({ name, endpoint: `https://${name}.gr7.us-east-1.eks.amazonaws.com`, caData: CA, region: 'us-east-1', ...extra });
const deployment = {
  AWS_REGION: 'us-east-1',
  STATE_TABLE: 'state',
  RECONCILE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
  RECONCILE_QUEUE_ARN: 'arn:aws:sqs:us-east-1:123456789012:q',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
};

describe('the EKS cluster registry (EKS_CLUSTERS)', () => {
  it('unset: the single-cluster variables are read as before (a registry of one)', () => {
    // Act
    const settings = lambdaSettings({ ...deployment, CLUSTER_NAME: 'prod', KUBE_ENDPOINT: 'https://prod.example', KUBE_CA_DATA: CA });

    // Assess
    expect(parseEksClusters({ CLUSTER_NAME: 'prod' })).toBeUndefined();
    expect(settings.eksClusters).toEqual([{ name: 'prod', endpoint: 'https://prod.example', caData: CA, region: 'us-east-1', authentication: 'iam-token' }]);
  });

  it('set: every entry, the region defaulting to AWS_REGION, the first entry as the settings’ cluster', () => {
    // Act
    const settings = lambdaSettings({ ...deployment, EKS_CLUSTERS: JSON.stringify([entry('prod-a'), { ...entry('prod-b'), region: undefined }]) });

    // Assess
    expect(settings.eksClusters.map((c) => [c.name, c.region, c.authentication])).toEqual([['prod-a', 'us-east-1', 'iam-token'], ['prod-b', 'us-east-1', 'iam-token']]);
    expect(settings.clusterName).toBe('prod-a');
  });

  it.each([
    { name: 'not JSON', value: '[{', says: /EKS_CLUSTERS: not valid JSON/ },
    { name: 'an empty array', value: '[]', says: /EKS_CLUSTERS: must be a non-empty JSON array/ },
    { name: 'an entry that is not an object', value: '["prod"]', says: /EKS_CLUSTERS\[0\]: must be an object/ },
    { name: 'a missing endpoint beside CA data', value: JSON.stringify([{ ...entry('a'), endpoint: undefined }]), says: /EKS_CLUSTERS\[0\]\.endpoint: missing/ },
    { name: 'a missing caData beside an endpoint', value: JSON.stringify([{ ...entry('a'), caData: undefined }]), says: /EKS_CLUSTERS\[0\]\.caData: missing/ },
    { name: 'an empty endpoint and caData', value: JSON.stringify([entry('a', { endpoint: '', caData: '' })]), says: /EKS_CLUSTERS\[0\]\.endpoint: must be a non-empty string/ },
    { name: 'a value over 4 KB', value: JSON.stringify([entry('a', { caData: 'A'.repeat(4096) })]), says: /EKS_CLUSTERS: 4\d{3} bytes, above Lambda's 4 KB limit for all environment variables; leave out endpoint and caData/ },
    { name: 'an endpoint that is not https', value: JSON.stringify([entry('a', { endpoint: 'http://a' })]), says: /EKS_CLUSTERS\[0\]\.endpoint: "http:\/\/a" must be an https URL/ },
    { name: 'a name EKS refuses', value: JSON.stringify([entry('a'), entry('b/c')]), says: /EKS_CLUSTERS\[1\]\.name: "b\/c" is not an EKS cluster name/ },
    { name: 'a name registered twice', value: JSON.stringify([entry('a'), entry('a')]), says: /EKS_CLUSTERS\[1\]\.name: "a" is registered twice/ },
    { name: 'CA data that is not base64', value: JSON.stringify([entry('a', { caData: '-----BEGIN' })]), says: /EKS_CLUSTERS\[0\]\.caData: must be base64/ },
    { name: 'a region that is not one', value: JSON.stringify([entry('a', { region: 'mars' })]), says: /EKS_CLUSTERS\[0\]\.region: "mars" is not an AWS region/ },
    { name: 'an unknown authentication', value: JSON.stringify([entry('a', { authentication: 'kubeconfig' })]), says: /EKS_CLUSTERS\[0\]\.authentication: "kubeconfig" must be one of iam-token/ },
    { name: 'a misspelt field', value: JSON.stringify([entry('a', { endpiont: 'x' })]), says: /EKS_CLUSTERS\[0\]\.endpiont: not a field of a cluster entry/ },
  ])('a bad registry is refused naming the field: $name', ({ value, says }) => {
    // Act
    const read = () => lambdaSettings({ ...deployment, EKS_CLUSTERS: value });

    // Assess
    expect(read).toThrow(says);
  });

  it('EKS_CLUSTERS beside the single-cluster variables is refused naming them, never echoing CA data', () => {
    // Act
    const read = () => lambdaSettings({ ...deployment, EKS_CLUSTERS: JSON.stringify([entry('a', { caData: 'not base64!' })]), CLUSTER_NAME: 'a', KUBE_CA_DATA: CA });

    // Assess
    expect(read).toThrow(/EKS_CLUSTERS: set together with CLUSTER_NAME, KUBE_CA_DATA/);
    expect(read).toThrow(expect.objectContaining({ message: expect.not.stringContaining('not base64!') }));
  });

  it.each([
    { name: 'one entry', count: 1 },
    { name: 'the most entries a registry may hold', count: MAX_EKS_CLUSTERS },
  ])('entries without endpoint and caData are kept for DescribeCluster, and fit in 4 KB: $name', ({ count }) => {
    // Arrange: the longest realistic names (EKS allows 100 characters; these are 22), an explicit region.
    const value = JSON.stringify(Array.from({ length: count }, (_, i) => ({ name: `prod-tidb-eu-west-${String(i).padStart(4, '0')}`, region: 'eu-west-1' })));

    // Act
    const registry = parseEksClusters({ EKS_CLUSTERS: value });

    // Assess
    expect(Buffer.byteLength(value)).toBeLessThanOrEqual(4096);
    expect(registry).toEqual({ ok: true, clusters: expect.any(Array) });
    const clusters = registry?.ok ? registry.clusters : [];
    expect(clusters).toHaveLength(count);
    expect(clusters[0]).toEqual({ name: 'prod-tidb-eu-west-0000', region: 'eu-west-1', authentication: 'iam-token' });
  });
});
