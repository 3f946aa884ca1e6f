/**
 * A function placed in a cluster's VPC whose routing another process offers as an HTTP CONNECT
 * forward proxy (`sim serve` prints it; `start --kubeconfig FILE --vpc-proxy URL`, docs/adr/0032).
 * Each exchange opens a tunnel to the pod address (`CONNECT <podIP>:<port>`) and then speaks to the
 * component exactly as the Lambda's network (node-network.ts) does over the VPC: plain http, or
 * real TLS verifying the component's certificate against the cluster CA for its cluster DNS name
 * and presenting the cluster client certificate. What the tunnel's far end does is classified as
 * the Lambda's: a refused dial (the proxy's `502 … connection refused`) is a
 * `ComponentUnreachableError`, a handshake refused over certificates a
 * `ClientCertificateRefusedError`, the rest a `TransientError`; the per-call timeout covers the
 * tunnel and the exchange.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { type ClientCertificate, type ComponentNetwork, type DialTarget, queryString } from '../components/network.js';
import { classifyNetworkError } from '../components/node-network.js';
import { ClientCertificateRefusedError, ComponentUnreachableError } from '../components/reach-errors.js';
import type { ComponentRequest } from '../components/transport.js';
import { COMPONENT_ANSWER_MAX_BYTES, readCappedText } from '../kube/answer-size.js';
import { type HttpAnswer, describeNetworkError, timeoutError } from '../kube/http.js';
import { ReconcilerError, TerminalError, TransientError } from '../platform/errors.js';

/** The largest CONNECT refusal body read (a line naming why). */
const REFUSAL_MAX_BYTES = 4096;

/**
 * Parses the `--vpc-proxy` value: an `http://host:port` URL of a forward proxy, nothing else (no
 * path, credentials or https); throws naming the option.
 */
export function parseVpcProxyUrl(value: string, option = '--vpc-proxy'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${option}: "${value}" is not a URL (want http://127.0.0.1:<port>, as sim serve prints it)`);
  }
  if (url.protocol !== 'http:' || url.port === '' || (url.pathname !== '/' && url.pathname !== '') || url.username !== '' || url.search !== '') {
    throw new Error(`${option}: "${value}" must be http://<host>:<port> of a forward proxy, without path or credentials`);
  }
  return url;
}

/** Exchanges through the VPC's forward proxy at `proxyUrl` (see the module comment). */
export class VpcProxyNetwork implements ComponentNetwork {
  constructor(private readonly proxyUrl: URL) {}

  async exchange(target: DialTarget, req: ComponentRequest, client: ClientCertificate | undefined, timeoutMs: number, what: string): Promise<HttpAnswer> {
    const sockets: Duplex[] = [];
    let timedOut = false;
    let handshaken = false;
    const timer = setTimeout(() => {
      timedOut = true;
      for (const s of sockets) s.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    try {
      const tunnel = await this.open(target, sockets, what);
      const presents = client !== undefined && client.certPem !== '';
      const connection = target.scheme === 'https' ? tlsConnect({ socket: tunnel, servername: target.serverName, ...(client ? { ca: client.caPem, ...(presents ? { cert: client.certPem, key: client.keyPem } : {}) } : {}) }) : tunnel;
      if (presents) connection.once('secureConnect', () => (handshaken = true));
      sockets.push(connection);
      return await send(connection, target, req);
    } catch (err) {
      if (timedOut) throw timeoutError(what, timeoutMs, err);
      if (err instanceof ReconcilerError) throw err;
      if (handshaken && isClosedUnanswered(err)) {
        // Node's TLS server closes without the alert a Go server sends (`remote error: tls: bad
        // certificate`): a TLS 1.3 connection closed unanswered right after the client sent its
        // certificate is that refusal.
        throw new ClientCertificateRefusedError(`${what} failed: the TLS handshake with ${target.serverName} (${target.ip}:${target.port}) failed: the server closed the connection after verifying the client certificate (${describeNetworkError(err)})`, { cause: err });
      }
      throw classifyNetworkError(err, what, target);
    } finally {
      clearTimeout(timer);
      for (const s of sockets) s.destroy();
    }
  }

  /** `CONNECT ip:port` through the proxy: the tunnel's socket, or the proxy's refusal as a typed error. */
  private open(target: DialTarget, sockets: Duplex[], what: string): Promise<Socket> {
    const authority = `${target.ip}:${target.port}`;
    return new Promise<Socket>((resolve, reject) => {
      const connect = httpRequest({ host: this.proxyUrl.hostname, port: Number(this.proxyUrl.port), method: 'CONNECT', path: authority, headers: { Host: authority }, agent: false });
      connect.on('socket', (s) => sockets.push(s));
      connect.on('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => {
        sockets.push(socket);
        if (res.statusCode === 200) {
          if (head.length > 0) socket.unshift(head);
          resolve(socket);
          return;
        }
        void refusalText(socket, head).then((text) => reject(refusal(res.statusCode ?? 0, text, what, target)));
      });
      connect.on('error', (err) => {
        const text = describeNetworkError(err);
        reject(new TransientError(`${what} failed: the VPC proxy ${this.proxyUrl.origin} did not open a tunnel to ${authority}: ${text}`, { cause: err }));
      });
      connect.end();
    });
  }
}

/** A connection that ended before any answer (reset, or closed: Node's `socket hang up`). */
function isClosedUnanswered(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** One request over an open connection (`Connection: close`: one exchange per tunnel). */
function send(connection: Duplex, target: DialTarget, req: ComponentRequest): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    const headers: Record<string, string> = { Host: `${target.serverName}:${target.port}`, Connection: 'close', ...(req.body !== undefined ? { 'Content-Type': 'application/json' } : {}) };
    const request = httpRequest({ method: req.method, path: req.path + queryString(req.query), headers, createConnection: () => connection as Socket }, (res) => {
      readCappedText(res, COMPONENT_ANSWER_MAX_BYTES, req.path).then((text) => resolve({ status: res.statusCode ?? 0, text }), reject);
    });
    request.on('error', reject);
    request.end(req.body);
  });
}

/** The body of a CONNECT refusal: `head` and what follows until the proxy closes. */
function refusalText(socket: Socket, head: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks = [head];
    let size = head.length;
    const done = (): void => resolve(Buffer.concat(chunks).toString('utf8').trim());
    socket.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= REFUSAL_MAX_BYTES) chunks.push(c);
    });
    socket.once('end', done);
    socket.once('close', done);
    socket.once('error', done);
  });
}

/** The typed error of a CONNECT the proxy answered with something other than 200. */
function refusal(status: number, text: string, what: string, target: DialTarget): Error {
  const address = `${target.serverName} (${target.ip}:${target.port})`;
  if (status === 502 && /connection refused/.test(text)) return new ComponentUnreachableError(`${what} failed: ${address}: ${text}`, 'refused');
  if (status === 400) return new TerminalError(`${what} failed: the VPC proxy refused the tunnel to ${address}: ${text}`);
  return new TransientError(`${what} failed: the VPC proxy answered ${status} for ${address}: ${text}`);
}
