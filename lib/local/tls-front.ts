/**
 * An HTTPS front for a local plain-HTTP server, with a throw-away self-signed certificate for
 * 127.0.0.1 made by `openssl`: what a Lambda-configured client needs to reach a local simulated API
 * server (an EKS kubeconfig is https with a CA, never skip-verify). Every request is passed on
 * unchanged, headers and body streamed both ways; `connections` counts TLS handshakes, so tests can
 * see connection reuse.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its key, PEM. */
export type SelfSignedCert = { readonly certPem: string; readonly keyPem: string };

/** A new P-256 certificate for 127.0.0.1 and localhost, valid one day. Needs `openssl` on the PATH. */
export function selfSignedCert(): SelfSignedCert {
  const dir = mkdtempSync(join(tmpdir(), 'tls-front-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      { stdio: 'ignore' },
    );
    return { certPem: readFileSync(cert, 'utf8'), keyPem: readFileSync(key, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A running front: its https URL, the CA to trust (base64 PEM, as EKS gives it), its handshakes. */
export type TlsFront = { readonly url: string; readonly caData: string; connections(): number; close(): Promise<void> };

/**
 * Serves https on a free loopback port and forwards every request to `target` (an http URL). With
 * `authorization`, the front also stands in for EKS's authenticator: each request's Authorization
 * header (a client's minted EKS token, which the simulated API server cannot verify) is replaced by
 * this one, a token the world issued for the user the client's access entry maps to.
 */
export async function startTlsFront(target: string, cert: SelfSignedCert = selfSignedCert(), authorization?: string): Promise<TlsFront> {
  const upstream = new URL(target);
  let connections = 0;
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: authorization === undefined ? req.headers : { ...req.headers, authorization } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caData: Buffer.from(cert.certPem).toString('base64'),
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
