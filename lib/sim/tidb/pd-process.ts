/**
 * A PD server process, following TiDB Operator's PD start script: wait (up to the start timeout)
 * for its peer DNS name, then either restart as the member its data directory belongs to (which
 * needs a serving majority counting itself), or — with a fresh data directory — ask discovery
 * (`/new/<base64 peer URL>` on `<tc>-discovery:10261`) and bootstrap with `--initial-cluster` or
 * add itself with `--join`. Discovery not answering within the start timeout, a removed member's
 * data, or a refused join make the process exit, so the pod crash-loops. Under cluster TLS (https
 * URLs in its start script) it needs the `[security]` cert files mounted, or it exits at once, and
 * then serves both ports as TLS listeners only: plain http to it fails as on the wire.
 */
import { ApiError } from '../api-error.js';
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import type { ProcessHooks } from '../runtime.js';
import { handlePdRequest } from './pd-api.js';
import { servePdRequest } from './pd-api-wait.js';
import type { PdCluster } from './pd-cluster.js';
import type { PdMember, PdMemberInfo } from './pd-members.js';
import { type PdIdentity, pdIdentityOf } from './pd-identity.js';
import { type PdTls, readPdTls } from './pd-tls.js';
import type { PodInfo } from './pod-info.js';
import { TidbProcess } from './process.js';
import { DialError } from '../proxy.js';
import type { SimContext } from './sim-context.js';

