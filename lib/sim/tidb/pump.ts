/**
 * A Pump process on 8250: registers node `<pod>:8250` online in PD's etcd once PD has a leader,
 * serves `/status` (every Pump node of the cluster with its state) and takes the offline call
 * `PUT /state/<nodeId>/close`: closing, then offline after `pumpOfflineMs`, after which the
 * process stops serving but keeps running (the start script tails /dev/null so the pod stays).
 * With `security.ssl-ca` in pump.toml (cluster TLS) 8250 is a TLS listener; a named file missing
 * from the container makes Pump exit at start.
 *
 * As tidb-binlog's pump/server.go, every answer of these two routes is 200 and failures are in the
 * body: `PumpStatus` answers `{"status": null, "CommitTS": 0, "ErrMsg": …}` when the registry or PD's
 * TSO cannot be read (here: PD has no leader), and `ApplyAction` answers `util.ErrResponsef` (code 3,
 * pkg/util/http.go) for another node's id or a node no longer online, `SuccessResponse` (code 200)
 * when the node starts closing.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import type { ProcessHooks } from '../runtime.js';
import { json, text } from './http.js';
import type { PdCluster } from './pd-cluster.js';
import type { PodInfo } from './pod-info.js';
import { configString, type ServingTls } from './container-files.js';
import { TidbProcess } from './process.js';
import type { PumpNode, PumpRegistry } from './pumps.js';
import type { SimContext } from './sim-context.js';
import { pdClusterOf } from './pd-address.js';

/** One Pump process. */
export class PumpProcess extends TidbProcess {
  private readonly pumps: PumpRegistry;
  private readonly cluster: PdCluster;
  private node: PumpNode | undefined;
  private tls: ServingTls = { tls: false };

  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks);
    const state = sim.clusters.at(pdClusterOf(pod));
    this.pumps = state.pumps;
    this.cluster = state.pd;
    if (this.crashOnBadConfig()) return;
    const at = (key: string): string => configString(pod, `security.ssl-${key}`);
    this.tls = this.servingTls({ ca: at('ca'), cert: at('cert'), key: at('key') });
    if (this.tls.problem === undefined) this.after(sim.knobs.processBootMs, () => this.connect());
  }

  protected onEnd(): void {
    if (this.node) this.pumps.stopped(this.node);
  }

  private connect(): void {
    if (!this.cluster.hasLeader()) {
      this.status = 'waiting for PD';
      this.after(1000, () => this.connect());
      return;
    }
    const node = this.pumps.register(`${this.pod.name}:8250`, `${this.pod.name}.${this.pod.subdomain}:8250`);
    this.node = node;
    this.status = 'serving';
    this.listen(8250, (req) => this.handle(node, req), { tls: this.tls.tls });
  }

  private handle(node: PumpNode, req: ProxyRequest): ProxyResponse {
    if (req.method === 'GET' && req.path === '/status') return this.pumpStatus();
    const close = /^\/state\/([^/]+)\/close$/.exec(req.path);
    if (req.method === 'PUT' && close) return this.close(node, decodeURIComponent(close[1] ?? ''));
    return text(404, '404 page not found');
  }

  /** As `PumpStatus`: the registry and a TSO from PD, or no status and the error. */
  private pumpStatus(): ProxyResponse {
    if (!this.cluster.hasLeader()) return json(200, { status: null, CommitTS: 0, ErrMsg: '[PD:client:ErrClientGetTSO]get TSO failed: no leader' });
    return json(200, { status: Object.fromEntries(this.pumps.list().map((n) => [n.nodeId, nodeJson(n)])), CommitTS: 0, ErrMsg: '' });
  }

  /** As `ApplyAction` with `close`: only this pump's own id, only while it is online. */
  private close(node: PumpNode, nodeId: string): ProxyResponse {
    if (nodeId !== node.nodeId) {
      this.sim.record({ verb: 'pump.offline', args: { nodeId }, error: 'invalid nodeID' });
      return errResponse(`invalid nodeID ${nodeId}, this pump's nodeID is ${node.nodeId}`);
    }
    if (node.state !== 'online') {
      this.sim.record({ verb: 'pump.offline', args: { nodeId }, error: `state is ${node.state}` });
      return errResponse(`this pump's state is ${node.state}, apply close failed!`);
    }
    this.sim.record({ verb: 'pump.offline', args: { nodeId } });
    this.pumps.offline(node, () => {
      this.status = 'offline (idle)';
      this.closePorts();
    });
    return json(200, { message: 'apply action close success!', code: 200, data: null });
  }
}

/** `util.ErrResponsef` of tidb-binlog: an error told in a 200 answer, code 3 (`statusOtherError`). */
const errResponse = (message: string): ProxyResponse => json(200, { message, code: 3, data: null });

function nodeJson(n: PumpNode): Record<string, unknown> {
  return { nodeId: n.nodeId, host: n.host, state: n.state, isAlive: n.alive, score: 0, label: null, maxCommitTS: 0, updateTS: n.updateMs };
}
