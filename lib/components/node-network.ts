/**
 * The Lambda's `ComponentNetwork`: Node's http and https straight to a pod IP, the component's
 * certificate verified against the cluster CA for its cluster DNS name (`servername`), the cluster
 * client certificate presented. One keep-alive agent per client certificate keeps connections warm
 * across calls of a warm container.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { COMPONENT_ANSWER_MAX_BYTES, readCappedText } from '../kube/answer-size.js';
import { type HttpAnswer, describeNetworkError, timeoutError } from '../kube/http.js';
import { ReconcilerError, TransientError } from '../platform/errors.js';
import { parseRetryAfterSeconds } from '../platform/retry.js';
import { type ClientCertificate, type ComponentNetwork, type DialTarget, queryString } from './network.js';
import { ClientCertificateRefusedError, ComponentUnreachableError } from './reach-errors.js';
import type { ComponentRequest } from './transport.js';

/** OpenSSL's and Node's codes for a handshake that failed over certificates (either side's). */
const CERTIFICATE_FAILURES = /ALERT_CERTIFICATE_REQUIRED|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA|UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT|ERR_TLS_CERT_ALTNAME_INVALID|CERT_HAS_EXPIRED/;

/** Plain and TLS exchanges over Node's network stack (see the module comment). */
export class NodeComponentNetwork implements ComponentNetwork {
  private readonly plain = new HttpAgent({ keepAlive: true, maxSockets: 16 });
  private readonly tlsAgents = new WeakMap<ClientCertificate, HttpsAgent>();

  async exchange(target: DialTarget, req: ComponentRequest, client: ClientCertificate | undefined, timeoutMs: number, what: string): Promise<HttpAnswer> {
    const path = req.path + queryString(req.query);
    const headers: Record<string, string> = req.body !== undefined ? { 'Content-Type': 'application/json' } : {};
    let timedOut = false;
    try {
      return await new Promise<HttpAnswer>((resolve, reject) => {
        const options = { host: target.ip, port: target.port, method: req.method, path, headers };
        const onAnswer = (res: import('node:http').IncomingMessage): void => {
          const retryAfterSeconds = parseRetryAfterSeconds(res.headers['retry-after']);
          readCappedText(res, COMPONENT_ANSWER_MAX_BYTES, req.path).then((text) => resolve({ status: res.statusCode ?? 0, text, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) }), reject);
        };
        const request =
          target.scheme === 'https'
            ? httpsRequest({ ...options, agent: this.agentFor(client), servername: target.serverName, ...(client ? { ca: client.caPem } : {}) }, onAnswer)
            : httpRequest({ ...options, agent: this.plain }, onAnswer);
        const timer = setTimeout(() => {
          timedOut = true;
          request.destroy(new Error(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        request.on('close', () => clearTimeout(timer));
        request.on('error', reject);
        request.end(req.body);
      });
    } catch (err) {
      if (err instanceof ReconcilerError) throw err;
      if (timedOut) throw timeoutError(what, timeoutMs, err);
      throw classifyNetworkError(err, what, target);
    }
  }

  private agentFor(client: ClientCertificate | undefined): HttpsAgent | undefined {
    if (client === undefined) return undefined;
    let agent = this.tlsAgents.get(client);
    if (agent === undefined) {
      agent = new HttpsAgent({ keepAlive: true, maxSockets: 16, ca: client.caPem, cert: client.certPem, key: client.keyPem });
      this.tlsAgents.set(client, agent);
    }
    return agent;
  }
}

/**
 * The typed error of a failed exchange: refused ⇒ `ComponentUnreachableError`; a handshake that
 * failed over certificates (the server's alert, as Go servers send it, or our own check of the
 * server's) ⇒ `ClientCertificateRefusedError`; anything else ⇒ `TransientError`.
 */
export function classifyNetworkError(err: unknown, what: string, target: DialTarget): Error {
  const code = typeof (err as { code?: unknown })?.code === 'string' ? String((err as { code: string }).code) : '';
  const text = describeNetworkError(err);
  const address = `${target.serverName} (${target.ip}:${target.port})`;
  if (code === 'ECONNREFUSED') return new ComponentUnreachableError(`${what} failed: ${address}: ${text}`, 'refused', { cause: err });
  if (CERTIFICATE_FAILURES.test(code) || CERTIFICATE_FAILURES.test(text)) {
    return new ClientCertificateRefusedError(`${what} failed: the TLS handshake with ${address} failed: ${text}`, { cause: err });
  }
  return new TransientError(`${what} failed: ${address}: ${text}`, { cause: err });
}
