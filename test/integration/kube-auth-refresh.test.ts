/**
 * A 401 to a cached EKS token (revoked, or refused before its 15 minutes were up): `KubeHttp`
 * drops the token, mints a fresh one and sends the request once more; a fresh token refused too is
 * a terminal error saying so. The server is an HTTPS front (the EKS kubeconfig requires TLS) over a
 * plain server that refuses the tokens it is told to.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EksTokenSource, eksKubeConfig } from '../../lib/kube/auth.js';
import { KubeClient } from '../../lib/kube/client.js';
import { KubeHttp } from '../../lib/kube/http.js';
import { type TlsFront, startTlsFront } from '../../lib/local/tls-front.js';
import { RealClock } from '../../lib/platform/clock.js';
import { TerminalError } from '../../lib/platform/errors.js';

let upstream: Server;
let front: TlsFront;
/** The Authorization header of every request, in order. */
const seen: string[] = [];
/** `stale`: the first token a path sees is refused, later ones accepted; `all`: every token is refused. */
const refusing = new Map<string, Set<string>>();

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
    const authorization = req.headers.authorization ?? '';
    seen.push(authorization);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const refused = refusing.get(path) ?? new Set<string>();
    if (refused.size === 0 && path.endsWith('/stale')) refused.add(authorization);
    refusing.set(path, refused);
    if (path.endsWith('/all') || refused.has(authorization)) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Node', apiVersion: 'v1', metadata: { name: 'n' } }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  front = await startTlsFront(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});

afterAll(async () => {
  await front.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** A `KubeHttp` on an EKS kubeconfig whose token source counts its mints (each with other credentials, so each token differs). */
function countingHttp(): { http: KubeHttp; mints: () => number } {
  let mints = 0;
  const credentials = (): { accessKeyId: string; secretAccessKey: string } => ({ accessKeyId: `AKID${++mints}`, secretAccessKey: 'secret' });
  const tokens = new EksTokenSource({ clusterName: 'prod-eks', region: 'us-east-1', clock: new RealClock(), credentials });
  return { http: new KubeHttp(eksKubeConfig({ endpoint: front.url, caData: front.caData, tokens, clusterName: 'prod-eks' })), mints: () => mints };
}

describe('a 401 drops the cached EKS token and retries once', () => {
  it('a refused token is dropped: the request is sent once more with a fresh token, which is then reused', async () => {
    // Prepare
    const { http, mints } = countingHttp();
    const before = seen.length;

    // Act
    const answer = await http.send({ method: 'GET', path: '/api/v1/nodes/stale' }, 5_000, 'get Node stale');
    const again = await http.send({ method: 'GET', path: '/api/v1/nodes/other' }, 5_000, 'get Node other');

    // Assess
    expect(answer.status).toBe(200);
    expect(again.status).toBe(200);
    const sent = seen.slice(before);
    expect(sent).toHaveLength(3);
    expect(sent[1]).not.toBe(sent[0]);
    expect(sent[2]).toBe(sent[1]);
    expect(mints()).toBe(2);
  });

  it('a watch opened with a refused token is opened again with a fresh one', async () => {
    // Prepare
    const { http, mints } = countingHttp();

    // Act
    const res = await http.open({ method: 'GET', path: '/api/v1/watch/stale' }, new AbortController().signal, 'watch');
    res.destroy();

    // Assess
    expect(res.statusCode).toBe(200);
    expect(mints()).toBe(2);
  });

  it('a fresh token refused too is a terminal error that says so; the request was sent exactly twice', async () => {
    // Prepare
    const { http, mints } = countingHttp();
    const client = new KubeClient(http, { timeoutMs: 5_000 });
    const before = seen.length;

    // Act
    const failure = await client.getNode('all').catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(TerminalError);
    expect((failure as Error).message).toBe(
      'get Node all: 401 Unauthorized: the API server refused our credentials, a freshly minted token too (check the IAM role and its EKS access entry): Unauthorized',
    );
    expect(seen.length - before).toBe(2);
    expect(mints()).toBe(2);
  });
});
