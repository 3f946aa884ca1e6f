/**
 * A TiDB server process. It starts serving (MySQL 4000, status 10080) once it can reach PD (and get
 * timestamps: with PD microservices, from the tso primary PD forwards to) and a TiKV store, as TiDB's bootstrap needs storage; when it cannot within `tidbStartTimeoutMs` it exits
 * 1 and the kubelet restarts it with back-off (CrashLoopBackOff), as tidb-server's
 * `createStoreDDLOwnerMgrAndDomain` (cmd/tidb-server/main.go) ends in `terror.MustNil` when the
 * store cannot be opened or the session not bootstrapped. Once serving, `/status` answers 200 whatever
 * PD and TiKV do: TiDB's `handleStatus` (pkg/server/http_status.go) answers 500 only while its own
 * health flag is off (shutting down), and reads neither PD nor TiKV. `/labels` takes the
 * server labels TiDB Operator posts (TiDB ≥ 6.3); `/upgrade/start` and `/upgrade/finish` enter and
 * leave the cluster-wide smooth-upgrade mode (DDL paused); `/schema` and `/schema/{db}` list the
 * databases and tables (schema-api.ts). As TiDB's `security.cluster-ssl-*`
 * (what TiDB Operator sets under cluster TLS, pointing at the mounted `<tc>-tidb-cluster-secret`),
 * a configured CA makes the status port a TLS listener: plain http to it gets Go's 400. Named
 * files missing from the container make TiDB exit at start.
 */
import type { ProxyRequest, ProxyResponse } from '../proxy.js';
import type { ProcessHooks } from '../runtime.js';
import { json, text } from './http.js';
import { answerLabels, configuredLabels, type HeldLabels } from './server-labels.js';
import type { PdCluster } from './pd-cluster.js';
import type { PodInfo } from './pod-info.js';
import type { SmoothUpgradeMode } from './registry.js';
import { configString, type ServingTls } from './container-files.js';
import { TidbProcess } from './process.js';
import type { SimContext } from './sim-context.js';
import { pdClusterOf } from './pd-address.js';
import { answerSchema } from './schema-api.js';
import { answerMysql } from './mysql-port.js';
import type { SqlError } from './sql.js';

/**
 * Whether a TiDB server of `cluster` can open its store and a session now: PD has a leader and some
 * TiKV store is Up (at start, and for the smooth-upgrade calls, which need a session).
 */
export function isStorageAvailable(cluster: PdCluster): boolean {
  // Timestamps too: PD as the API service forwards them to the tso primary, when there is one.
  if (!cluster.hasLeader() || !cluster.isTsoServed()) return false;
  return cluster.stores.list().some((s) => s.engine === 'tikv' && cluster.stores.stateName(s) === 'Up');
}

/**
 * The labels of the container instance `hooks` starts (pod uid and restart count): those a process
 * revived in the same instance held, else a fresh set from tidb.toml's `[labels]` — a restarted
 * container or a new pod forgets what was posted, as a real TiDB does.
 */
function heldLabels(sim: SimContext, pod: PodInfo, hooks: ProcessHooks): HeldLabels {
  const byPod = sim.clusters.at(pdClusterOf(pod)).serverLabels;
  const key = `${pod.namespace}/${pod.name}`;
  const instance = `${pod.uid}/${hooks.restartCount ?? 0}`;
  const held = byPod.get(key);
  if (held?.instance === instance) return held;
  const fresh = { instance, labels: configuredLabels('ok' in pod.config ? pod.config.ok : undefined) };
  byPod.set(key, fresh);
  return fresh;
}

/** One TiDB process. */
export class TidbServerProcess extends TidbProcess {
  private readonly cluster: PdCluster;
  private readonly labels: HeldLabels;
  private tls: ServingTls = { tls: false };

  constructor(sim: SimContext, pod: PodInfo, hooks: ProcessHooks) {
    super(sim, pod, hooks);
    this.cluster = sim.clusters.at(pdClusterOf(pod)).pd;
    this.labels = heldLabels(sim, pod, hooks);
    if (this.crashOnBadConfig()) return;
    const at = (key: string): string => configString(pod, `security.cluster-ssl-${key}`);
    this.tls = this.servingTls({ ca: at('ca'), cert: at('cert'), key: at('key') });
    if (this.tls.problem === undefined) this.after(sim.knobs.processBootMs, () => this.bootstrap());
  }

  protected onEnd(): void {
    // Stateless: nothing to hand back.
  }

