/**
 * The TiDB status adapter: `/status` on port 10080 of each `<tc>-tidb-<i>` pod (under the
 * `<tc>-tidb-peer` headless service), as TiDB Operator's tidb_control.go reads it.
 */
import { isTimeout } from '../kube/http.js';
import { type ComponentCaller, ComponentStatusError, isComponentFailure } from './caller.js';
import { asNumber, asRecord, asString } from './json.js';
import type { TidbProbe, TidbStatus, TidbStatusPort } from './port.js';
import type { Endpoint } from './transport.js';

// Setting labels and entering or leaving upgrade mode give the same result when repeated.
const IDEMPOTENT = { idempotent: true } as const;
/**
 * `/upgrade/start` and `/upgrade/finish` answer every session or storage error with 400
 * (pkg/server/handler/upgrade_handler.go through `handler.WriteError`, pkg/server/handler/util.go):
 * PD or TiKV unreachable for a moment, a sync of the upgrade state timing out — refusals time
 * lifts. Only a wrong method or operation, which this client never sends, would be permanent.
 */
const UPGRADE_CALL = { ...IDEMPOTENT, temporary: (status: number, text: string) => status === 400 && !/only support POST method|wrong operation/.test(text) } as const;

/** TiDB's status port. */
export const TIDB_STATUS_PORT = 10080;

/** `TidbStatusPort` for one TidbCluster (namespace and name). */
export class TidbStatusClient implements TidbStatusPort {
  constructor(
    private readonly caller: ComponentCaller,
    readonly target: { namespace: string; tcName: string; scheme?: 'http' | 'https' },
  ) {}

  /** The same client with every call also ending by `deadlineAtMs`. */
  withDeadline(deadlineAtMs: number): TidbStatusClient {
    return new TidbStatusClient(this.caller.withDeadline(deadlineAtMs), this.target);
  }

  /** The status endpoint of one TiDB pod. */
  endpoint(podName: string): Endpoint {
    const scheme = this.target.scheme === undefined ? {} : { scheme: this.target.scheme };
    return { type: 'pod', namespace: this.target.namespace, pod: podName, subdomain: `${this.target.tcName}-tidb-peer`, port: TIDB_STATUS_PORT, ...scheme };
  }

  async getStatus(podName: string): Promise<TidbStatus> {
    const body = asRecord(await this.caller.json(this.endpoint(podName), { method: 'GET', path: '/status' }, `TiDB status of ${podName}`));
    return { connections: asNumber(body.connections), version: asString(body.version), gitHash: asString(body.git_hash) };
  }

  async probe(podName: string): Promise<TidbProbe> {
    try {
      await this.caller.call(this.endpoint(podName), { method: 'GET', path: '/status' }, `TiDB status of ${podName}`);
      return { healthy: true };
    } catch (err) {
      // An answer ≥ 400 or no answer in time says something about the pod. Failing to connect at
      // all, or 401/403 (our credentials or RBAC), is about our own path and must not count against TiDB.
      if (err instanceof Error && ((isComponentFailure(err) && !isAuthError(err)) || isTimeout(err))) return { healthy: false, detail: err.message };
      throw err;
    }
  }

  async setLabels(podName: string, labels: Readonly<Record<string, string>>): Promise<void> {
    await this.caller.call(this.endpoint(podName), { method: 'POST', path: '/labels', body: JSON.stringify(labels) }, `TiDB labels of ${podName}`, () => false, IDEMPOTENT);
  }

  async startUpgrade(podName: string): Promise<void> {
    await this.caller.call(this.endpoint(podName), { method: 'POST', path: '/upgrade/start' }, `TiDB upgrade start on ${podName}`, () => false, UPGRADE_CALL);
  }

  async finishUpgrade(podName: string): Promise<void> {
    await this.caller.call(this.endpoint(podName), { method: 'POST', path: '/upgrade/finish' }, `TiDB upgrade finish on ${podName}`, () => false, UPGRADE_CALL);
  }
}

function isAuthError(err: Error): boolean {
  return err.cause instanceof ComponentStatusError && (err.cause.status === 401 || err.cause.status === 403);
}
