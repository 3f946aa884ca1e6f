/**
 * The cluster's VPC routing, offered to another process on this machine (`sim serve --vpc-port`):
 * an HTTP CONNECT forward proxy on 127.0.0.1 (RFC 9110 §9.3.6) whose tunnels reach the simulated
 * pods by pod IP, as a Lambda attached to the cluster's VPC reaches them with the VPC CNI
 * (docs/adr/0018, docs/adr/0032). Behind a tunnel the component is as strict as on the wire and as
 * the in-process network (lib/local/sim-network.ts): no running pod with the IP, or nothing
 * listening on the port, refuses the connection (the CONNECT gets `502` naming
 * `connect: connection refused`, as Go's and Squid's forward proxies report a refused dial); a TLS
 * port speaks real TLS with the certificate and key its config names (the files of its
 * container's Secrets, container-files.ts) and, given a CA, requires a client certificate signed by
 * it (`requestCert` + `rejectUnauthorized`: the handshake fails with `certificate required` or
 * `unknown ca`, as etcd's `RequireAndVerifyClientCert` does, lib/sim/mtls.ts); plain http to a TLS
 * port gets Go's `400 Client sent an HTTP request to an HTTPS server.`; TLS to a plain port gets
 * an HTTP 400 where a ServerHello belongs (the client's handshake fails).
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, type Socket, isIPv4 } from 'node:net';
import { createSecureContext } from 'node:tls';
import { DialError, type OpenPort, type ProxyRegistry, type ProxyRequest } from './proxy.js';

/** A running gateway: the proxy URL a client configures (`http://127.0.0.1:<port>`), and close. */
export type VpcGateway = { readonly url: string; readonly port: number; close(): Promise<void> };

/** How long a tunnel may sit idle before the gateway closes it (a NAT's idle timeout; Go's keep-alives are shorter). */
export const TUNNEL_IDLE_MS = 120_000;

/** The largest request body a tunnel accepts (the components' APIs take small JSON). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** What Go's net/http writes on a TLS listener that received plaintext HTTP (crypto/tls `RecordHeaderError`, net/http server.go). */
const PLAIN_HTTP_TO_TLS = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/** The first byte of a TLS record carrying a handshake message (RFC 8446 §5.1, ContentType handshake = 22). */
const TLS_HANDSHAKE_RECORD = 0x16;

/** Starts the gateway on 127.0.0.1:`port` (0: a free port), its tunnels reaching the pods of `proxy`'s world. */
export async function startVpcGateway(proxy: ProxyRegistry, options: { readonly port?: number } = {}): Promise<VpcGateway> {
  const sockets = new Set<Socket>();
  const server = createHttpServer((_req, res) => {
    // Only tunnels: an absolute-form GET through a forward proxy is not how a pod is reached here.
    res.writeHead(405, { Allow: 'CONNECT', 'Content-Type': 'text/plain' }).end('this proxy only tunnels: CONNECT <podIP>:<port>\n');
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    tunnel(proxy, req.url ?? '', socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Opens the tunnel `target` names over `socket`, or answers the CONNECT with why not. */
function tunnel(proxy: ProxyRegistry, target: string, socket: Socket, head: Buffer): void {
  const match = /^([^:]+):(\d{1,5})$/.exec(target);
  const ip = match?.[1] ?? '';
  const port = Number(match?.[2] ?? -1);
  if (!isIPv4(ip) || port < 1 || port > 65535) {
    refuse(socket, 400, `CONNECT target "${target}" must be <podIP>:<port> (the VPC routes pod addresses; cluster DNS names are resolved through the API server)`);
    return;
  }
  let open: OpenPort;
  try {
    open = proxy.open(ip, port);
  } catch (err) {
    if (err instanceof DialError) return refuse(socket, 502, err.message);
    throw err;
  }
  const unusable = open.tls ? unusableCertificate(open) : undefined;
  if (unusable !== undefined) return refuse(socket, 502, unusable);
  socket.setTimeout(TUNNEL_IDLE_MS, () => socket.destroy());
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) socket.unshift(head);
  if (!open.tls) {
    podServer(open).emit('connection', socket);
    return;
  }
  // Read the first byte as a TLS listener does: plaintext gets Go's answer, a handshake gets TLS.
  socket.once('data', (first: Buffer) => {
    socket.pause();
    socket.unshift(first);
    if (first[0] !== TLS_HANDSHAKE_RECORD) {
      socket.end(PLAIN_HTTP_TO_TLS);
      return;
    }
    podTlsServer(open).emit('connection', socket);
  });
  socket.resume();
}

/** Answers a CONNECT that opens no tunnel, and closes. */
function refuse(socket: Socket, status: 400 | 502, message: string): void {
  const reason = status === 400 ? 'Bad Request' : 'Bad Gateway';
  const body = `${message}\n`;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Why a TLS port cannot complete a real handshake: no certificate and key files, or ones that are
 * not X.509 (the scenarios' placeholder PEMs, which only the in-process network accepts).
 */
function unusableCertificate(open: OpenPort): string | undefined {
  const where = `${open.namespace}/${open.pod}`;
  if (open.serverCert === undefined) return `${where} serves TLS without a certificate and key the gateway can present`;
  try {
    createSecureContext({ cert: open.serverCert.certPem, key: open.serverCert.keyPem, ...(open.clientCa !== undefined ? { ca: open.clientCa } : {}) });
    return undefined;
  } catch (err) {
    return `${where} serves TLS with a certificate, key or CA that is not real X.509/PEM (${(err as Error).message}); a real handshake needs real certificates`;
  }
}

/** An unlistening HTTP server answering one tunnel's requests with the pod's process. */
function podServer(open: OpenPort): Server {
  const server = createHttpServer((req, res) => void answer(open, req, res));
  server.on('clientError', (_err, socket) => socket.destroy());
  return server;
}

/** The same over TLS: the port's certificate; with its CA, a client certificate signed by it required. */
function podTlsServer(open: OpenPort): Server {
  const cert = open.serverCert;
  const verify = open.clientCa !== undefined ? { ca: open.clientCa, requestCert: true, rejectUnauthorized: true } : {};
  const server = createHttpsServer({ cert: cert?.certPem, key: cert?.keyPem, ...verify }, (req, res) => void answer(open, req, res));
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  server.on('clientError', (_err, socket) => socket.destroy());
  return server;
}

/** Reads one request, has the process answer it; a process gone since resets the connection. */
async function answer(open: OpenPort, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://pod');
    const body = await readBody(req);
    const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])));
    const request: ProxyRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body, headers };
    const out = await open.serve(request);
    res.writeHead(out.status, { 'Content-Type': out.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(out.body) }).end(out.body);
  } catch (err) {
    if (err instanceof DialError) {
      req.socket.destroy();
      return;
    }
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${(err as Error).message}\n`);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
