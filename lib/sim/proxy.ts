/**
 * In-process HTTP handlers standing in for the processes inside pods. The API server's pod and
 * service proxy paths forward to them; a service picks one ready endpoint at random per request, as
 * the API server's service proxy and kube-proxy (iptables `statistic --mode random`) do, and answers
 * 503 when none backs it. A listener is plain or TLS, and the scheme must match as on
 * the wire: plain http to a TLS listener gets Go's `400 Client sent an HTTP request to an HTTPS
 * server.`; https to a plain one fails the handshake, which the proxy reports as 503
 * `error trying to reach service: tls: first record does not look like a TLS handshake`. A TLS
 * listener given a client CA requires a client certificate signed by it (mtls.ts): the API server's
 * proxy presents none, so it gets the handshake's alert, which the proxy answers as 503 `error
 * trying to reach service: remote error: tls: certificate required` (k8s.io/apimachinery
 * `pkg/util/proxy/transport.go`: `errors.NewServiceUnavailable(fmt.Sprintf("error trying to reach
 * service: %v", err))`). `dial` is the same listener reached at its pod IP by a client inside the
 * cluster's network, presenting its own certificate.
 */
import { ApiError } from './api-error.js';
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';
import { isPodReady } from './pod-status.js';
import type { ProxyScheme } from './routes.js';
import { type ClientHello, handshakeFailure } from './mtls.js';

/** A request as it reaches a process behind the proxy: the path after `/proxy`, and the query. */
export type ProxyRequest = { method: string; path: string; query: URLSearchParams; body: string; headers: Record<string, string> };

/** A process's answer. `body` is sent as is; set `contentType` for non-JSON bodies. */
export type ProxyResponse = { status: number; body: string; contentType?: string };

/** What a simulated process exposes on one port. */
export type PortHandler = (req: ProxyRequest) => Promise<ProxyResponse> | ProxyResponse;

/**
 * How a process listens on a port: plain http (the default) or TLS; with `clientCa` (the PEM of the
 * CA file it is configured with) a TLS listener requires a client certificate signed by it.
 * `serverCert` is the certificate and key its config names (its container's files): what it
 * presents in a real handshake (the VPC gateway, vpc-gateway.ts).
 */
export type ListenOptions = { readonly tls?: boolean; readonly clientCa?: string; readonly serverCert?: ServerCertificate };

/** A listener's own certificate and key, PEM, as the files its config names hold them. */
export type ServerCertificate = { readonly certPem: string; readonly keyPem: string };

type Listener = { readonly handler: PortHandler; readonly tls: boolean; readonly clientCa?: string; readonly serverCert?: ServerCertificate };

/**
 * A pod's port as a connection from inside the cluster's network finds it: how it listens (TLS, the
 * CA it verifies clients with, its own certificate) and `serve`, which answers one request as long
 * as the pod runs and the process still listens there (else `DialError` refused: the connection is
 * gone).
 */
export type OpenPort = {
  readonly namespace: string;
  readonly pod: string;
  readonly tls: boolean;
  readonly clientCa?: string;
  readonly serverCert?: ServerCertificate;
  serve(req: ProxyRequest): Promise<ProxyResponse>;
};

/** The API server's proxy: it verifies no server certificate and presents no client certificate. */
const API_SERVER_PROXY: ClientHello = {};

/** Why a connection to a pod address failed below HTTP (refused, or the TLS handshake's error). */
export class DialError extends Error {
  constructor(
    message: string,
    readonly reason: 'refused' | 'tls' | 'timeout',
  ) {
    super(message);
    this.name = 'DialError';
  }
}

/** Registered handlers by `namespace/pod:port`. */
export class ProxyRegistry {
  private readonly handlers = new Map<string, Listener>();

  /** `random` picks a service's endpoint per request; a seeded one makes a run reproducible (default Math.random). */
  constructor(
    private readonly store: ObjectStore,
    private readonly random: () => number = Math.random,
  ) {}

  /** Registers the handler a process serves on `port` of a pod (TLS with `tls: true`); returns the unregister function. */
  register(namespace: string, pod: string, port: number, handler: PortHandler, options: ListenOptions = {}): () => void {
    const key = `${namespace}/${pod}:${port}`;
    const listener: Listener = {
      handler,
      tls: options.tls === true,
      ...(options.clientCa !== undefined ? { clientCa: options.clientCa } : {}),
      ...(options.serverCert !== undefined ? { serverCert: options.serverCert } : {}),
    };
    this.handlers.set(key, listener);
    return () => {
      if (this.handlers.get(key) === listener) this.handlers.delete(key);
    };
  }

  /**
   * Forwards to a pod's port (a name or number) over `scheme` as `client` (default: the API
   * server's proxy, no certificate); 503 when nothing listens there or the handshake fails.
   */
  async toPod(namespace: string, podName: string, port: string, req: ProxyRequest, scheme: ProxyScheme = 'http', client: ClientHello = API_SERVER_PROXY): Promise<ProxyResponse> {
    const pod = this.store.mustGet('Pod', namespace, podName);
    try {
      return await this.serve(pod, port, req, scheme, client);
    } catch (err) {
      if (err instanceof DialError) throw new ApiError(503, 'ServiceUnavailable', `error trying to reach service: ${err.message}`);
      throw err;
    }
  }

