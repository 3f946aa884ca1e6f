/**
 * TiDB Operator's discovery service (`tidb-discovery` in the operator image), answering
 * `GET /new/<base64 advertise peer URL>` on 10261 as pkg/discovery does: it remembers which PD pods
 * asked (forgetting whenever the TidbCluster's resourceVersion changes); when as many distinct pods
 * have asked as the desired PD replicas, the last asker gets `--initial-cluster=<pod>=<url>`;
 * everyone else gets `--join=<client URLs of the current members>` from PD's members API — which
 * fails (500) while there is no PD yet, so early askers retry. Under cluster TLS
 * (`spec.tlsCluster.enabled`) the initial-cluster URL is https, and with `TC_TLS_ENABLED=true` (its
 * Deployment mounts the PD certificate) it calls PD over https.
 */
import type { ClientHello } from '../mtls.js';
import { isLosslessNumber, parse } from 'lossless-json';
import { ApiError } from '../api-error.js';
import type { KubeObject } from '../object.js';
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import type { ProcessHooks } from '../runtime.js';
import { notFoundPage, text } from './http.js';
import type { PodInfo } from './pod-info.js';
import { TidbProcess } from './process.js';
import type { SimContext } from './sim-context.js';

type Peers = { resourceVersion: string; pods: Set<string> };

/** `PDStsDesiredReplicas`: spec replicas plus failure members already deleted from PD. */
export function pdDesiredReplicas(tc: KubeObject): number {
  const replicas = typeof tc.spec?.pd?.replicas === 'number' ? tc.spec.pd.replicas : 0;
  const failures = Object.values((tc.status?.pd?.failureMembers ?? {}) as Record<string, { memberDeleted?: boolean }>);
  return replicas + failures.filter((f) => f.memberDeleted === true).length;
}

/** The discovery process of one TidbCluster. */
export class DiscoveryProcess extends TidbProcess {
  private readonly clusters = new Map<string, Peers>();

  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks);
    this.after(sim.knobs.processBootMs, () => {
      this.status = 'serving';
      this.listenAsync(10261, (req) => this.handle(req));
      this.listen(10262, () => notFoundPage());
    });
  }

  protected onEnd(): void {
    // In-memory state only: a restarted discovery starts with no askers.
  }

  private async handle(req: ProxyRequest): Promise<ProxyResponse> {
    const match = /^\/(new|verify)\/([^/]+)$/.exec(req.path);
    if (req.method !== 'GET' || !match) return notFoundPage();
    const decoded = Buffer.from(decodeURIComponent(match[2] ?? ''), 'base64').toString('utf8').trim();
    if (decoded === '') return text(500, `failed to decode advertise-peer-url: ${match[2] ?? ''}`);
    if (match[1] === 'verify') return text(200, decoded, false);
    try {
      return text(200, await this.discover(decoded), false);
    } catch (err) {
      return text(500, (err as Error).message);
    }
  }

  private async discover(advertisePeerUrl: string): Promise<string> {
    const host = advertisePeerUrl.replace(/:\d+$/, '');
    const [podName = '', peerService = ''] = host.split('.');
    const tcName = peerService.replace(/-pd-peer$/, '');
    const namespace = this.pod.env.MY_POD_NAMESPACE ?? this.pod.namespace;
    const tc = this.sim.store.get('TidbCluster', namespace, tcName);
    if (!tc) throw new Error(`tidbclusters.pingcap.com "${tcName}" not found`);
    const key = `${namespace}/${tcName}`;
    const rv = tc.metadata.resourceVersion ?? '';
    if (this.clusters.get(key)?.resourceVersion !== rv) this.clusters.set(key, { resourceVersion: rv, pods: new Set() });
    const peers = this.clusters.get(key) ?? { resourceVersion: rv, pods: new Set<string>() };
    peers.pods.add(podName);
    if (peers.pods.size === pdDesiredReplicas(tc) && !tc.spec?.cluster) {
      peers.pods.delete(podName);
      const scheme = tc.spec?.tlsCluster?.enabled === true ? 'https' : 'http';
      return `--initial-cluster=${podName}=${scheme}://${advertisePeerUrl}`;
    }
    const urls = await this.memberClientUrls(namespace, tcName);
    peers.pods.delete(podName);
    return `--join=${urls.join(',')}`;
  }

  /**
   * The certificate discovery presents to PD: as TiDB Operator's discovery (its PD control reads the
   * TLS config from `<tc>-cluster-client-secret`), the cluster client certificate and CA.
   */
  private clusterClient(namespace: string, tcName: string): ClientHello {
    const data = this.sim.store.get('Secret', namespace, `${tcName}-cluster-client-secret`)?.data as Record<string, string> | undefined;
    const pem = (key: string): string | undefined => (data?.[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8'));
    const [certPem, caPem] = [pem('tls.crt'), pem('ca.crt')];
    return { ...(certPem !== undefined ? { certPem } : {}), ...(caPem !== undefined ? { caPem } : {}) };
  }

  /** `GET /pd/api/v1/members` through `<tc>-pd:2379`; each member's peer URL with 2380 → 2379. */
  private async memberClientUrls(namespace: string, tcName: string): Promise<string[]> {
    const req: ProxyRequest = { method: 'GET', path: '/pd/api/v1/members', query: new URLSearchParams(), body: '', headers: {} };
    const scheme = this.pod.env.TC_TLS_ENABLED === 'true' ? 'https' : 'http';
    const url = `${scheme}://${tcName}-pd.${namespace}:2379/pd/api/v1/members`;
    let res: ProxyResponse;
    try {
      res = await this.sim.proxy.toService(namespace, `${tcName}-pd`, '2379', req, scheme, this.clusterClient(namespace, tcName));
    } catch (err) {
      throw new Error(`Get "${url}": ${err instanceof ApiError ? err.message : String(err)}`);
    }
    if (res.status >= 400) throw new Error(`Error response ${res.status} URL ${url}`);
    const body = parse(res.body) as { members?: { peer_urls?: string[] }[] } | null;
    const members = (body?.members ?? []).filter((m) => !isLosslessNumber(m));
    return members.map((m) => (m.peer_urls?.[0] ?? '').replace(':2380', ':2379'));
  }
}
