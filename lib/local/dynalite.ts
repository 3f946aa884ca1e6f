/**
 * An embedded DynamoDB (dynalite, in memory) on a loopback port, with the state table created — the
 * local stack's and the simulator's stand-in for the DynamoDB table — behind an IAM front, so each
 * function's client may do exactly what its role allows (lib/local/iam/).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { ensureTable } from '../state/table.js';
import { DEPLOYER, type LocalIam } from './iam/authority.js';
import { startIamFront } from './iam/http-front.js';
import { FunctionIdentities, LOCAL_TABLE, localIam } from './iam/identities.js';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import type { RequestCounter } from './request-counts.js';

/**
 * A running embedded DynamoDB with its table. `endpoint` is the IAM front's; `client` signs as the
 * deployer (set-up and inspection, not a function); `identities` gives each function its own client.
 */
export type EmbeddedDynamo = {
  readonly endpoint: string;
  /** dynalite's own endpoint behind the front (for a second front with other roles, as the benchmarks' baseline needs). */
  readonly backend: string;
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly identities: FunctionIdentities;
  close(): Promise<void>;
};

/**
 * Starts an in-memory dynalite on 127.0.0.1 (a free port), its tables created and deleted at once;
 * `close` stops it and drops its data.
 */
export async function startDynaliteServer(): Promise<LoopbackServer> {
  return listenOnLoopback(dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));
}

/**
 * Starts dynalite on 127.0.0.1 (a free port) behind an IAM front enforcing `iam` (default: the
 * packaged template's roles, `localIam`), and creates `tableName` as the deployer. With `requests`,
 * every DynamoDB request but the deployer's (set-up, inspection) is counted there as `dynamodb`, and
 * the functions' SQS and Scheduler requests as theirs (`FunctionIdentities`).
 */
export async function startEmbeddedDynamo(tableName = LOCAL_TABLE, iam: LocalIam = localIam({ tableName }), options: { readonly requests?: RequestCounter } = {}): Promise<EmbeddedDynamo> {
  const { requests } = options;
  const server = await startDynaliteServer();
  const onRequest = requests === undefined ? {} : { onRequest: (caller: string) => void (caller !== 'deployer' && requests.count('dynamodb')) };
  const front = await startIamFront({ service: 'dynamodb', target: server.endpoint, iam, ...onRequest });
  const client = new DynamoDBClient({ endpoint: front.endpoint, region: 'us-east-1', credentials: DEPLOYER });
  await ensureTable(client, tableName);
  const identities = new FunctionIdentities(iam, front.endpoint, requests);
  return {
    endpoint: front.endpoint,
    backend: server.endpoint,
    client,
    tableName,
    identities,
    close: async () => {
      identities.destroy();
      client.destroy();
      await front.close();
      await server.close();
    },
  };
}
