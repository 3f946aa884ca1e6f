/**
 * `KubeHttp` as Lambda uses it: an EKS kubeconfig (https, the cluster's CA, a bearer token minted
 * per request) against an HTTPS server with a self-signed certificate, over Node's own http client.
 * The CA is trusted and nothing else is, the token rides on every request, connections are kept
 * alive, bodies go with their type and length, and a server that never answers is a timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type IncomingMessage, type Server, type ServerResponse, createServer, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { EksTokenSource, eksKubeConfig } from '../../lib/kube/auth.js';
import { readCappedText } from '../../lib/kube/answer-size.js';
import { KubeHttp, isTimeout } from '../../lib/kube/http.js';
import { type TlsFront, selfSignedCert, startTlsFront } from '../../lib/local/tls-front.js';
import { RealClock } from '../../lib/platform/clock.js';
import { TransientError } from '../../lib/platform/errors.js';

const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

let upstream: Server;
let front: TlsFront;
const seen: Seen[] = [];

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url?.startsWith('/hang')) return; // never answers
      if (req.url?.startsWith('/stall')) return void res.writeHead(200, { 'content-type': 'application/json' }).write('{"kind":'); // head and part of the body, then nothing
      if (req.url?.startsWith('/cut')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{"kind":');
        return void setTimeout(() => res.destroy(), 20); // a body shorter than announced, then the connection is gone
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', path: req.url }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  front = await startTlsFront(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});

afterAll(async () => {
  await front.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

function eksHttp(caData = front.caData): KubeHttp {
  const tokens = new EksTokenSource({ clusterName: 'prod-eks', region: 'us-east-1', clock: new RealClock(), credentials: () => CREDS });
  return new KubeHttp(eksKubeConfig({ endpoint: front.url, caData, tokens, clusterName: 'prod-eks' }));
}

describe('KubeHttp over TLS with an EKS kubeconfig', () => {
  it('a request trusts the configured CA and carries a freshly minted EKS token', async () => {
    // Prepare
    const http = eksHttp();

    // Act
    const answer = await http.send({ method: 'GET', path: '/api/v1/namespaces/demo/pods?limit=1' }, 5_000, 'list pods');

    // Assess
    expect(answer).toEqual({ status: 200, text: JSON.stringify({ kind: 'Status', path: '/api/v1/namespaces/demo/pods?limit=1' }) });
    const last = seen.at(-1);
    expect(last?.headers.authorization).toMatch(/^Bearer k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    expect(last?.headers.accept).toBe('application/json');
  });

  it('a server whose certificate the kubeconfig does not trust is refused, naming the TLS failure', async () => {
    // Prepare: a CA that did not sign the server's certificate
    const http = eksHttp(Buffer.from(selfSignedCert().certPem).toString('base64'));

    // Act
    const failure = await http.send({ method: 'GET', path: '/api/v1/pods' }, 5_000, 'list pods').catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toMatch(/^list pods failed: .*(SELF_SIGNED|UNABLE_TO_VERIFY|certificate)/i);
  });

  it('connections are kept alive: sequential requests share one TLS handshake', async () => {
    // Prepare
    const http = eksHttp();
    const before = front.connections();

    // Act
    for (let i = 0; i < 3; i++) await http.send({ method: 'GET', path: `/api/v1/pods?i=${i}` }, 5_000, 'list pods');

    // Assess
    expect(front.connections() - before).toBe(1);
  });

  it('a body is sent with its content type and byte length', async () => {
    // Prepare
    const http = eksHttp();
    const body = JSON.stringify({ metadata: { annotations: { note: 'größe' } } });

    // Act
    await http.send({ method: 'PATCH', path: '/api/v1/namespaces/demo/configmaps/x', body, contentType: 'application/merge-patch+json' }, 5_000, 'patch');

    // Assess
    const last = seen.at(-1);
    expect(last).toMatchObject({ method: 'PATCH', body });
    expect(last?.headers['content-type']).toBe('application/merge-patch+json');
    expect(Number(last?.headers['content-length'])).toBe(Buffer.byteLength(body));
  });

  it.each([
    { name: 'a server that never answers is a timeout within the call budget', path: '/hang', timeoutMs: 300 },
    { name: 'a body that stops coming after the head is a timeout within the call budget', path: '/stall', timeoutMs: 500 },
  ])('$name', async ({ path, timeoutMs }) => {
    // Prepare
    const http = eksHttp();
    const started = Date.now();

    // Act
    const failure = await http.send({ method: 'GET', path }, timeoutMs, 'read pod').catch((e: unknown) => e);

    // Assess
    expect(isTimeout(failure)).toBe(true);
    expect((failure as Error).message).toBe(`read pod timed out after ${timeoutMs} ms`);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a body cut short by a closed connection is read as a failure, never as a partial answer', async () => {
    // Prepare: straight to the upstream, whose answer announces 100 bytes and closes after 8
    const { port } = upstream.address() as AddressInfo;
    const res = await new Promise<IncomingMessage>((resolve, reject) => httpGet({ host: '127.0.0.1', port, path: '/cut' }, resolve).on('error', reject));

    // Act
    const read = await readCappedText(res, 1024, '/cut').then(
      (text: string) => ({ text }),
      (err: unknown) => ({ err }),
    );

    // Assess
    expect(read).toHaveProperty('err');
  });

  it('an http server without skip-verify is a configuration error, not retried', async () => {
    // Prepare
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: false }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });

    // Act
    const failure = await new KubeHttp(kubeConfig).send({ method: 'GET', path: '/api' }, 1_000, 'discover').catch((e: unknown) => e);

    // Assess
    expect((failure as Error).name).toBe('TerminalError');
    expect((failure as Error).message).toContain('discover: cannot prepare the request: HTTP protocol is not allowed');
  });
});