  /**
   * A request to `ip:port` from inside the cluster's network (a pod, or a function attached to the
   * VPC), presenting `client`: the listener of the running pod with that IP. Throws `DialError` for
   * what fails below HTTP (no pod or nothing listening: refused; a failed handshake).
   */
  async dial(ip: string, port: number, req: ProxyRequest, scheme: ProxyScheme, client: ClientHello): Promise<ProxyResponse> {
    const pod = this.store.list('Pod', undefined, (p) => p.status?.podIP === ip && !p.metadata.deletionTimestamp)[0];
    if (!pod) throw new DialError(`dial tcp ${ip}:${port}: connect: connection refused`, 'refused');
    return this.serve(pod, String(port), req, scheme, client);
  }

  /**
   * The port `ip:port` as a TCP connection from inside the cluster's network reaches it (the VPC
   * gateway's tunnels): the running pod with that IP and its process's listener there. Throws
   * `DialError` refused as `dial` does when there is none; the handshake is the caller's (real TLS).
   */
  open(ip: string, port: number): OpenPort {
    const { pod, listener } = this.listenerAt(ip, port);
    return {
      namespace: pod.metadata.namespace ?? '',
      pod: pod.metadata.name ?? '',
      tls: listener.tls,
      ...(listener.clientCa !== undefined ? { clientCa: listener.clientCa } : {}),
      ...(listener.serverCert !== undefined ? { serverCert: listener.serverCert } : {}),
      serve: async (req) => {
        // The connection ends with the process: a restarted one listens anew (a new connection).
        const now = this.handlers.get(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}:${port}`);
        const running = this.store.get('Pod', pod.metadata.namespace ?? '', pod.metadata.name ?? '');
        if (now !== listener || running?.status?.phase !== 'Running' || running.metadata.deletionTimestamp) {
          throw new DialError(`read tcp ${ip}:${port}: connection reset by peer`, 'refused');
        }
        return listener.handler(req);
      },
    };
  }

  private listenerAt(ip: string, port: number): { pod: KubeObject; listener: Listener } {
    const pod = this.store.list('Pod', undefined, (p) => p.status?.podIP === ip && !p.metadata.deletionTimestamp)[0];
    const listener = pod === undefined ? undefined : this.handlers.get(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}:${port}`);
    if (!pod || !listener || pod.status?.phase !== 'Running') throw new DialError(`dial tcp ${ip}:${port}: connect: connection refused`, 'refused');
    return { pod, listener };
  }

  private async serve(pod: KubeObject, port: string, req: ProxyRequest, scheme: ProxyScheme, client: ClientHello): Promise<ProxyResponse> {
    const namespace = pod.metadata.namespace ?? '';
    const portNumber = resolveContainerPort(pod, port);
    const listener = portNumber === undefined ? undefined : this.handlers.get(`${namespace}/${pod.metadata.name ?? ''}:${portNumber}`);
    const address = `${pod.status?.podIP ?? pod.metadata.name ?? ''}:${port}`;
    if (!listener || pod.status?.phase !== 'Running') throw new DialError(`dial tcp ${address}: connect: connection refused`, 'refused');
    // As Go's net/http on a TLS listener: a plaintext request gets this answer and nothing else.
    if (listener.tls && scheme === 'http') return { status: 400, body: 'Client sent an HTTP request to an HTTPS server.\n', contentType: 'text/plain; charset=utf-8' };
    if (!listener.tls && scheme === 'https') throw new DialError('tls: first record does not look like a TLS handshake', 'tls');
    const refused = scheme === 'https' ? handshakeFailure(this.store, namespace, listener, client) : undefined;
    if (refused !== undefined) throw new DialError(refused, 'tls');
    return listener.handler(req);
  }

  /**
   * Forwards over `scheme` to one ready pod behind a Service port (name or number), drawn at random
   * for each request; 503 without one. A Ready pod whose process does not listen refuses the
   * connection (503) as on the wire; the next request draws again, so no caller keeps landing on it.
   */
  async toService(namespace: string, serviceName: string, port: string, req: ProxyRequest, scheme: ProxyScheme = 'http', client: ClientHello = API_SERVER_PROXY): Promise<ProxyResponse> {
    const svc = this.store.mustGet('Service', namespace, serviceName);
    const svcPort = (svc.spec?.ports ?? []).find((p: { name?: string; port: number }) => p.name === port || String(p.port) === port);
    if (!svcPort && port !== '') throw new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${serviceName}"`);
    const selector: Record<string, string> = svc.spec?.selector ?? {};
    const ready = this.store
      .list('Pod', namespace, (p) => Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v) && isPodReady(p))
      .filter((p) => !p.metadata.deletionTimestamp);
    if (Object.keys(selector).length === 0 || ready.length === 0) {
      throw new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${serviceName}"`);
    }
    const pod = ready[Math.min(Math.floor(this.random() * ready.length), ready.length - 1)];
    if (!pod) throw new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${serviceName}"`);
    const target = svcPort?.targetPort ?? svcPort?.port ?? port;
    return this.toPod(namespace, pod.metadata.name ?? '', String(target), req, scheme, client);
  }
}

/** A named container port resolves through the pod spec; a number is used as is. */
function resolveContainerPort(pod: KubeObject, port: string): number | undefined {
  if (/^\d+$/.test(port)) return Number(port);
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === port) return p.containerPort;
  }
  return undefined;
}
