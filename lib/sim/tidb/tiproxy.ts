/**
 * A TiProxy process (pingcap/tiproxy): its HTTP API on 3080 and its MySQL port on 6000 listen from
 * boot; it reads TiDB's topology from the PD its config names (`proxy.pd-addrs`), and until PD has
 * a leader its namespace manager is not ready. `GET /api/debug/health` answers as
 * pkg/server/api/debug.go does: 200 `{"config_checksum": …}` once ready, else 502 with
 * `unhealthy_reason` "server is not ready" (the real one's "server is closing" during a graceful
 * shutdown has no counterpart: the simulated process stops at once). With `[security.server-http-tls]` cert and key (cluster TLS, or TiDB's client TLS in the
 * legacy layout) 3080 is a TLS listener — without client verification when `skip-ca` is set, as TiDB
 * Operator configures it. A certificate file named by any `[security.*]` section that is not in the
 * container makes TiProxy exit at start, as the real one fails to load it. `PUT /api/admin/config/`
 * takes a TOML document (what `tiproxyctl config set` sends, pkg/server/api/config.go): its
 * `[labels]` are kept in the memory of this process (a restart forgets them) and the config checksum
 * changes; a body that is not TOML is 500 "can not update config".
 */
import { createHash } from 'node:crypto';

import { parse as parseToml } from 'smol-toml';

import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import type { ProcessHooks } from '../runtime.js';
import { configString } from './container-files.js';
import { json, text } from './http.js';
import type { PdCluster } from './pd-cluster.js';
import { pdClusterOf } from './pd-address.js';
import type { PodInfo } from './pod-info.js';
import { TidbProcess } from './process.js';
import type { SimContext } from './sim-context.js';

/** TiProxy's API port. */
export const TIPROXY_API_PORT = 3080;
/** TiProxy's MySQL port. */
export const TIPROXY_SQL_PORT = 6000;

// The [security] sections whose files TiProxy loads at start.
const SECURITY_SECTIONS = ['cluster-tls', 'server-tls', 'server-http-tls', 'sql-tls'] as const;

/** One TiProxy process. */
export class TiproxyProcess extends TidbProcess {
  private readonly cluster: PdCluster;
  private ready = false;
  private checksum: number;
  /** The labels set through the config API, in this process's memory. */
  labels: Readonly<Record<string, string>> = {};

  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks);
    this.cluster = sim.clusters.at(pdClusterOf(pod)).pd;
    this.checksum = configChecksum(pod);
    if (this.crashOnBadConfig()) return;
    const missing = this.missingSecurityFile();
    if (missing !== undefined) {
      this.after(sim.knobs.crashAfterMs, () => this.crash(`open ${missing}: no such file or directory`));
      return;
    }
    const at = (key: string): string => configString(pod, `security.server-http-tls.${key}`);
    const tls = at('cert') !== '' && at('key') !== '';
    // TiProxy verifies HTTP clients against the CA only without skip-ca (TiDB Operator sets skip-ca).
    if (tls && !this.skipsClientCa() && at('ca') !== '') this.clientCa = this.containerFile(at('ca'));
    if (tls) this.serverCert = this.certificateFiles(at('cert'), at('key'));
    this.after(sim.knobs.processBootMs, () => this.boot(tls));
  }

  private boot(tls: boolean): void {
    this.listen(TIPROXY_API_PORT, (req) => this.handle(req), { tls });
    this.listen(TIPROXY_SQL_PORT, () => text(400, 'MySQL protocol port'), {});
    this.connect();
  }

  protected onEnd(): void {
    this.ready = false;
  }

  private connect(): void {
    if (!this.cluster.hasLeader()) {
      this.status = 'waiting for PD';
      this.after(1000, () => this.connect());
      return;
    }
    this.ready = true;
    this.status = 'serving';
  }

  private handle(req: ProxyRequest): ProxyResponse {
    if (req.method === 'GET' && req.path === '/api/debug/health') {
      if (!this.ready) return json(502, { config_checksum: this.checksum, unhealthy_reason: 'server is not ready' });
      return json(200, { config_checksum: this.checksum });
    }
    if (req.method === 'GET' && req.path === '/api/metrics') return text(200, '# tiproxy metrics');
    if (req.method === 'PUT' && req.path === '/api/admin/config/') return this.setConfig(req);
    return text(404, '404 page not found');
  }

  private setConfig(req: ProxyRequest): ProxyResponse {
    let doc: Record<string, unknown>;
    try {
      doc = parseToml(req.body) as Record<string, unknown>;
    } catch (err) {
      this.sim.record({ verb: 'tiproxy.setLabels', args: { pod: this.pod.name, body: req.body }, error: (err as Error).message.split('\n')[0] ?? '' });
      return json(500, 'can not update config');
    }
    const labels = doc['labels'];
    if (typeof labels === 'object' && labels !== null) {
      const set = Object.fromEntries(Object.entries(labels).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
      this.labels = { ...this.labels, ...set };
      this.sim.record({ verb: 'tiproxy.setLabels', args: { pod: this.pod.name, labels: set } });
    }
    this.checksum = (this.checksum + 1) >>> 0;
    return json(200, '');
  }

  private skipsClientCa(): boolean {
    const security = 'ok' in this.pod.config ? (this.pod.config.ok['security'] as Record<string, unknown> | undefined) : undefined;
    const http = security?.['server-http-tls'] as Record<string, unknown> | undefined;
    return http?.['skip-ca'] === true;
  }

  /** The first certificate file a `[security.*]` section names that the container lacks. */
  private missingSecurityFile(): string | undefined {
    for (const section of SECURITY_SECTIONS) {
      for (const key of ['ca', 'cert', 'key']) {
        const path = configString(this.pod, `security.${section}.${key}`);
        if (path !== '' && this.containerFile(path) === undefined) return path;
      }
    }
    return undefined;
  }
}

/** A stand-in for TiProxy's CRC32 config checksum: stable for the same config. */
function configChecksum(pod: PodInfo): number {
  const digest = createHash('sha256').update(JSON.stringify('ok' in pod.config ? pod.config.ok : {})).digest();
  return digest.readUInt32BE(0);
}
