/**
 * Components reached as TiDB Operator reaches them (docs/adr/0018): straight to the pods, by the
 * cluster DNS names its clients use — `<tc>-pd.<ns>.svc:2379` for PD, `<pod>.<peer>.<ns>.svc:<port>`
 * for one member — over https with the cluster client certificate when cluster TLS is on. Cluster
 * DNS does not resolve in a Lambda, so each name is resolved through the API server as CoreDNS
 * would: a Service to the ready addresses of its Endpoints (in a random order per request, as
 * kube-proxy draws one), a pod to its `status.podIP`. The connection goes to that IP; the certificate is
 * checked for the DNS name. Needs a function attached to the cluster's VPC (pod IPs are VPC
 * addresses with the VPC CNI) and `get` on endpoints, pods and the client Secret.
 */
import { COMPONENT_ANSWER_MAX_BYTES } from '../kube/answer-size.js';
import { LruMap } from '../platform/lru.js';
import type { HttpAnswer, KubeHttp } from '../kube/http.js';
import { TerminalError, TransientError } from '../platform/errors.js';
import type { ClientCertificates } from './client-certificates.js';
import type { ClientCertificate, ComponentNetwork } from './network.js';
import { ClientCertificateRefusedError, ComponentUnreachableError } from './reach-errors.js';
import type { ComponentHttp, ComponentRequest, Endpoint } from './transport.js';

/** `clusterDomain` makes names `<svc>.<ns>.svc.<domain>` (TiDB Operator's `clusterDomain`); `random` draws a Service's endpoint. */
export type DirectHttpOptions = { readonly clusterDomain?: string; readonly random?: () => number };

/** How many names a process keeps the last resolution of (a full cluster has about ten). */
export const RESOLVED_NAMES_KEPT = 2_000;

/**
 * The last resolution of each name, as a warm process's connection pool holds on to the address it
 * connected to: every resolution is stored; only a caller that asks for it (`DirectHttp.reusing`, a
 * step at rest, docs/adr/0024) connects to a stored address instead of resolving again, and a
 * stored address that does not answer is dropped and the name resolved afresh.
 */
export class ResolvedNames {
  private readonly names: LruMap<string, readonly string[]>;

  constructor(max: number = RESOLVED_NAMES_KEPT) {
    this.names = new LruMap(max);
  }

  /** The addresses `name` last resolved to, if kept. */
  get(name: string): readonly string[] | undefined {
    return this.names.get(name);
  }

  /** Keeps what `name` resolved to. */
  set(name: string, ips: readonly string[]): void {
    this.names.set(name, ips);
  }

  /** Forgets `name` (an address it gave did not answer). */
  forget(name: string): void {
    this.names.delete(name);
  }

  /**
   * The kept resolutions of one TidbCluster's names (`<name>:<port>` and its addresses): those whose
   * service, or whose pod's headless service, is one of its own (`CLUSTER_SUFFIXES`) in `namespace`.
   * What a step keeps in the state table for health steps in other processes (docs/adr/0024).
   */
  ofCluster(namespace: string, tcName: string): [string, readonly string[]][] {
    const services = new Set(CLUSTER_SUFFIXES.map((suffix) => `${tcName}${suffix}`));
    return this.names.entries().filter(([name]) => {
      const parts = name.split('.');
      const at = parts.indexOf(namespace);
      const service = at >= 1 ? parts[at - 1] : undefined;
      return at >= 1 && parts[at + 1]?.startsWith('svc') === true && service !== undefined && services.has(service);
    });
  }

  /** Takes resolutions kept elsewhere (another process's, through the state table) for names not resolved here. */
  adopt(entries: readonly (readonly [string, readonly string[]])[]): void {
    for (const [name, ips] of entries) if (this.names.peek(name) === undefined) this.names.set(name, ips);
  }
}

/** The cluster DNS name of an endpoint, as TiDB Operator's clients and certificates name it. */
export function clusterDnsName(endpoint: Endpoint, clusterDomain?: string): string {
  const suffix = clusterDomain ? `.svc.${clusterDomain}` : '.svc';
  const host = endpoint.type === 'service' ? `${endpoint.service}.${endpoint.namespace}` : `${endpoint.pod}.${endpoint.subdomain}.${endpoint.namespace}`;
  return host + suffix;
}

