/**
 * Every State port call is bounded: against a server that accepts connections and never answers,
 * the adapter's default timeout, the caller's `timeoutMs` and the caller's signal each end the call
 * with a `TransientError` close to the bound, never a hang.
 */

import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TransientError } from '../../lib/platform/errors.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import type { CallOptions } from '../../lib/state/port.js';
import { localClient } from '../support/dynamo.js';

describe('State port call bounds', () => {
  let blackHole: Server;
  const sockets = new Set<Socket>();
  let endpoint: string;

  beforeAll(async () => {
    // Accepts and reads, never writes: the worst case for a hung DynamoDB connection.
    blackHole = createServer((s) => {
      sockets.add(s);
      s.on('data', () => undefined);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', () => resolve()));
    endpoint = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => blackHole.close(() => resolve()));
  });

  it.each([
    { name: 'the adapter default', defaultMs: 200, opts: (): CallOptions => ({}), boundMs: 200 },
    {
      name: 'a shorter caller timeoutMs',
      defaultMs: 10_000,
      opts: (): CallOptions => ({ timeoutMs: 150 }),
      boundMs: 150,
    },
    {
      name: 'a caller signal that fires first',
      defaultMs: 10_000,
      opts: (): CallOptions => ({ signal: AbortSignal.timeout(100) }),
      boundMs: 100,
    },
  ])('a call to an unresponsive server ends at its bound with a TransientError: $name', async (row) => {
    const client = localClient(endpoint);
    const store = new DynamoStateStore(client, { tableName: 'state', callTimeoutMs: row.defaultMs });
    const startedMs = Date.now();

    const err = await store.claim('eks/ns/tc', 'step-a', 0, 1000, row.opts()).catch((e: unknown) => e);

    const elapsedMs = Date.now() - startedMs;
    client.destroy();
    expect(err).toBeInstanceOf(TransientError);
    expect(elapsedMs).toBeGreaterThanOrEqual(row.boundMs - 20);
    expect(elapsedMs).toBeLessThan(row.boundMs + 1000);
  });
});
