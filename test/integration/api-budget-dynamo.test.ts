/**
 * The API request budget held in the state table (lib/budget/dynamo.ts, docs/adr/0028) against
 * dynalite: reservations from many containers at once (each its own client) share one schedule per
 * EKS cluster — exactly what one process's arithmetic gives — so together they keep the rate; an idle
 * budget starts from now; each EKS cluster has its own item, with a TTL.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { budgetPk, BUDGET_SK, BUDGET_TTL_SECONDS, DynamoApiBudget } from '../../lib/budget/dynamo.js';
import { localClient, startDynaliteWithTable, type LocalDynamo } from '../support/dynamo.js';

const TABLE = 'tidb-reconciler-state';
const T0 = Date.UTC(2026, 0, 1);
const RATE = { requestsPerSecond: 50, burstRequests: 50 };

let local: LocalDynamo;

beforeAll(async () => {
  local = await startDynaliteWithTable(TABLE);
}, 30_000);

afterAll(async () => {
  await local.stop();
});

async function tatOf(k8sCluster: string): Promise<unknown> {
  const out = await DynamoDBDocumentClient.from(local.client).send(new GetCommand({ TableName: TABLE, Key: { pk: budgetPk(k8sCluster), sk: BUDGET_SK } }));
  return out.Item;
}

describe('the API budget in the state table', () => {
  it('an idle budget starts from now: the first two full steps start at once, the third half a second later', async () => {
    const budget = new DynamoApiBudget(local.client, TABLE);
    const starts = [await budget.reserve('eks-a', 25, T0, RATE), await budget.reserve('eks-a', 25, T0, RATE), await budget.reserve('eks-a', 25, T0, RATE)];
    expect(starts).toEqual([T0, T0, T0 + 500]);
    expect(await tatOf('eks-a')).toMatchObject({ tatMs: T0 + 1_500, expiresAt: T0 / 1000 + BUDGET_TTL_SECONDS });
  });

  it('a budget behind now starts again from now', async () => {
    const budget = new DynamoApiBudget(local.client, TABLE);
    await budget.reserve('eks-b', 200, T0, RATE);
    expect(await budget.reserve('eks-b', 25, T0 + 60_000, RATE)).toBe(T0 + 60_000);
    expect(await tatOf('eks-b')).toMatchObject({ tatMs: T0 + 60_500 });
  });

  it('40 reservations from 8 containers at once share one schedule: every one counted once, the starts spaced at the rate', async () => {
    // Prepare: 8 containers, each its own client and adapter.
    const clients = Array.from({ length: 8 }, () => localClient(local.endpoint));
    const containers = clients.map((c) => new DynamoApiBudget(c, TABLE));
    try {
      // Act
      const starts = await Promise.all(Array.from({ length: 40 }, (_, i) => containers[i % 8]?.reserve('eks-c', 25, T0, RATE)));
      // Assess: 40 × 25 requests at 50 a second is 20 s of schedule; two start at once, then two a second.
      expect(await tatOf('eks-c')).toMatchObject({ tatMs: T0 + 20_000 });
      const sorted = (starts as number[]).sort((a, b) => a - b);
      expect(sorted).toEqual(Array.from({ length: 40 }, (_, i) => T0 + Math.max(0, (i - 1) * 500)));
    } finally {
      clients.forEach((c) => c.destroy());
    }
  });

  it('each EKS cluster has its own budget', async () => {
    const budget = new DynamoApiBudget(local.client, TABLE);
    await budget.reserve('eks-d', 500, T0, RATE);
    expect([await budget.reserve('eks-d', 25, T0, RATE), await budget.reserve('eks-e', 25, T0, RATE)]).toEqual([T0 + 9_500, T0]);
  });
});
