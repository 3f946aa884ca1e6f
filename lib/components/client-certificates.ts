/**
 * The cluster client certificates the direct transport presents: Secret
 * `<tc>-cluster-client-secret` (`ca.crt`, `tls.crt`, `tls.key`, as TiDB Operator's
 * `ClusterClientTLSSecretName`), read through the API server and kept in memory for a bounded time
 * and count — never logged or persisted (`ClientCertificate` prints as a placeholder). A rotated
 * Secret is picked up within `ttlMs`, or at once after a handshake refused the cached one
 * (`forget`).
 */
import type { KubeHttp } from '../kube/http.js';
import { NotFoundError, TerminalError, TransientError } from '../platform/errors.js';
import { ClientCertificate } from './network.js';

/** How long a certificate read is used before the Secret is read again. */
export const CLIENT_CERTIFICATE_TTL_MS = 5 * 60_000;
/** How many clusters' certificates one function keeps at most (least recently read goes first). */
export const CLIENT_CERTIFICATE_MAX_ENTRIES = 64;

/** The name of a cluster's client certificate Secret (TiDB Operator's naming). */
export function clusterClientSecretOf(tcName: string): string {
  return `${tcName}-cluster-client-secret`;
}

type Entry = { readonly certificate: ClientCertificate; readonly readAtMs: number };

/** A bounded, expiring cache of cluster client certificates over one API server. */
export class ClientCertificates {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly kube: KubeHttp,
    private readonly nowMs: () => number = Date.now,
    private readonly limits: { ttlMs: number; maxEntries: number } = { ttlMs: CLIENT_CERTIFICATE_TTL_MS, maxEntries: CLIENT_CERTIFICATE_MAX_ENTRIES },
  ) {}

  /**
   * The client certificate of TidbCluster `namespace/tcName`, read within `timeoutMs` when not
   * cached. A missing Secret or key is a `TerminalError` naming it (the PdTlsSecret rule reports a
   * missing Secret before any component call).
   */
  async of(namespace: string, tcName: string, timeoutMs: number): Promise<ClientCertificate> {
    const key = `${namespace}/${tcName}`;
    const cached = this.entries.get(key);
    if (cached && this.nowMs() - cached.readAtMs < this.limits.ttlMs) return cached.certificate;
    const certificate = await this.read(namespace, clusterClientSecretOf(tcName), timeoutMs);
    this.entries.delete(key);
    this.entries.set(key, { certificate, readAtMs: this.nowMs() });
    while (this.entries.size > this.limits.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return certificate;
  }

  /** Drops the cached certificate of a cluster (a handshake refused it: the Secret may have rotated). */
  forget(namespace: string, tcName: string): void {
    this.entries.delete(`${namespace}/${tcName}`);
  }

  /** How many certificates are held (for tests of the bound). */
  get size(): number {
    return this.entries.size;
  }

  private async read(namespace: string, name: string, timeoutMs: number): Promise<ClientCertificate> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
    const what = `get Secret ${namespace}/${name}`;
    const answer = await this.kube.send({ method: 'GET', path }, timeoutMs, what);
    if (answer.status === 404) throw new NotFoundError(`${what}: Secret ${namespace}/${name} does not exist (cluster TLS needs it to reach the components)`);
    // The body carries the key: never echo it into an error.
    if (answer.status === 429 || answer.status >= 500) throw new TransientError(`${what}: HTTP ${answer.status}`);
    if (answer.status >= 400) throw new TerminalError(`${what}: HTTP ${answer.status}`);
    const data = (JSON.parse(answer.text) as { data?: Record<string, string> }).data ?? {};
    const pem = (field: string): string => {
      const value = data[field];
      if (value === undefined || value === '') throw new TerminalError(`Secret ${namespace}/${name} has no ${field}`, { field: `data.${field}` });
      return Buffer.from(value, 'base64').toString('utf8');
    };
    return new ClientCertificate(pem('ca.crt'), pem('tls.crt'), pem('tls.key'));
  }
}
