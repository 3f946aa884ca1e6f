/**
 * One real cluster at rest, to copy into a fleet: test/scenarios/at-rest-load.yaml (PD 3, TiKV 3,
 * TiDB 2, TiFlash 1, TiCDC 2, Pump 1) run on the simulated stack to Ready and 10 minutes of rest,
 * then its TidbCluster (spec and status, as the API server serves it) and its items in the state
 * table — the state item (lease released, last step, the fence of the kept read, the health check
 * pending) and the kept read beside it (lib/state/rest-reads.ts) — as the stack left them.
 */
import { join } from 'node:path';
import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { createProgress } from '../lib/local/scenario/progress.js';
import type { Scenario } from '../lib/local/scenario/types.js';
import { SimStack } from '../lib/local/sim-stack.js';
import { runScenario } from '../lib/local/simulate.js';
import { clusterPk, STATE_SK } from '../lib/state/keys.js';
import { REST_READ_SK } from '../lib/state/rest-reads.js';
import { ATTR } from '../lib/state/table.js';
import type { KubeObject } from '../lib/sim/object.js';
import { loadScenario } from './probes.js';

const FILE = join(import.meta.dirname, '..', 'test', 'scenarios', 'at-rest-load.yaml');

/** A DynamoDB item as the low-level client gives it. */
export type RawItem = Record<string, AttributeValue>;

/** What the sample cluster left: its object, its state-table items, and the virtual time they were taken at. */
export type ClusterSample = { readonly cluster: KubeObject; readonly items: readonly RawItem[]; readonly atMs: number; readonly key: string };

/** Runs the story and takes the sample (see the module comment). */
export async function sampleClusterAtRest(): Promise<ClusterSample> {
  const file = loadScenario(FILE);
  const { expect: _bounds, ...rest } = file;
  const first = file.timeline[0];
  if (first === undefined) throw new Error(`${FILE}: no timeline`);
  const scenario: Scenario = { ...rest, timeline: [first, { index: 1, verb: 'advance', durationMs: 600_000 }] };
  const stack = await SimStack.start(scenario, scenario.seed);
  try {
    const report = await runScenario(stack, createProgress({ quiet: true }));
    const failed = report.timeline.find((e) => !e.ok);
    if (failed !== undefined) throw new Error(`${FILE}: the sample cluster did not come to rest: ${JSON.stringify(failed)}`);
    const { namespace, name } = file.cluster.metadata;
    const cluster = stack.world.store.get('TidbCluster', namespace, String(name));
    if (cluster === undefined) throw new Error(`${FILE}: TidbCluster ${namespace}/${name} is gone`);
    const key = `${stack.runtime.k8sCluster}/${namespace}/${name}`;
    const out = await stack.dynamo.client.send(new QueryCommand({ TableName: stack.dynamo.tableName, KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': ATTR.pk }, ExpressionAttributeValues: { ':pk': { S: clusterPk(key) } } }));
    const items = (out.Items ?? []).filter((item) => item[ATTR.sk]?.S === STATE_SK || item[ATTR.sk]?.S === REST_READ_SK);
    if (items.length !== 2) throw new Error(`${FILE}: expected the state item and the kept read of ${key}, found sort keys ${JSON.stringify(items.map((i) => i[ATTR.sk]?.S))}`);
    return { cluster, items, atMs: stack.clock.nowMs(), key };
  } finally {
    await stack.stop();
  }
}
