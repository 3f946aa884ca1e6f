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

/**
 * Starts an in-memory dynalite on 127.0.0.1 (a free port), its tables created and deleted at once;
 * `close` stops it and drops its data.
 */
export async function startDynaliteServer(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      // Keep-alive sockets would otherwise hold the server open until they time out.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** Starts dynalite on 127.0.0.1 (a free port) and creates `tableName`. */
export async function startEmbeddedDynamo(tableName = 'tidb-reconciler-state'): Promise<EmbeddedDynamo> {
  const { endpoint, close } = await startDynaliteServer();
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await ensureTable(client, tableName);
  return {
    endpoint,
    client,
    tableName,
    close: async () => {
      client.destroy();
      await close();
    },
  };
}
