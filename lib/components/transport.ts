/**
 * How the reconciler reaches a TiDB component's HTTP port. The default, as TiDB Operator, is
 * directly from inside the cluster's VPC (direct.ts, docs/adr/0018). The API server's proxy
 * (`/api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/...` for PD,
 * `.../pods/<pod>:<port>/proxy/...` for per-pod status ports) is an explicit opt-in
 * (`COMPONENT_ACCESS=api-proxy`) for clusters without TLS whose functions cannot join the VPC: it
 * presents no client certificate, so components under cluster TLS refuse it.
 */
import { COMPONENT_ANSWER_MAX_BYTES } from '../kube/answer-size.js';
import type { HttpAnswer, KubeHttp } from '../kube/http.js';
import { queryString } from './network.js';

/**
 * A component endpoint: a Service port, or one pod's port (with the headless service it is under).
 * `scheme: 'https'` when the component serves TLS (cluster TLS); http when unset.
 */
export type Endpoint = (
  | { type: 'service'; namespace: string; service: string; port: number }
  | { type: 'pod'; namespace: string; pod: string; subdomain: string; port: number }
) & { scheme?: 'http' | 'https' };

/** A request to a component; `path` starts with `/` and `query` is appended encoded. */
export type ComponentRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: string;
};

/**
 * Sends one request to an endpoint within `timeoutMs` and returns whatever status came back;
 * timeouts and network failures are `TransientError`s naming `what`; an answer over
 * `COMPONENT_ANSWER_MAX_BYTES` is an `AnswerTooLargeError` (terminal) naming the path and the cap.
 */
export interface ComponentHttp {
  send(endpoint: Endpoint, req: ComponentRequest, timeoutMs: number, what: string): Promise<HttpAnswer>;
}

/** Through the API server's service and pod proxy, with the KubeConfig's credentials. */
export class ApiProxyHttp implements ComponentHttp {
  constructor(private readonly http: KubeHttp) {}

  async send(endpoint: Endpoint, req: ComponentRequest, timeoutMs: number, what: string): Promise<HttpAnswer> {
    const path = proxyPath(endpoint) + req.path + queryString(req.query);
    return this.http.send({ method: req.method, path, ...(req.body !== undefined ? { body: req.body } : {}) }, timeoutMs, what, COMPONENT_ANSWER_MAX_BYTES);
  }
}

/**
 * The proxy path of an endpoint, up to and including `/proxy` (the component path follows). An
 * https endpoint is named `https:<name>:<port>`, the API server's syntax for proxying over TLS
 * (`[scheme:]name[:port]`); http needs no prefix.
 */
export function proxyPath(endpoint: Endpoint): string {
  const ns = encodeURIComponent(endpoint.namespace);
  const scheme = endpoint.scheme === 'https' ? 'https:' : '';
  const target = endpoint.type === 'service' ? `services/${scheme}${encodeURIComponent(endpoint.service)}` : `pods/${scheme}${encodeURIComponent(endpoint.pod)}`;
  return `/api/v1/namespaces/${ns}/${target}:${endpoint.port}/proxy`;
}
