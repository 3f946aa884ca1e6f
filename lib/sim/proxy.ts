/**
 * In-process HTTP handlers standing in for the processes inside pods. The API server's pod and
 * service proxy paths forward to them; a service picks one ready endpoint as the real proxy does,
 * and answers 503 when none backs it.
 */
import { ApiError } from './api-error.js';
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';
import { isPodReady } from './pod-status.js';

/** A request as it reaches a process behind the proxy: the path after `/proxy`, and the query. */
export type ProxyRequest = { method: string; path: string; query: URLSearchParams; body: string; headers: Record<string, string> };

/** A process's answer. `body` is sent as is; set `contentType` for non-JSON bodies. */
export type ProxyResponse = { status: number; body: string; contentType?: string };

/** What a simulated process exposes on one port. */
export type PortHandler = (req: ProxyRequest) => Promise<ProxyResponse> | ProxyResponse;

/** Registered handlers by `namespace/pod:port`. */
export class ProxyRegistry {
  private readonly handlers = new Map<string, PortHandler>();
  private readonly rotation = new Map<string, number>();

  constructor(private readonly store: ObjectStore) {}

  /** Registers the handler a process serves on `port` of a pod; returns the unregister function. */
  register(namespace: string, pod: string, port: number, handler: PortHandler): () => void {
    const key = `${namespace}/${pod}:${port}`;
    this.handlers.set(key, handler);
    return () => {
      if (this.handlers.get(key) === handler) this.handlers.delete(key);
    };
  }

  /** Forwards to a pod's port (a name or number); 503 when nothing listens there. */
  async toPod(namespace: string, podName: string, port: string, req: ProxyRequest): Promise<ProxyResponse> {
    const pod = this.store.mustGet('Pod', namespace, podName);
    const portNumber = resolveContainerPort(pod, port);
    const handler = portNumber === undefined ? undefined : this.handlers.get(`${namespace}/${podName}:${portNumber}`);
    if (!handler || pod.status?.phase !== 'Running') {
      throw new ApiError(503, 'ServiceUnavailable', `error trying to reach service: dial tcp ${pod.status?.podIP ?? podName}:${port}: connect: connection refused`);
    }
    return handler(req);
  }

  /** Forwards to one ready pod behind a Service port (name or number); 503 without one. */
  async toService(namespace: string, serviceName: string, port: string, req: ProxyRequest): Promise<ProxyResponse> {
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
    const key = `${namespace}/${serviceName}`;
    const n = this.rotation.get(key) ?? 0;
    this.rotation.set(key, n + 1);
    const pod = ready[n % ready.length];
    if (!pod) throw new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${serviceName}"`);
    const target = svcPort?.targetPort ?? svcPort?.port ?? port;
    return this.toPod(namespace, pod.metadata.name ?? '', String(target), req);
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
