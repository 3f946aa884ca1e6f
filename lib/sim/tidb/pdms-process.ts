/**
 * A PD microservice server (`pd-server services tso|scheduling`, tikv/pd `pkg/mcs`), as TiDB
 * Operator v1.6's start script runs it (docs/reference/pd-microservices.md §3, §5): wait for the
 * pod's DNS name under its headless Service; then register with the PD of `--backend-endpoints`
 * (its etcd), which needs PD to have a leader — until then it retries, and exits once PD's start
 * timeout has passed without one; once registered it serves 2379 and campaigns for its service's
 * primary every second. `GET /tso/api/v1/health` answers 200 `"ok"` while the tso service has a
 * primary, else 500 `no leader elected`; `POST /<svc>/api/v1/primary/transfer {"new_primary"}`
 * moves the primary (recorded as `pd.transferPrimary`). A stopped server's entry goes with it.
 * Under cluster TLS (`https` in `--listen-addr`) it needs PD's `[security]` files, as PD does, and
 * serves 2379 as a TLS listener requiring client certificates signed by the cluster CA.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import type { ProcessHooks } from '../runtime.js';
import { json, notFoundPage, objectBody, text } from './http.js';
import type { PdCluster } from './pd-cluster.js';
import { type PdTls, readPdTls } from './pd-tls.js';
import type { PodInfo } from './pod-info.js';
import { TidbProcess } from './process.js';
import type { SimContext } from './sim-context.js';

/** The microservices a PD image runs besides PD itself. */
export type PdmsService = 'tso' | 'scheduling';

/** The service a PD container's start script runs (`services tso` / `services scheduling`), or undefined for PD itself. */
export function pdmsServiceOf(startScript: string | undefined): PdmsService | undefined {
  const match = /\bservices\s+(tso|scheduling)\b/.exec(startScript ?? '');
  return match?.[1] === 'tso' || match?.[1] === 'scheduling' ? match[1] : undefined;
}

/** `--name=<value>` of the script with `${PDMS_POD_NAME}` as the pod's name, else the pod's name (PD < v8.3.0 names itself after its host). */
function serverName(script: string, podName: string): string {
  const named = /--name=(\S+)/.exec(script)?.[1];
  return named === undefined ? podName : named.replace('${PDMS_POD_NAME}', podName);
}

/** The TidbCluster whose PD `--backend-endpoints` names (`<scheme>://<tc>-pd:2379`), else the pod's own cluster. */
function backendCluster(script: string, fallback: string): string {
  return /--backend-endpoints=https?:\/\/([^:/\s]+)-pd:2379/.exec(script)?.[1] ?? fallback;
}

/** One tso or scheduling server's process. */
export class PdmsProcess extends TidbProcess {
  private readonly cluster: PdCluster;
  private readonly startedAtMs: number;
  private readonly name: string;
  private readonly tls: PdTls;
  private registered = false;

  constructor(
    sim: SimContext,
    pod: PodInfo,
    hooks: ProcessHooks,
    private readonly service: PdmsService,
  ) {
    super(sim, pod, hooks);
    const script = pod.startScript ?? '';
    this.cluster = sim.clusters.get(pod.namespace, backendCluster(script, pod.cluster)).pd;
    this.name = serverName(script, pod.name);
    this.startedAtMs = sim.clock.nowMs();
    const podObject = sim.store.get('Pod', pod.namespace, pod.name);
    this.tls = podObject ? readPdTls(sim.store, podObject, pod) : { scheme: 'http' };
    if (this.crashOnBadConfig()) return;
    // As PD's own: https in --listen-addr needs the [security] files (PD's certificate) in the container.
    const problem = this.tls.problem;
    if (problem !== undefined) this.after(sim.knobs.crashAfterMs, () => this.crash(problem));
    else this.after(sim.knobs.processBootMs, () => this.waitForDns());
  }

  private timedOut(): boolean {
    return this.sim.clock.nowMs() - this.startedAtMs >= this.sim.knobs.pdStartTimeoutMs;
  }

  private address(): string {
    return `${this.tls.scheme}://${this.pod.name}.${this.pod.subdomain}.${this.pod.namespace}.svc:2379`;
  }

  /** As the start script's dig loop: the headless Service must exist. */
  private waitForDns(): void {
    if (this.sim.store.get('Service', this.pod.namespace, this.pod.subdomain)) return this.register();
    this.status = `waiting for ${this.pod.name}.${this.pod.subdomain} to resolve`;
    if (this.timedOut()) return this.crash('waiting for pd cluster ready timeout');
    this.after(1000, () => this.waitForDns());
  }

  /** Registers in PD's etcd (needs a PD leader), then serves and campaigns. */
  private register(): void {
    if (!this.cluster.hasLeader()) {
      this.status = 'waiting for the backend PD to register the service';
      if (this.timedOut()) return this.crash('failed to register the service: context deadline exceeded');
      this.after(1000, () => this.register());
      return;
    }
    this.registered = true;
    this.cluster.microservices.register(this.service, { name: this.name, serviceAddr: this.address(), version: this.pod.version, startTimestamp: Math.floor(this.sim.clock.nowMs() / 1000) });
    this.status = 'serving';
    const tls = this.tls.scheme === 'https';
    const clientCa = tls ? this.tls.ca : undefined;
    const serverCert = tls ? this.tls.cert : undefined;
    this.listen(2379, (req) => this.handle(req), { tls, ...(clientCa !== undefined ? { clientCa } : {}), ...(serverCert !== undefined ? { serverCert } : {}) });
    this.campaign();
  }

  /** Every second: take the primary when there is none (and no transfer expects another server). */
  private campaign(): void {
    if (this.cluster.hasLeader()) this.cluster.microservices.campaign(this.service, this.name);
    this.after(1000, () => this.campaign());
  }

  protected onEnd(): void {
    if (this.registered) this.cluster.microservices.leave(this.service, this.name);
  }

  private handle(req: ProxyRequest): ProxyResponse {
    const prefix = `/${this.service}/api/v1`;
    if (this.service === 'tso' && req.method === 'GET' && req.path === `${prefix}/health`) {
      return this.cluster.microservices.primary('tso') ? json(200, 'ok') : text(500, 'no leader elected', false);
    }
    if (req.method === 'POST' && req.path === `${prefix}/primary/transfer`) return this.transfer(req);
    return notFoundPage();
  }

  private transfer(req: ProxyRequest): ProxyResponse {
    const body = objectBody(req);
    if (body === undefined) return text(400, 'invalid request body', false);
    const to = typeof body['new_primary'] === 'string' ? body['new_primary'] : '';
    const result = this.cluster.microservices.transfer(this.service, to);
    this.sim.record({ verb: 'pd.transferPrimary', args: { service: this.service, to }, ...('refused' in result ? { error: result.refused.message } : {}) });
    return 'ok' in result ? json(200, 'success') : json(result.refused.status, result.refused.message);
  }
}
