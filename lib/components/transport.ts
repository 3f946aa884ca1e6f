/**
 * How the reconciler reaches a TiDB component's HTTP port. Cluster DNS does not resolve from
 * Lambda, so the default is the API server's proxy (DESIGN §5): services for PD
 * (`/api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/...`) and pods for per-pod status ports
 * (`.../pods/<pod>:<port>/proxy/...`), authenticated like every other API call. A VPC-attached
 * Lambda may use the direct mode (`http://<svc>.<ns>:<port>`, `http://<pod>.<peer>.<ns>:<port>`).
 */
import { COMPONENT_ANSWER_MAX_BYTES, readCappedFetchText } from '../kube/answer-size.js';
import { type HttpAnswer, KubeHttp, describeNetworkError, timeoutError } from '../kube/http.js';
import { ReconcilerError, TransientError } from '../platform/errors.js';
import { parseRetryAfterSeconds } from '../platform/retry.js';

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

/** Options of the direct mode: `clusterDomain` makes names `<svc>.<ns>.svc.<domain>` (as TiDB Operator). */
export type DirectHttpOptions = { scheme?: 'http' | 'https'; clusterDomain?: string };

/** Straight to the component's cluster DNS name, for Lambdas inside the cluster's VPC. */
export class DirectHttp implements ComponentHttp {
  constructor(private readonly options: DirectHttpOptions = {}) {}

  /** The base URL of an endpoint, e.g. `http://basic-pd.demo:2379`. */
  baseUrl(endpoint: Endpoint): string {
    const suffix = this.options.clusterDomain ? `.svc.${this.options.clusterDomain}` : '';
    const host = endpoint.type === 'service' ? `${endpoint.service}.${endpoint.namespace}` : `${endpoint.pod}.${endpoint.subdomain}.${endpoint.namespace}`;
    return `${endpoint.scheme ?? this.options.scheme ?? 'http'}://${host}${suffix}:${endpoint.port}`;
  }

  async send(endpoint: Endpoint, req: ComponentRequest, timeoutMs: number, what: string): Promise<HttpAnswer> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(this.baseUrl(endpoint) + req.path + queryString(req.query), {
        method: req.method,
        headers: req.body !== undefined ? { 'Content-Type': 'application/json' } : {},
        ...(req.body !== undefined ? { body: req.body } : {}),
        signal,
      });
      const retryAfterSeconds = parseRetryAfterSeconds(res.headers.get('retry-after'));
      const text = await readCappedFetchText(res, COMPONENT_ANSWER_MAX_BYTES, req.path);
      return { status: res.status, text, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
    } catch (err) {
      if (err instanceof ReconcilerError) throw err;
      if (signal.aborted) throw timeoutError(what, timeoutMs, err);
      throw new TransientError(`${what} failed: ${describeNetworkError(err)}`, { cause: err });
    }
  }
}

function queryString(query: Record<string, string> | undefined): string {
  if (!query || Object.keys(query).length === 0) return '';
  return `?${new URLSearchParams(query).toString()}`;
}
