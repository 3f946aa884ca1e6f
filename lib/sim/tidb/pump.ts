/**
 * A Pump process on 8250: registers node `<pod>:8250` online in PD's etcd once PD has a leader,
 * serves `/status` (every Pump node of the cluster with its state) and takes the offline call
 * `PUT /state/<nodeId>/close`: closing, then offline after `pumpOfflineMs`, after which the
 * process stops serving but keeps running (the start script tails /dev/null so the pod stays).
 * With `security.ssl-ca` in pump.toml (cluster TLS) 8250 is a TLS listener; a named file missing
 * from the container makes Pump exit at start.
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
    if (req.method === 'GET' && req.path === '/status') return json(200, { status: Object.fromEntries(this.pumps.list().map((n) => [n.nodeId, nodeJson(n)])), CommitTS: 0, ErrMsg: '' });
    const close = /^\/state\/([^/]+)\/close$/.exec(req.path);
    if (req.method === 'PUT' && close) {
      const nodeId = decodeURIComponent(close[1] ?? '');
      if (nodeId !== node.nodeId) {
        this.sim.record({ verb: 'pump.offline', args: { nodeId }, error: 'invalid nodeID' });
        return json(400, { message: `invalid nodeID ${nodeId}, this pump's nodeID is ${node.nodeId}`, code: 400 });
      }
      this.sim.record({ verb: 'pump.offline', args: { nodeId } });
      this.pumps.offline(node, () => {
        this.status = 'offline (idle)';
        this.closePorts();
      });
      return json(200, { message: 'success', code: 200 });
    }
    return text(404, '404 page not found');
  }
}

function nodeJson(n: PumpNode): Record<string, unknown> {
  return { nodeId: n.nodeId, host: n.host, state: n.state, isAlive: n.alive, score: 0, label: null, maxCommitTS: 0, updateTS: n.updateMs };
}
