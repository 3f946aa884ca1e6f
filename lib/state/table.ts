/**
 * The state table (docs/ARCHITECTURE.md, State): one on-demand table with string keys `pk`/`sk` and the TTL attribute
 * `expiresAt`. Production creates it from infrastructure code; `ensureTable` is for local stacks
 * and tests against dynalite or DynamoDB Local.
 */

import {
  CreateTableCommand,
  DescribeTableCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

/**
 * Attribute names used by the adapter. The TTL attribute must stay `expiresAt` (epoch seconds):
 * that is what the table's TimeToLiveSpecification names.
 */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  key: 'clusterKey',
  leaseOwner: 'leaseOwner',
  leaseUntilMs: 'leaseUntilMs',
  fence: 'fence',
  dirty: 'dirty',
  failures: 'failures',
  nextWakeAtMs: 'nextWakeAtMs',
  lastStep: 'lastStep',
  expiresAt: 'expiresAt',
  /** The fence whose lease-expiry wake-up has been armed (one per held lease). */
  wakeFence: 'wakeFence',
  /** The key's deadlines: a map inside the state item, so each write is fenced in one request. */
  deadlines: 'deadlines',
  /** The store each pod of a store component was last seen running (a map inside the state item). */
  storeIds: 'storeIds',
  /** The layout version of the state item (`STATE_SCHEMA_VERSION`); absent on items older than it: 1. */
  schema: 'schemaVersion',
} as const;

/**
 * The layout of the state item this code reads and writes. Raise it when a change makes an item
 * mean something else to older code (a field renamed, re-encoded, or one whose absence older code
 * would misread): a claim writes it, and code of an older layout refuses to step a key whose item
 * carries a newer one instead of misreading it (docs/operations.md, Upgrading and rolling back).
 */
export const STATE_SCHEMA_VERSION = 1;

/** The TTL attribute name, for infrastructure code that enables TTL on the table. */
export const TTL_ATTRIBUTE = ATTR.expiresAt;

/** The CreateTable input for the state table: `pk` (hash) and `sk` (range) strings, PAY_PER_REQUEST. */
export function stateTableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: ATTR.pk, AttributeType: 'S' },
      { AttributeName: ATTR.sk, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: ATTR.pk, KeyType: 'HASH' },
      { AttributeName: ATTR.sk, KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

/**
 * Creates the state table if it does not exist and waits until it is ACTIVE; a table that already
 * exists (or is created concurrently) is left as is. TTL is not enabled here because dynalite has
 * no UpdateTimeToLive; deployed tables enable it on `expiresAt` in their template.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, maxWaitSeconds = 30): Promise<void> {
  if (!(await tableExists(client, tableName))) {
    try {
      await client.send(new CreateTableCommand(stateTableDefinition(tableName)));
    } catch (err) {
      // Another process created it between our DescribeTable and CreateTable.
      if (errorName(err) !== 'ResourceInUseException') throw err;
    }
  }
  await waitUntilTableExists({ client, maxWaitTime: maxWaitSeconds, minDelay: 1 }, { TableName: tableName });
}

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException') return false;
    throw err;
  }
}

function errorName(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}
