/**
 * The deletion story: a TidbCluster is deleted while the reconciler holds a failover deadline and a
 * long (Scheduler) wake-up for it, and afterwards no state of the cluster remains in DynamoDB except
 * items with a TTL. It runs the real stack (exporter, handlers, engine, dynalite, simulated world) on
 * a virtual clock like every scenario, and checks the table from the test side.
 *
 * It is not a file in test/scenarios yet: deleting the cluster makes the PD quorum monitor count the
 * garbage-collected pods as a quorum loss the reconciler caused, so the run cannot pass as a whole
 * until that monitor learns about deletions. The story's own assertions are made here instead.
 */
import { describe, expect, it } from '@jest/globals';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import { SimStack } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';

const STORY = `name: pd-delete-forget
description: >
  A three-member PD cluster gets Ready, then basic-pd-1's process dies and, with a 30-minute
  pdFailoverPeriod, the reconciler records its failover deadline and arms a long (EventBridge
  Scheduler) wake-up for it. Before the deadline the TidbCluster is deleted: the next step finds it
  gone and forgets the key — its deadline deleted, the long wake-up cancelled, its state item given a
  TTL — and the wake-ups already in flight find nothing to do. No state for the cluster remains
  except what DynamoDB's TTL removes.
seed: 1
config:
  autoFailover: true
  pdFailoverPeriod: 30m
cluster:
  apiVersion: pingcap.com/v1alpha1
  kind: TidbCluster
  metadata:
    name: basic
    namespace: demo
  spec:
    version: v8.5.0
    timezone: UTC
    pvReclaimPolicy: Retain
    configUpdateStrategy: RollingUpdate
    discovery: {}
    pd:
      baseImage: pingcap/pd
      replicas: 3
      maxFailoverCount: 3
      requests:
        storage: 1Gi
      config: |
        [replication]
        max-replicas = 3
timeline:
  - waitFor: ready
    timeout: 10m
  - fault: {kind: pod-down, pod: basic-pd-1}
  - waitFor:
      jsonpath: "$.status.pd.members['basic-pd-1'].health"
      equals: false
    timeout: 5m
  - advance: 2m
  - delete: true
  # Past the failover deadline and several sweeps: nothing may act on the deleted cluster.
  - advance: 40m
`;

type Item = Record<string, unknown>;

/** Runs the story for `seed` and returns its report and every table item of the cluster. */
async function runStory(seed: number): Promise<{ report: ScenarioReport; items: Item[]; epochMs: number }> {
  const parsed = parseScenario(STORY, 'pd-delete-forget.yaml');
  if (!parsed.ok) throw new Error(parsed.error);
  const stack = await SimStack.start(parsed.scenario, seed);
  try {
    const report = await runScenario(stack, createProgress({ quiet: true }));
    const pk = `tc#${stack.runtime.k8sCluster}#demo#basic`;
    const out = await stack.dynamo.client.send(new QueryCommand({
      TableName: stack.dynamo.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: pk } },
      ConsistentRead: true,
    }));
    // Report times count from the run's start; table items carry the clock's epoch milliseconds.
    const epochMs = stack.clock.nowMs() - report.virtualMs;
    return { report, items: (out.Items ?? []).map((i) => unmarshall(i)), epochMs };
  } finally {
    await stack.stop();
  }
}

describe('deleting a TidbCluster leaves no state behind', () => {
  it.each([1, 2, 3])('seed %i: the deadline is gone, every remaining item has a TTL, and nothing steps the key again', async (seed) => {
    // Act
    const { report, items, epochMs } = await runStory(seed);

    // Assess: the timeline ran, and every monitor but PD quorum (see the module comment) is clean.
    expect(report.timeline.filter((t) => !t.ok)).toEqual([]);
    expect(report.invariants.filter((i) => i.name !== 'pd-quorum-kept').flatMap((i) => i.violations)).toEqual([]);
    const deletedAtMs = report.timeline.find((t) => t.verb === 'delete')?.startMs ?? Number.NaN;
    const state = items.find((i) => i['sk'] === 'state');
    expect(state).toMatchObject({ failures: 0, expiresAt: expect.any(Number) });
    expect(state?.['nextWakeAtMs']).toBeUndefined();
    expect(state?.['leaseOwner']).toBeUndefined();
    expect(items.filter((i) => String(i['sk']).startsWith('deadline#'))).toEqual([]);
    expect(items.filter((i) => typeof i['expiresAt'] !== 'number')).toEqual([]);
    // The deadline had been recorded, and its long wake-up (at 30 min) did not step the key: the last
    // step is one of those the deletion's watch events triggered.
    expect(report.actions.some((a) => a.verb === 'event' && (a.args as { reason?: string }).reason === 'PDMemberUnhealthy')).toBe(true);
    const lastStepAtMs = (state?.['lastStep'] as { atMs: number } | undefined)?.atMs ?? Number.NaN;
    expect(lastStepAtMs - epochMs).toBeGreaterThanOrEqual(deletedAtMs);
    expect(lastStepAtMs - epochMs).toBeLessThan(deletedAtMs + 60_000);
    expect(report.actions.filter((a) => a.actor === 'reconciler' && a.atMs > deletedAtMs)).toEqual([]);
  });
});
