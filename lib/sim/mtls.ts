/**
 * Mutual TLS as the simulated components enforce it. Every TiDB component given a CA file requires
 * and verifies a client certificate: PD hands its `[security]` paths to etcd's `TLSInfo`
 * (tikv/pd `pkg/utils/grpcutil/grpcutil.go`, `TLSConfig.ToTLSInfo`: `TrustedCAFile: s.CAPath`), and
 * etcd's `TLSInfo.ServerConfig` (etcd `client/pkg/transport/listener.go`) sets
 * `cfg.ClientAuth = tls.RequireAndVerifyClientCert` whenever `TrustedCAFile != ""`; TiKV, TiDB's
 * status server, TiFlash's proxy, TiCDC and Pump do the same with their `ca` setting. TiDB Operator
 * always sets the CA under `tlsCluster`, so a client without a certificate signed by the cluster CA
 * is refused during the handshake. A Go client (the API server's proxy included) then reports the
 * server's alert: `remote error: tls: certificate required` (none sent; TLS 1.3 alert 116) or
 * `remote error: tls: bad certificate` (one not signed by the CA).
 *
 * Certificates are compared as real X.509 when they parse (the certificate's signature checked with
 * the CA's key); the scenarios' placeholder PEMs do not parse, so for them (both the certificate
 * and the CA placeholders) the issuer is the
 * `ca.crt` of the Secret in the namespace that holds the presented `tls.crt`, as a CA that issued
 * it would have.
 */
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';

/** What a client presents in the handshake: its certificate, and the CA it verifies the server with. */
export type ClientHello = { readonly certPem?: string; readonly caPem?: string };

/** A listener's TLS: on or off, and the CA it verifies client certificates with (set ⇒ required). */
export type ListenerTls = { readonly tls: boolean; readonly clientCa?: string };

/** The alert a Go client reports when the server required a certificate and got none. */
export const CERTIFICATE_REQUIRED = 'remote error: tls: certificate required';
/** The alert a Go client reports when the server did not accept the certificate sent. */
export const BAD_CERTIFICATE = 'remote error: tls: bad certificate';
/** What a Go client says when the server's certificate is not signed by a CA it trusts. */
export const UNKNOWN_AUTHORITY = 'tls: failed to verify certificate: x509: certificate signed by unknown authority';

/**
 * Why the TLS handshake of `client` with `listener` (a pod's port in `namespace`) fails, or
 * undefined when it succeeds. `client.caPem` unset means the client does not verify the server (the
 * API server's proxy to a pod does not).
 */
export function handshakeFailure(store: ObjectStore, namespace: string, listener: ListenerTls, client: ClientHello): string | undefined {
  if (!listener.tls || listener.clientCa === undefined) return undefined;
  if (client.caPem !== undefined && !sameCa(client.caPem, listener.clientCa)) return UNKNOWN_AUTHORITY;
  if (client.certPem === undefined || client.certPem.trim() === '') return CERTIFICATE_REQUIRED;
  return isSignedBy(store, namespace, client.certPem, listener.clientCa) ? undefined : BAD_CERTIFICATE;
}

function isSignedBy(store: ObjectStore, namespace: string, certPem: string, caPem: string): boolean {
  const real = parse(certPem);
  const ca = parse(caPem);
  if (real && ca) return real.checkIssued(ca) && real.verify(ca.publicKey);
  // A real certificate is never signed by a placeholder CA, nor a placeholder by a real one.
  if (real || ca) return false;
  const issuers = store
    .list('Secret', namespace, (s) => decode(dataOf(s)['tls.crt']) === certPem)
    .map((s) => decode(dataOf(s)['ca.crt']))
    .filter((c): c is string => c !== undefined);
  return issuers.some((issuer) => sameCa(issuer, caPem));
}

function dataOf(secret: KubeObject): Record<string, unknown> {
  return typeof secret.data === 'object' && secret.data !== null ? (secret.data as Record<string, unknown>) : {};
}

function sameCa(a: string, b: string): boolean {
  return a.trim() === b.trim();
}

function parse(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

function decode(b64: unknown): string | undefined {
  return typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('utf8') : undefined;
}