/** The services and headless services a TidbCluster's endpoints are under, by suffix (TiDB Operator's naming). */
const CLUSTER_SUFFIXES = ['-pd-peer', '-tikv-peer', '-tidb-peer', '-tiflash-peer', '-ticdc-peer', '-tiproxy-peer', '-pd', '-pump', '-tso', '-scheduling'];

/** The TidbCluster an endpoint belongs to (whose client certificate it is reached with). */
export function clusterOf(endpoint: Endpoint): string {
  const name = endpoint.type === 'service' ? endpoint.service : endpoint.subdomain;
  const suffix = CLUSTER_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix === undefined) throw new TerminalError(`cannot tell the TidbCluster of ${name}: not a TiDB Operator service name`, { field: 'endpoint' });
  return name.slice(0, -suffix.length);
}

/**
 * Directly to pod IPs resolved through the API server (see the module comment). Every resolution is
 * kept in `resolved`; `reusing()` gives the same transport connecting to a kept address first.
 */
export class DirectHttp implements ComponentHttp {
  constructor(
    private readonly kube: KubeHttp,
    private readonly network: ComponentNetwork,
    private readonly certificates: ClientCertificates,
    private readonly options: DirectHttpOptions = {},
    private readonly resolved: ResolvedNames = new ResolvedNames(),
    private readonly reuse: boolean = false,
    private readonly scope?: Map<string, Promise<readonly string[]>>,
  ) {}

  /** The resolutions this transport keeps (shared with every `reusing()` of it). */
  resolvedNames(): ResolvedNames {
    return this.resolved;
  }

  /** The same transport (and kept resolutions), connecting to the address a name last resolved to when one is kept. */
  reusing(): DirectHttp {
    return new DirectHttp(this.kube, this.network, this.certificates, this.options, this.resolved, true);
  }

  /**
   * The same transport for one invocation's calls (`ComponentCaller.withDeadline`): a name is resolved
   * afresh once in the scope — by its first call, so a full read sees the cluster as it is now — and
   * the scope's other calls, concurrent or later, connect to what that resolution gave, as a Go client
   * reuses its connection (a full step asks PD six things at once: one Endpoints read, not six). An
   * address that does not answer is resolved again, as a kept one is.
   */
  scoped(): DirectHttp {
    return new DirectHttp(this.kube, this.network, this.certificates, this.options, this.resolved, this.reuse, new Map());
  }

  async send(endpoint: Endpoint, req: ComponentRequest, timeoutMs: number, what: string): Promise<HttpAnswer> {
    const serverName = clusterDnsName(endpoint, this.options.clusterDomain);
    const name = `${serverName}:${endpoint.port}`;
    const inScope = this.reuse ? undefined : this.scope?.get(name);
    if (this.scope && !this.reuse && inScope === undefined) {
      // The scope's first call for the name resolves afresh; the scope's other calls wait for it (and
      // resolve themselves if it failed). A failure here is the call's, as without a scope.
      const started = performance.now();
      const resolution = this.resolve(endpoint, timeoutMs, what).then((ips) => {
        this.resolved.set(name, ips);
        return ips;
      });
      this.scope.set(name, resolution.catch((): readonly string[] => []));
      const ips = await resolution;
      try {
        return await this.sendResolved(endpoint, req, Math.max(1, Math.ceil(timeoutMs - (performance.now() - started))), what, ips);
      } catch (err) {
        // An address that did not answer: the next call (a retry) resolves afresh.
        if (err instanceof TransientError) this.scope.delete(name);
        throw err;
      }
    }
    const joined = inScope ? await inScope : undefined;
    const kept = this.reuse ? this.resolved.get(name) : joined && joined.length > 0 ? joined : undefined;
    if (kept === undefined) return this.sendResolved(endpoint, req, timeoutMs, what, undefined);
    try {
      return await this.sendResolved(endpoint, req, timeoutMs, what, kept);
    } catch (err) {
      // A kept address that does not answer may belong to a pod that is gone: resolve afresh, once.
      if (!(err instanceof TransientError)) throw err;
      this.resolved.forget(name);
      this.scope?.delete(name);
      return this.sendResolved(endpoint, req, timeoutMs, what, undefined);
    }
  }

