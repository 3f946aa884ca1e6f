/**
 * Every answer is read under a size cap: a server streaming an endless body makes the call fail
 * with `AnswerTooLargeError` naming the path and the cap, and reading stops near the cap (the
 * socket is destroyed, so the server cannot push much more than the kernel's buffers hold).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ApiProxyHttp } from '../../lib/components/transport.js';
import { KubeWatchSource } from '../../lib/exporter/kube-source.js';
import { watchedResources } from '../../lib/exporter/resources.js';
import { readLines } from '../../lib/exporter/stream-lines.js';
import { AnswerTooLargeError, COMPONENT_ANSWER_MAX_BYTES, KUBE_ANSWER_MAX_BYTES, WATCH_LINE_MAX_BYTES, readCappedFetchText } from '../../lib/kube/answer-size.js';
import { KubeHttp } from '../../lib/kube/http.js';
import { RealClock } from '../../lib/platform/clock.js';

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

let server: Server;
let baseUrl: string;
/** Bytes the server wrote per request path, final once the connection closed. */
const written = new Map<string, Promise<number>>();

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path.includes('/announced')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(300 * MiB) });
      written.set(path, streamUntilClosed(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    written.set(path, streamUntilClosed(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Writes 64 KiB chunks as fast as the client reads them, for ever; resolves with the total once the connection is gone. */
function streamUntilClosed(res: ServerResponse): Promise<number> {
  return new Promise((resolve) => {
    let total = 0;
    let open = true;
    res.on('close', () => {
      open = false;
      resolve(total);
    });
    const pump = (): void => {
      while (open) {
        total += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
    };
    pump();
  });
}

function plainKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: baseUrl, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kubeConfig;
}

describe('answers are read under a size cap', () => {
  it.each([
    {
      name: 'a Kubernetes answer past 32 MiB fails naming its path (not its query) and the cap',
      send: () => new KubeHttp(plainKubeConfig()).send({ method: 'GET', path: '/api/v1/pods/endless?labelSelector=a%3Db' }, 30_000, 'list pods'),
      path: '/api/v1/pods/endless',
      cap: KUBE_ANSWER_MAX_BYTES,
      capText: '32 MiB',
    },
    {
      name: 'a component answer through the proxy past 8 MiB fails naming its path and the cap',
      send: () =>
        new ApiProxyHttp(new KubeHttp(plainKubeConfig())).send({ type: 'service', namespace: 'demo', service: 'basic-pd', port: 2379 }, { method: 'GET', path: '/pd/api/v1/stores', query: { state: '2' } }, 30_000, 'PD stores'),
      path: '/api/v1/namespaces/demo/services/basic-pd:2379/proxy/pd/api/v1/stores',
      cap: COMPONENT_ANSWER_MAX_BYTES,
      capText: '8 MiB',
    },
  ])('$name', async ({ send, path, cap, capText }) => {
    // Act
    const failure = await send().catch((e: unknown) => e);

    // Assess: the error, and reading stopped within a chunk or two of the cap
    expect(failure).toBeInstanceOf(AnswerTooLargeError);
    expect((failure as Error).name).toBe('AnswerTooLargeError');
    expect((failure as Error).message).toMatch(new RegExp(`^the answer to ${path} is larger than ${capText} \\(\\d+ bytes read or announced\\); reading stopped$`));
    const { readBytes } = failure as AnswerTooLargeError;
    expect(readBytes).toBeGreaterThan(cap);
    expect(readBytes).toBeLessThanOrEqual(cap + 2 * CHUNK.length);
    // What the server managed to write: what we read plus what the socket buffers held when it was destroyed.
    expect(await written.get(path)).toBeLessThan(cap + 8 * MiB);
  });

  it('an announced Content-Length past the cap fails before the body is read', async () => {
    // Act
    const failure = await new KubeHttp(plainKubeConfig()).send({ method: 'GET', path: '/api/v1/pods/announced' }, 30_000, 'list pods').catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(AnswerTooLargeError);
    expect((failure as AnswerTooLargeError).readBytes).toBe(300 * MiB);
    expect(await written.get('/api/v1/pods/announced')).toBeLessThan(8 * MiB);
  });

  it('a fetch answer (the direct transport) past its cap fails and the body is cancelled', async () => {
    // Prepare
    const res = await fetch(`${baseUrl}/status/endless`);

    // Act
    const failure = await readCappedFetchText(res, 1 * MiB, '/status/endless').catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(AnswerTooLargeError);
    expect((failure as Error).message).toMatch(/^the answer to \/status\/endless is larger than 1 MiB/);
    expect(await written.get('/status/endless')).toBeLessThan(1 * MiB + 8 * MiB);
  });

  it('a watch line that never ends fails once it passes the line cap; reading stops there', async () => {
    // Prepare: a stream of 64 KiB chunks without a newline after one complete line
    let pulled = 0;
    const stream = Readable.from(
      (function* () {
        yield Buffer.from('{"type":"BOOKMARK"}\n');
        for (;;) {
          pulled += CHUNK.length;
          yield CHUNK;
        }
      })(),
    );
    const lines: string[] = [];

    // Act
    const failure = await (async () => {
      for await (const line of readLines(stream, { maxLineBytes: 1 * MiB, path: '/api/v1/pods' })) lines.push(line);
    })().catch((e: unknown) => e);

    // Assess
    expect(lines).toEqual(['{"type":"BOOKMARK"}']);
    expect(failure).toBeInstanceOf(AnswerTooLargeError);
    expect((failure as Error).message).toMatch(/^a line of the answer to \/api\/v1\/pods is larger than 1 MiB/);
    expect(pulled).toBeLessThanOrEqual(1 * MiB + 2 * CHUNK.length);
    expect(stream.destroyed).toBe(true);
  });

  it('a watch whose event line never ends fails past 4 MiB naming the watched path; the connection is dropped', async () => {
    // Prepare: the server answers the watch with one endless line
    const [tidbClusters] = watchedResources();
    if (!tidbClusters) throw new Error('no TidbCluster resource');
    const source = new KubeWatchSource(plainKubeConfig(), { clock: new RealClock() });
    const path = '/apis/pingcap.com/v1alpha1/tidbclusters';

    // Act
    const failure = await (async () => {
      for await (const event of source.watch(tidbClusters, { resourceVersion: '1', timeoutSeconds: 60, signal: new AbortController().signal })) void event;
    })().catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(AnswerTooLargeError);
    expect((failure as Error).message).toMatch(new RegExp(`^a line of the answer to ${path} is larger than 4 MiB`));
    expect((failure as AnswerTooLargeError).readBytes).toBeLessThanOrEqual(WATCH_LINE_MAX_BYTES + 2 * CHUNK.length);
    expect(await written.get(path)).toBeLessThan(WATCH_LINE_MAX_BYTES + 8 * MiB);
  });
});
