/**
 * An embedded DynamoDB (dynalite, in memory) on a loopback port, with the state table created — the
 * local stack's and the simulator's stand-in for the DynamoDB table.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { ensureTable } from '../state/table.js';

/** A running embedded DynamoDB with its table. */
export type EmbeddedDynamo = { readonly endpoint: string; readonly client: DynamoDBClient; readonly tableName: string; close(): Promise<void> };

/** Starts dynalite on 127.0.0.1 (a free port) and creates `tableName`. */
export async function startEmbeddedDynamo(tableName = 'tidb-reconciler-state'): Promise<EmbeddedDynamo> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await ensureTable(client, tableName);
  return {
    endpoint,
    client,
    tableName,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