  private async sendResolved(endpoint: Endpoint, req: ComponentRequest, timeoutMs: number, what: string, kept: readonly string[] | undefined): Promise<HttpAnswer> {
    const started = performance.now();
    const left = (): number => Math.max(1, Math.ceil(timeoutMs - (performance.now() - started)));
    const scheme = endpoint.scheme ?? 'http';
    const tcName = scheme === 'https' ? clusterOf(endpoint) : '';
    const client: ClientCertificate | undefined = scheme === 'https' ? await this.certificates.of(endpoint.namespace, tcName, left()) : undefined;
    const serverName = clusterDnsName(endpoint, this.options.clusterDomain);
    const ips = kept ? shuffled(kept, this.options.random ?? Math.random) : await this.resolve(endpoint, left(), what);
    if (!kept) this.resolved.set(`${serverName}:${endpoint.port}`, ips);
    // A Service's addresses in random order, each tried once while they refuse: Endpoints lag the
    // pods (a deleted or restarting member stays listed for a moment), as Go's dialer tries every
    // address a name resolves to. Any other failure, or an answer, ends the call.
    for (const [i, ip] of ips.entries()) {
      try {
        return await this.network.exchange({ ip, port: endpoint.port, scheme, serverName }, req, client, left(), what);
      } catch (err) {
        if (err instanceof ClientCertificateRefusedError && scheme === 'https') this.certificates.forget(endpoint.namespace, tcName);
        const refused = err instanceof ComponentUnreachableError && err.reason === 'refused';
        if (!refused || i === ips.length - 1) throw err;
      }
    }
    throw new ComponentUnreachableError(`${what} failed: no endpoints available for service "${serverName}"`, 'noEndpoints');
  }

  /**
   * The IPs to connect to for `endpoint`, as cluster DNS and kube-proxy would pick them: a pod's own
   * IP; a Service's ready addresses for the port, shuffled with `random`.
   */
  private async resolve(endpoint: Endpoint, timeoutMs: number, what: string): Promise<string[]> {
    const ns = encodeURIComponent(endpoint.namespace);
    const name = clusterDnsName(endpoint, this.options.clusterDomain);
    if (endpoint.type === 'pod') {
      const pod = await this.get<{ status?: { podIP?: string } }>(`/api/v1/namespaces/${ns}/pods/${encodeURIComponent(endpoint.pod)}`, timeoutMs, `${what}: resolve ${name}`);
      const ip = pod?.status?.podIP;
      if (!ip) throw new ComponentUnreachableError(`${what} failed: dial tcp: lookup ${name}: no such host`, 'noEndpoints');
      return [ip];
    }
    type Endpoints = { subsets?: { addresses?: { ip: string }[]; ports?: { port: number }[] }[] };
    const found = await this.get<Endpoints>(`/api/v1/namespaces/${ns}/endpoints/${encodeURIComponent(endpoint.service)}`, timeoutMs, `${what}: resolve ${name}`);
    const ready = (found?.subsets ?? []).filter((s) => (s.ports ?? []).some((p) => p.port === endpoint.port)).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
    if (ready.length === 0) throw new ComponentUnreachableError(`${what} failed: no endpoints available for service "${endpoint.service}"`, 'noEndpoints');
    return shuffled(ready, this.options.random ?? Math.random);
  }

  /** A GET through the API server; undefined for 404 (the name does not resolve). */
  private async get<T>(path: string, timeoutMs: number, what: string): Promise<T | undefined> {
    const answer = await this.kube.send({ method: 'GET', path }, timeoutMs, what, COMPONENT_ANSWER_MAX_BYTES);
    if (answer.status === 404) return undefined;
    if (answer.status === 429 || answer.status >= 500) throw new TransientError(`${what}: HTTP ${answer.status}`);
    if (answer.status >= 400) throw new TerminalError(`${what}: HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
    return JSON.parse(answer.text) as T;
  }
}

/** `items` in a random order drawn from `random` (Fisher–Yates). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.min(Math.floor(random() * (i + 1)), i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
