/**
 * The API request budget held in the state table: one item per EKS cluster (partition key
 * `budget#<eks-cluster>`, sort key `budget`) whose `tatMs` is the GCRA schedule (gcra.ts). Every
 * Lambda container of every function reserves against the same item, so the budget holds for the
 * deployment however many containers run — a per-container bucket would allow the rate once per
 * container (docs/adr/0028).
 *
 * A reservation is one conditional UpdateItem, atomic on the server: `SET tatMs = tatMs + :cost`
 * while the schedule is at or ahead of now (a busy budget), else `SET tatMs = :now + :cost` while it
 * is behind now or absent (an idle one). DynamoDB's update expressions have no max(), so the two
 * cases are two conditions; a race between them (another container moved the schedule past now in
 * between) is retried, at most `RESERVE_ATTEMPTS` requests in all
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html).
 * One item takes up to 1 000 writes a second (a partition's limit,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html): at
 * ~25 API requests a step and 50 a second, two steps a second write it. TTL removes an idle item.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, TransientError } from '../platform/errors.js';
import { mapDynamoError } from '../state/errors.js';
import { callSignal } from '../state/requests.js';
import type { CallOptions } from '../state/port.js';
import { ATTR } from '../state/table.js';
import { scheduleMs, startAtMs, type BudgetRate } from './gcra.js';
import type { ApiBudget } from './port.js';

/** The sort key of a budget item. */
export const BUDGET_SK = 'budget';
/** Requests one reservation makes at most (busy, idle, busy again after a race). */
export const RESERVE_ATTEMPTS = 4;
/**
 * How long a budget item is kept after its last reservation: a day, far beyond any schedule the
 * fleet can owe (a day at 50 requests a second is 4.3 million requests), so TTL never forgets a busy one.
 */
export const BUDGET_TTL_SECONDS = 86_400;
/** How long one reservation may take by default. */
const DEFAULT_TIMEOUT_MS = 2_000;

/** The partition key of `k8sCluster`'s budget. */
export function budgetPk(k8sCluster: string): string {
  return `budget#${k8sCluster}`;
}

/** `ApiBudget` in the state table (see the module comment). */
export class DynamoApiBudget implements ApiBudget {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient | DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.doc = client instanceof DynamoDBDocumentClient ? client : DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async reserve(k8sCluster: string, requests: number, nowMs: number, rate: BudgetRate, opts?: CallOptions): Promise<number> {
    const signal = callSignal(opts, DEFAULT_TIMEOUT_MS);
    const costMs = scheduleMs(requests, rate);
    for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt++) {
      const busy = attempt % 2 === 0;
      const tatMs = await this.update(k8sCluster, busy, nowMs, costMs, signal);
      if (tatMs !== undefined) return startAtMs(tatMs, nowMs, rate);
    }
    throw new TransientError(`reserve ${requests} API requests of ${k8sCluster}'s budget: the schedule kept changing (${RESERVE_ATTEMPTS} attempts)`);
  }

  /** One conditional update: extend a busy schedule, or start an idle one from now; the new schedule, or undefined when the condition did not hold. */
  private async update(k8sCluster: string, busy: boolean, nowMs: number, costMs: number, signal: AbortSignal): Promise<number | undefined> {
    const expiresAt = Math.floor(nowMs / 1000) + BUDGET_TTL_SECONDS;
    const input = {
      TableName: this.tableName,
      Key: { [ATTR.pk]: budgetPk(k8sCluster), [ATTR.sk]: BUDGET_SK },
      UpdateExpression: busy ? 'SET tatMs = tatMs + :cost, #ttl = :ttl' : 'SET tatMs = :start, #ttl = :ttl',
      ConditionExpression: busy ? 'tatMs >= :now' : 'attribute_not_exists(tatMs) OR tatMs < :now',
      ExpressionAttributeNames: { '#ttl': ATTR.expiresAt },
      ExpressionAttributeValues: busy ? { ':cost': costMs, ':now': nowMs, ':ttl': expiresAt } : { ':start': nowMs + costMs, ':now': nowMs, ':ttl': expiresAt },
      ReturnValues: 'UPDATED_NEW' as const,
    };
    try {
      signal.throwIfAborted();
      const out = await this.doc.send(new UpdateCommand(input), { abortSignal: signal });
      const tat = out.Attributes?.['tatMs'];
      if (typeof tat !== 'number') throw new TransientError(`reserve of ${k8sCluster}'s budget: UpdateItem returned no tatMs`);
      return tat;
    } catch (err) {
      const mapped = mapDynamoError(err, `reserve API requests of ${k8sCluster}'s budget`);
      if (mapped instanceof ConflictError) return undefined;
      throw mapped;
    }
  }
}
