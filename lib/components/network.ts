/**
 * The network a function inside the cluster's VPC reaches components on: one HTTP exchange with a
 * pod address, over TLS with the cluster client certificate when the component serves TLS. The
 * Lambda's is Node's http/https (node-network.ts); the simulated world gives its own to functions
 * it places in the VPC (lib/local/sim-network.ts), and a function outside reaches no pod address.
 */
import { inspect } from 'node:util';
import type { HttpAnswer } from '../kube/http.js';
import type { ComponentRequest } from './transport.js';

/**
 * Where one exchange goes: a pod IP and port, the scheme, and the name the component's certificate
 * must carry (its cluster DNS name, as TiDB Operator's certificates list them in their SANs).
 */
export type DialTarget = { readonly ip: string; readonly port: number; readonly scheme: 'http' | 'https'; readonly serverName: string };

/**
 * The cluster client certificate (`<tc>-cluster-client-secret`): the CA the client trusts and the
 * certificate and key it presents. Kept in memory only: it prints, logs and serialises as a
 * placeholder, never as its PEM.
 */
export class ClientCertificate {
  constructor(
    readonly caPem: string,
    readonly certPem: string,
    readonly keyPem: string,
  ) {}

  toJSON(): string {
    return '[client certificate]';
  }

  toString(): string {
    return '[client certificate]';
  }

  [inspect.custom](): string {
    return '[client certificate]';
  }
}

/**
 * Sends one request to `target` within `timeoutMs` and returns whatever status came back, the body
 * capped at `COMPONENT_ANSWER_MAX_BYTES`. Throws `ComponentUnreachableError` when the connection is
 * refused, `ClientCertificateRefusedError` when the TLS handshake fails over certificates, and a
 * `TransientError` naming `what` for a timeout or any other network failure.
 */
export interface ComponentNetwork {
  exchange(target: DialTarget, req: ComponentRequest, client: ClientCertificate | undefined, timeoutMs: number, what: string): Promise<HttpAnswer>;
}

/** `?k=v&…` of a request's query, or '' without one. */
export function queryString(query: Record<string, string> | undefined): string {
  if (!query || Object.keys(query).length === 0) return '';
  return `?${new URLSearchParams(query).toString()}`;
}
