import { describe, it, expect } from '@jest/globals';

import { FleetExporter, parseExporterFleetEnv } from '../../lib/exporter/fleet.js';
import type { SessionSummary } from '../../lib/exporter/lambda.js';

const CA = 'LS0tLS1CRUdJTg==';
const base = { STATE_TABLE: 'state', RECONCILE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q', AWS_REGION: 'us-east-1' };
const entry = (name: string, region?: string) => ({ name, endpoint: `https://${name}.example`, caData: CA, ...(region ? { region } : {}) });
const summary = (ranForMs: number): SessionSummary => ({ runForMs: 1000, ranForMs, counts: {} as SessionSummary['counts'], positions: {}, plan: 'full', verdict: 'quiet' });

describe('the exporter of several EKS clusters', () => {
  it('one session settings per registered cluster, each with its own endpoint and region', () => {
    // Act
    const settings = parseExporterFleetEnv({ ...base, EKS_CLUSTERS: JSON.stringify([entry('a'), entry('b', 'eu-west-1')]) });

    // Assess
    expect(settings.map((s) => [s.k8sCluster, s.kube])).toEqual([
      ['a', { kind: 'eks', endpoint: 'https://a.example', caData: CA, clusterName: 'a', region: 'us-east-1' }],
      ['b', { kind: 'eks', endpoint: 'https://b.example', caData: CA, clusterName: 'b', region: 'eu-west-1' }],
    ]);
  });

  it('without EKS_CLUSTERS, the one cluster of CLUSTER_NAME as before', () => {
    expect(parseExporterFleetEnv({ ...base, CLUSTER_NAME: 'prod', KUBE_ENDPOINT: 'https://p.example', KUBE_CA_DATA: CA }).map((s) => s.k8sCluster)).toEqual(['prod']);
  });

  it('a bad registry is refused naming the entry and field', () => {
    expect(() => parseExporterFleetEnv({ ...base, EKS_CLUSTERS: JSON.stringify([entry('a'), { name: 'b', caData: CA }]) })).toThrow(/EKS_CLUSTERS\[1\]\.endpoint: missing/);
  });

  it("one cluster's failed session is reported under its name and never ends the other's", async () => {
    // Prepare
    const fleet = new FleetExporter([
      { k8sCluster: 'a', exporter: { run: async () => summary(900) } },
      { k8sCluster: 'b', exporter: { run: async () => Promise.reject(new Error('connect ECONNREFUSED')) } },
    ]);

    // Act
    const result = await fleet.run(60_000);

    // Assess
    expect(result).toEqual({ clusters: { a: summary(900), b: { error: 'connect ECONNREFUSED' } } });
  });

  it('every session failing fails the invocation', async () => {
    const fleet = new FleetExporter(['a', 'b'].map((k8sCluster) => ({ k8sCluster, exporter: { run: async () => Promise.reject(new Error('down')) } })));
    await expect(fleet.run(60_000)).rejects.toThrow(/every exporter session failed/);
  });
});