/** One PD member's process. */
export class PdProcess extends TidbProcess {
  private readonly cluster: PdCluster;
  private readonly startedAtMs: number;
  private readonly tls: PdTls;
  private member: PdMember | undefined;
  /** The member name and advertised host, as the start script sets them. */
  private readonly identity: PdIdentity;

  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks);
    this.identity = pdIdentityOf(pod);
    this.cluster = sim.clusters.get(pod.namespace, pod.cluster).pd;
    this.startedAtMs = sim.clock.nowMs();
    const podObject = sim.store.get('Pod', pod.namespace, pod.name);
    this.tls = podObject ? readPdTls(sim.store, podObject, pod) : { scheme: 'http' };
    if (this.crashOnBadConfig()) return;
    const problem = this.tls.problem;
    if (problem !== undefined) this.after(sim.knobs.crashAfterMs, () => this.crash(problem));
    else this.after(sim.knobs.processBootMs, () => this.waitForPeerDns());
  }

  /** The member this process serves, once it serves one. */
  get servedMember(): PdMember | undefined {
    return this.member;
  }

  protected onEnd(): void {
    if (this.member) this.cluster.members.setServing(this.member, false);
  }

  private host(): string {
    return this.identity.host;
  }

  private info(): PdMemberInfo {
    const scheme = this.tls.scheme;
    return { name: this.identity.name, dataUid: this.pod.dataUid, peerUrl: `${scheme}://${this.host()}:2380`, clientUrl: `${scheme}://${this.host()}:2379`, version: this.pod.version };
  }

  private timedOut(): boolean {
    return this.sim.clock.nowMs() - this.startedAtMs >= this.sim.knobs.pdStartTimeoutMs;
  }

  /** As the start script's nslookup loop: the headless service must exist (it publishes not-ready addresses). */
  private waitForPeerDns(): void {
    if (this.sim.store.get('Service', this.pod.namespace, this.pod.subdomain)) return this.fromData();
    this.status = `waiting for ${this.host()} to resolve`;
    if (this.timedOut()) return this.crash('waiting for pd cluster ready timeout');
    this.after(1000, () => this.waitForPeerDns());
  }

  private fromData(): void {
    const member = this.cluster.members.memberOfData(this.pod.dataUid);
    if (member) return this.rejoin(member);
    // As etcd: a data directory of a removed member cannot start again.
    if (this.cluster.members.isRemovedData(this.pod.dataUid)) return this.crash('the member has been permanently removed from the cluster');
    void this.askDiscovery();
  }

  /**
   * A restart on existing data: the member's process is up at once (it counts towards the raft
   * majority), but as etcd's ReadyNotify it only opens its client port once a majority is up.
   */
  private rejoin(member: PdMember): void {
    if (member.name !== this.identity.name) return this.crash(`data directory belongs to member ${member.name}`);
    this.serve(member);
  }

  private async askDiscovery(): Promise<void> {
    this.status = 'waiting for discovery service to return start args';
    const encoded = Buffer.from(`${this.host()}:2380\n`).toString('base64');
    const req: ProxyRequest = { method: 'GET', path: `/new/${encoded}`, query: new URLSearchParams(), body: '', headers: {} };
    let res: ProxyResponse | undefined;
    try {
      res = await this.sim.proxy.toService(this.pod.namespace, `${this.pod.cluster}-discovery`, '10261', req);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
    if (!this.running) return;
    if (res && res.status === 200) return this.startWith(res.body.trim());
    if (this.timedOut()) return this.crash('discovery service did not return start args before the start timeout');
    this.after(1000 + this.sim.rng.int(4) * 1000, () => void this.askDiscovery());
  }

  private startWith(args: string): void {
    if (args.startsWith('--initial-cluster=')) {
      // A second bootstrap would be a second cluster; this simulator refuses it like a cluster-ID mismatch.
      if (this.cluster.members.list().length > 0) return this.crash('cluster ID mismatch: a cluster was already bootstrapped');
      const config = 'ok' in this.pod.config ? this.pod.config.ok : {};
      return this.serve(this.cluster.bootstrapMember(this.info(), config));
    }
    if (!args.startsWith('--join=')) return this.crash(`unexpected discovery answer: ${args}`);
    const joined = this.cluster.joinMember(this.info(), this.pod.name);
    if ('refused' in joined) return this.crash(joined.refused.message);
    const { member, interrupted } = joined.ok;
    // PD's join adds the etcd member, then lists members and writes the join file; dying in between
    // leaves the member unstarted and no join file, so the restart asks discovery and joins again.
    if (interrupted) return this.crash(`join failed, adds the new member ${this.identity.name} may failed (member ${member.id} added)`);
    this.serve(member);
  }

  private serve(member: PdMember): void {
    this.member = member;
    member.version = this.pod.version;
    // `pd-server services api …` (v1.6's start script for PD in mode ms): PD as the API service.
    member.apiService = /\bservices\s+api\b/.test(this.pod.startScript ?? '');
    this.cluster.members.setServing(member, true);
    // As etcd: a member removed from the cluster shuts itself down — after the conf change is applied,
    // so a removal this member served itself still answers its client (a millisecond later here).
    let leaving = false;
    this.onCleanup(
      this.cluster.onChange(() => {
        if (leaving || !this.running || this.cluster.members.get(member.name) === member) return;
        leaving = true;
        this.after(1, () => this.crash('the member has been permanently removed from the cluster'));
      }),
    );
    if (this.cluster.members.hasQuorum()) return this.openPorts(member);
    this.status = 'waiting for a quorum of members to start';
    const unsubscribe = this.cluster.onChange(() => {
      if (!this.running || !this.cluster.members.hasQuorum()) return;
      unsubscribe();
      this.openPorts(member);
    });
    this.onCleanup(unsubscribe);
  }

  private openPorts(member: PdMember): void {
    this.status = 'serving';
    const tls = this.tls.scheme === 'https';
    const clientCa = tls ? this.tls.ca : undefined;
    const serverCert = tls ? this.tls.cert : undefined;
    this.listen(2379, (req) => this.handle(member, req), { tls, ...(clientCa !== undefined ? { clientCa } : {}), ...(serverCert !== undefined ? { serverCert } : {}) }, (req) => this.serveClient(member, req));
    this.listen(2380, () => ({ status: 404, body: '' }), { tls, ...(clientCa !== undefined ? { clientCa } : {}), ...(serverCert !== undefined ? { serverCert } : {}) });
  }

  /** A client's request: answered as PD answers it, waiting where PD waits (pd-api-wait.ts). */
  private async serveClient(member: PdMember, req: ProxyRequest): Promise<ProxyResponse> {
    if (this.cluster.isApiDown()) throw new DialError(`dial tcp ${this.host()}:2379: i/o timeout`, 'timeout');
    const res = await servePdRequest({ cluster: this.cluster, member, record: this.sim.record }, this.sim.clock, req);
    // A process that ended while the request waited never answers it.
    if (!this.running) throw new DialError(`read tcp ${this.host()}:2379: connection reset by peer`, 'refused');
    return res;
  }

  private handle(member: PdMember, req: ProxyRequest): ProxyResponse {
    // Unreachable: the proxy answers 503 `error trying to reach service: …`, a direct client times out.
    if (this.cluster.isApiDown()) throw new DialError(`dial tcp ${this.host()}:2379: i/o timeout`, 'timeout');
    return handlePdRequest({ cluster: this.cluster, member, record: this.sim.record }, req);
  }
}
