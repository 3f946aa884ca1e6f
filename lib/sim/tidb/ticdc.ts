/**
 * A TiCDC server process on 8301: listens from boot, registers a capture in PD's etcd once PD has a
 * leader, and until then answers as TiCDC's not-ready server does — `/status` 500 (cdc/api/status
 * `handleStatus`: `capture.Info()` fails before the capture is initialized) and the `/api/v1` routes
 * 503 `ErrServerIsNotReady` (cdc/api/middleware `CheckServerReadyMiddleware`). Once ready it
 * serves `/status`, `/api/v1/captures`, `/api/v1/health`, `POST /api/v1/owner/resign` (202; any
 * capture forwards it to the owner, 500 while there is none; a lone owner is owner again after its
 * next campaign) and `PUT /api/v1/captures/drain` (202 with the falling
 * `current_table_count`; refusals 400). Started with `--ca`, `--cert` and `--key` (TiDB Operator passes them
 * under cluster TLS), it serves 8301 as a TLS listener, and exits when a named file is missing.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import type { ProcessHooks } from '../runtime.js';
import type { Capture, CaptureRegistry } from './captures.js';
import { json, objectBody, text } from './http.js';
import type { PdCluster } from './pd-cluster.js';
import type { PodInfo } from './pod-info.js';
import { type ServingTls, type TlsPaths } from './container-files.js';
import { TidbProcess } from './process.js';
import type { SimContext } from './sim-context.js';
import { pdClusterOf } from './pd-address.js';

const OWNER_NOT_FOUND = { error_msg: 'owner not found', error_code: 'CDC:ErrOwnerNotFound' };

/** One TiCDC process. */
export class TicdcProcess extends TidbProcess {
  private readonly captures: CaptureRegistry;
  private readonly cluster: PdCluster;
  private capture: Capture | undefined;
  private tls: ServingTls = { tls: false };

  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks);
    const state = sim.clusters.at(pdClusterOf(pod));
    this.captures = state.captures;
    this.cluster = state.pd;
    if (this.crashOnBadConfig()) return;
    this.tls = this.servingTls(cdcFlagPaths([...(pod.container.command ?? []), ...(pod.container.args ?? [])].join(' ')));
    if (this.tls.problem === undefined) this.after(sim.knobs.processBootMs, () => this.boot());
  }

  private boot(): void {
    this.listen(8301, (req) => (this.capture ? this.handle(this.capture, req) : notReady(req)), { tls: this.tls.tls });
    this.connect();
  }

  protected onEnd(): void {
    if (this.capture) this.captures.unregister(this.capture);
  }

  private connect(): void {
    if (!this.cluster.hasLeader()) {
      this.status = 'waiting for PD';
      this.after(1000, () => this.connect());
      return;
    }
    const address = `${this.pod.name}.${this.pod.subdomain}.${this.pod.namespace}.svc:8301`;
    const capture = this.captures.register(this.pod.name, address, this.pod.version);
    this.capture = capture;
    this.status = 'serving';
  }

  private handle(capture: Capture, req: ProxyRequest): ProxyResponse {
    const route = `${req.method} ${req.path}`;
    if (route === 'GET /status') return json(200, { version: capture.version, git_hash: '0000000', id: capture.id, pid: 1, is_owner: this.captures.owner() === capture, liveness: 0 });
    if (route === 'GET /api/v1/captures') return json(200, this.captures.alive().map((c) => ({ id: c.id, is_owner: this.captures.owner() === c, address: c.address, cluster_id: 'default' })));
    if (route === 'GET /api/v1/health') return this.cluster.hasLeader() && this.captures.owner() ? json(200, {}) : json(500, OWNER_NOT_FOUND);
    if (route === 'POST /api/v1/owner/resign') return this.resign();
    if (route === 'PUT /api/v1/captures/drain') return this.drain(req);
    return text(404, '404 page not found');
  }

  // As TiCDC: a capture that is not the owner forwards the resignation to it, which fails without one.
  private resign(): ProxyResponse {
    const owner = this.captures.owner();
    if (!owner) {
      this.sim.record({ verb: 'ticdc.resignOwner', args: { capture: '', pod: '' }, error: OWNER_NOT_FOUND.error_msg });
      return json(500, OWNER_NOT_FOUND);
    }
    this.sim.record({ verb: 'ticdc.resignOwner', args: { capture: owner.id, pod: owner.podName } });
    const alone = this.captures.resignOwner();
    if (alone) this.after(this.sim.knobs.ticdcCampaignMs, () => this.captures.campaign(alone));
    return { status: 202, body: '' };
  }

  private drain(req: ProxyRequest): ProxyResponse {
    const id = objectBody(req)?.capture_id;
    if (typeof id !== 'string') return json(400, { error_msg: 'invalid api parameter', error_code: 'CDC:ErrAPIInvalidParam' });
    const result = this.captures.drain(id);
    const pod = this.captures.get(id)?.podName ?? '';
    if ('refused' in result) {
      this.sim.record({ verb: 'ticdc.drainCapture', args: { capture: id, pod }, error: result.refused.message });
      return json(result.refused.status, { error_msg: result.refused.message, error_code: result.refused.message.slice(1, result.refused.message.indexOf(']')) });
    }
    this.sim.record({ verb: 'ticdc.drainCapture', args: { capture: id, pod } });
    return json(202, { current_table_count: result.ok });
  }
}

/** The answers of a TiCDC server whose capture is not initialized yet (see the module comment). */
function notReady(req: ProxyRequest): ProxyResponse {
  if (req.method === 'GET' && req.path === '/status') return text(500, '[CDC:ErrCaptureNotInitialized]capture has not been initialized yet', false);
  if (req.path.startsWith('/api/v1/')) return json(503, { error_msg: '[CDC:ErrServerIsNotReady]cdc server is not ready', error_code: 'CDC:ErrServerIsNotReady' });
  return text(404, '404 page not found');
}

/** The certificate files `cdc server` is started with (`--ca=…`, `--cert=…`, `--key=…`). */
export function cdcFlagPaths(commandLine: string): TlsPaths {
  const flag = (name: string): string => new RegExp(`(?:^|\\s)--${name}[= ]([^\\s"']+)`).exec(commandLine)?.[1] ?? '';
  return { ca: flag('ca'), cert: flag('cert'), key: flag('key') };
}
