/**
 * The simulated world's network as a function sees it. A function attached to the cluster's VPC
 * (`inVpc`) reaches pod addresses: each exchange goes to the listener of the running pod with that
 * IP (the process the API server's pod proxy would reach), presenting the cluster client
 * certificate, and the components enforce mutual TLS on it as on the proxy (lib/sim/mtls.ts). A
 * function outside the VPC reaches only the API endpoint: a pod address never answers, so every
 * exchange times out, as a connection to a private address from the internet does.
 */
import type { ClientCertificate, ComponentNetwork, DialTarget } from '../components/network.js';
import { ClientCertificateRefusedError, ComponentUnreachableError } from '../components/reach-errors.js';
import type { ComponentRequest } from '../components/transport.js';
import { AnswerTooLargeError, COMPONENT_ANSWER_MAX_BYTES } from '../kube/answer-size.js';
import { type HttpAnswer, timeoutError } from '../kube/http.js';
import { TransientError } from '../platform/errors.js';
import { DialError, type ProxyRegistry } from '../sim/proxy.js';

/** Where a function runs: attached to the cluster's VPC, or outside it. */
export type Placement = { readonly inVpc: boolean };

/**
 * The world's network for one function (see the module comment). `onExchange` is told of every
 * exchange as it starts, whether it reaches anything or not (the scenario runner counts them).
 */
export class SimComponentNetwork implements ComponentNetwork {
  constructor(
    private readonly proxy: ProxyRegistry,
    private readonly placement: Placement,
    private readonly onExchange?: (target: DialTarget) => void,
  ) {}

  async exchange(target: DialTarget, req: ComponentRequest, client: ClientCertificate | undefined, timeoutMs: number, what: string): Promise<HttpAnswer> {
    this.onExchange?.(target);
    const address = `${target.serverName} (${target.ip}:${target.port})`;
    if (!this.placement.inVpc) throw timeoutError(what, timeoutMs, new Error(`dial tcp ${target.ip}:${target.port}: i/o timeout (no route from outside the cluster's VPC)`));
    const hello = client === undefined ? {} : { certPem: client.certPem, caPem: client.caPem };
    const request = { method: req.method, path: req.path, query: new URLSearchParams(req.query ?? {}), body: req.body ?? '', headers: {} };
    try {
      const answer = await this.proxy.dial(target.ip, target.port, request, target.scheme, hello);
      const size = Buffer.byteLength(answer.body);
      if (size > COMPONENT_ANSWER_MAX_BYTES) throw new AnswerTooLargeError(req.path, COMPONENT_ANSWER_MAX_BYTES, size);
      return { status: answer.status, text: answer.body };
    } catch (err) {
      if (!(err instanceof DialError)) throw err;
      if (err.reason === 'refused') throw new ComponentUnreachableError(`${what} failed: ${address}: ${err.message}`, 'refused', { cause: err });
      if (err.reason === 'timeout') throw timeoutError(what, timeoutMs, err);
      if (/certificate/.test(err.message)) throw new ClientCertificateRefusedError(`${what} failed: the TLS handshake with ${address} failed: ${err.message}`, { cause: err });
      throw new TransientError(`${what} failed: ${address}: ${err.message}`, { cause: err });
    }
  }
}