  /** Opens the store and bootstraps the session, retrying each second; exits once the window is spent. */
  private bootstrap(startedAtMs = this.sim.clock.nowMs()): void {
    if (!isStorageAvailable(this.cluster)) {
      const why = this.cluster.hasLeader() ? '[tikv:9005]Region is unavailable' : '[tikv:9001]PD server timeout';
      if (this.sim.clock.nowMs() - startedAtMs >= this.sim.knobs.tidbStartTimeoutMs) {
        this.crash(`cannot open the store: ${why}`);
        return;
      }
      this.status = `waiting for PD and TiKV: ${why}`;
      this.after(1000, () => this.bootstrap(startedAtMs));
      return;
    }
    this.status = 'serving';
    this.listen(4000, (req) => answerMysql(req, this.sim.clusters.at(pdClusterOf(this.pod)).sql, () => this.storageError()));
    this.listen(10080, (req) => this.handle(req), { tls: this.tls.tls });
  }

  private handle(req: ProxyRequest): ProxyResponse {
    if (req.path === '/status' && req.method === 'GET') return this.status200();
    if (req.path === '/labels') {
      const args = { pod: this.pod.name };
      return answerLabels(req, this.labels, {
        accepted: (labels) => this.sim.record({ verb: 'tidb.setLabels', args: { ...args, labels } }),
        refused: (error) => this.sim.record({ verb: 'tidb.setLabels', args: { ...args, body: req.body }, error }),
      });
    }
    if (req.path === '/upgrade/start' && req.method === 'POST') return this.upgradeMode(true);
    if (req.path === '/upgrade/finish' && req.method === 'POST') return this.upgradeMode(false);
    const schema = answerSchema(req, this.holdsData(), this.sim.clusters.at(pdClusterOf(this.pod)).sql.databases());
    if (schema) return schema;
    if (req.path === '/info' && (req.method === 'GET' || req.method === 'POST')) return json(200, { version: `8.0.11-TiDB-${this.pod.version}`, is_owner: false, ip: '', listening_port: 4000, status_port: 10080, lease: '45s' });
    return text(404, '404 page not found');
  }

  /**
   * Enters or leaves the cluster-wide smooth-upgrade mode. As TiDB's `ClusterUpgradeHandler`
   * (pkg/server/handler/upgrade_handler.go), repeating either is accepted (the answer says the
   * cluster already is in that state); the mode lives in storage, so it needs a session: without a
   * PD leader or an Up TiKV store the session or storage error is answered by `handler.WriteError`
   * (pkg/server/handler/util.go), which always writes 400 with the error text.
   */
  private upgradeMode(start: boolean): ProxyResponse {
    const verb = start ? 'tidb.startUpgrade' : 'tidb.finishUpgrade';
    if (!isStorageAvailable(this.cluster)) {
      const error = this.cluster.hasLeader() ? '[tikv:9005]Region is unavailable' : '[tikv:9001]PD server timeout';
      this.sim.record({ verb, args: { pod: this.pod.name }, error });
      return text(400, error, false);
    }
    this.sim.record({ verb, args: { pod: this.pod.name } });
    const already = this.mode.ddlPaused === start;
    this.mode.ddlPaused = start;
    this.mode.sinceMs = start ? (already ? this.mode.sinceMs : this.sim.clock.nowMs()) : undefined;
    const duplicated = `It's a duplicated operation and the cluster is already in ${start ? 'upgrading' : 'normal'} state.`;
    return json(200, already ? duplicated : 'success!');
  }

  /** Why a statement cannot run now (TiDB's storage errors), undefined when PD and a TiKV store serve. */
  private storageError(): SqlError | undefined {
    if (isStorageAvailable(this.cluster)) return undefined;
    return this.cluster.hasLeader() ? { code: 9005, message: 'Region is unavailable' } : { code: 9001, message: 'PD server timeout' };
  }

  /** Whether this TiDB's cluster (the one whose PD it uses: its data lives there) holds user data. */
  private holdsData(): boolean {
    const cluster = pdClusterOf(this.pod);
    return this.sim.hasData?.(cluster.namespace, cluster.name) ?? false;
  }

  private get mode(): SmoothUpgradeMode {
    return this.sim.clusters.get(this.pod.namespace, this.pod.cluster).smoothUpgrade;
  }

  /** As TiDB's `handleStatus`: the health flag is on while the process serves, whatever PD and TiKV do. */
  private status200(): ProxyResponse {
    return json(200, { connections: 0, version: `8.0.11-TiDB-${this.pod.version}`, git_hash: '0000000000000000000000000000000000000000' });
  }
}
