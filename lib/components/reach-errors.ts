/**
 * Why a component could not be reached at all (no HTTP answer), in the two ways the rules and the
 * retry discipline tell apart, whichever way the component was addressed (directly, or through the
 * API server's proxy, which reports the same failures as a 503 `error trying to reach service: …`).
 */
import { TerminalError, TransientError } from '../platform/errors.js';

/**
 * Nothing to talk to: no ready endpoint behind a Service, no such pod address, or the pod refusing
 * the connection (its process not listening). A fact about the component, which the rules act on;
 * addressed to a Service, a repeat may reach another endpoint (caller.ts limits how many).
 */
export class ComponentUnreachableError extends TransientError {
  constructor(
    message: string,
    /** `noEndpoints`: nothing behind the address; `refused`: an endpoint refused the connection. */
    readonly reason: 'noEndpoints' | 'refused',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The component's TLS handshake refused the client: it requires a certificate signed by the
 * cluster CA and got none (`certificate required`) or another (`bad certificate`), or the client
 * does not trust the component's certificate. Terminal: the same client is refused again, until the
 * way the components are reached changes (docs/adr/0018).
 */
export class ClientCertificateRefusedError extends TerminalError {}

/** Says why a TLS component refused the API server's proxy, and what to do about it. */
export const PROXY_HAS_NO_CLIENT_CERTIFICATE =
  'the components of a cluster with tlsCluster enabled require a client certificate signed by the cluster CA, and the API server proxy presents none; ' +
  'attach the functions to the cluster VPC and set COMPONENT_ACCESS=direct (docs/adr/0018)';

/** Whether an answer body (an API server's 503 through its proxy) reports a refused TLS client. */
export function isTlsClientRefusal(text: string): boolean {
  return /tls: (certificate required|bad certificate|unknown certificate authority|failed to verify certificate)/.test(text);
}
