/**
 * The TiKV status adapter: `/metrics` on port 20180 of each `<tc>-tikv-<i>` pod (under the
 * `<tc>-tikv-peer` headless service), read as TiDB Operator's tikvapi.go does for the leader count
 * it waits on while evicting leaders before a restart.
 */
import { TransientError } from '../platform/errors.js';
import type { ComponentCaller } from './caller.js';
import type { TikvStatusPort } from './port.js';
import type { Endpoint } from './transport.js';

/** TiKV's status port. */
export const TIKV_STATUS_PORT = 20180;

/** The metric (with its label) whose value is the store's leader count. */
const LEADER_COUNT_SERIES = 'tikv_raftstore_region_count';

/** `TikvStatusPort` for one TidbCluster (namespace and name). */
export class TikvStatusClient implements TikvStatusPort {
  constructor(
    private readonly caller: ComponentCaller,
    /** `scheme: 'https'` under cluster TLS (TiKV's status port then serves TLS); http when unset. */
    readonly target: { namespace: string; tcName: string; scheme?: 'http' | 'https' },
  ) {}

  /** The same client with every call also ending by `deadlineAtMs`. */
  withDeadline(deadlineAtMs: number): TikvStatusClient {
    return new TikvStatusClient(this.caller.withDeadline(deadlineAtMs), this.target);
  }

  /** The status endpoint of one TiKV pod. */
  endpoint(podName: string): Endpoint {
    const endpoint: Endpoint = { type: 'pod', namespace: this.target.namespace, pod: podName, subdomain: `${this.target.tcName}-tikv-peer`, port: TIKV_STATUS_PORT };
    return this.target.scheme === undefined ? endpoint : { ...endpoint, scheme: this.target.scheme };
  }

  async getMetrics(podName: string): Promise<string> {
    return (await this.caller.call(this.endpoint(podName), { method: 'GET', path: '/metrics' }, `TiKV metrics of ${podName}`)).text;
  }

  async getLeaderCount(podName: string): Promise<number> {
    const count = leaderCountFromMetrics(await this.getMetrics(podName));
    if (count === undefined) throw new TransientError(`TiKV metrics of ${podName}: no ${LEADER_COUNT_SERIES}{type="leader"} sample`);
    return count;
  }
}

/**
 * The value of `tikv_raftstore_region_count{type="leader"}` in Prometheus text, or undefined when
 * the sample is absent (a TiKV still starting). Other labels on the sample are allowed.
 */
export function leaderCountFromMetrics(text: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${LEADER_COUNT_SERIES}{`)) continue;
    const close = line.indexOf('}');
    if (close < 0 || !/(^|[{,])type="leader"/.test(line.slice(LEADER_COUNT_SERIES.length, close + 1))) continue;
    const value = Number(line.slice(close + 1).trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}
