/**
 * The TiProxy adapter: port 3080 of each `<tc>-tiproxy-<i>` pod (under `<tc>-tiproxy-peer`), as TiDB
 * Operator v1.6's `tiproxy_control.go` reaches it with `tiproxyctl --curls <pod>.<peer>.<ns>:3080
 * health` — https under cluster TLS. TiProxy answers `GET /api/debug/health` with 200 and
 * `{"config_checksum": …}` when it serves, and 502 with `unhealthy_reason` ("server is not ready",
 * "server is closing") otherwise (pingcap/tiproxy pkg/server/api/debug.go). Labels are set with
 * `PUT /api/admin/config/` and a TOML body, as `tiproxyctl config set` sends it (lib/cli/config.go).
 */
import { stringify as stringifyToml } from 'smol-toml';

import type { ComponentCaller } from './caller.js';
import type { TiproxyHealth, TiproxyPort } from './port.js';
import type { Endpoint } from './transport.js';

/** TiProxy's API port. */
export const TIPROXY_API_PORT = 3080;

/** `TiproxyPort` for one TidbCluster (namespace and name). */
export class TiproxyClient implements TiproxyPort {
  constructor(
    private readonly caller: ComponentCaller,
    /** `scheme: 'https'` under cluster TLS (TiProxy's HTTP API then serves TLS); http when unset. */
    readonly target: { namespace: string; tcName: string; scheme?: 'http' | 'https' },
  ) {}

  /** The endpoint of one TiProxy pod. */
  endpoint(podName: string): Endpoint {
    const { namespace, tcName, scheme } = this.target;
    return { type: 'pod', namespace, pod: podName, subdomain: `${tcName}-tiproxy-peer`, port: TIPROXY_API_PORT, ...(scheme ? { scheme } : {}) };
  }

  async health(podName: string): Promise<TiproxyHealth> {
    // Any status is TiProxy's verdict on itself, not a failure to ask.
    const answer = await this.caller.call(this.endpoint(podName), { method: 'GET', path: '/api/debug/health' }, `TiProxy health of ${podName}`, () => true);
    if (answer.status === 200) return { healthy: true, info: answer.text.trim() };
    return { healthy: false, detail: `HTTP ${answer.status}: ${answer.text.trim().slice(0, 200)}` };
  }

  async setLabels(podName: string, labels: Readonly<Record<string, string>>): Promise<void> {
    // As TiDB Operator's SetLabels: the TOML document `[labels]`, which TiProxy merges into its config.
    const body = stringifyToml({ labels: { ...labels } });
    await this.caller.call(this.endpoint(podName), { method: 'PUT', path: '/api/admin/config/', body }, `TiProxy set labels of ${podName}`, () => false, { idempotent: true });
  }
}
