/**
 * The Pump adapter: port 8250 of each `<tc>-pump-<i>` pod (under the `<tc>-pump` headless Service),
 * tidb-binlog's pump HTTP API. `/status` on any running Pump lists every node the binlog registry
 * holds (what TiDB Operator reads as `PumpNodeStatus`); a node goes offline by
 * `PUT /state/<nodeId>/close` on its own pod, the call `binlogctl -cmd offline-pump` makes.
 */
import type { ComponentCaller } from './caller.js';
import { asRecord, asString } from './json.js';
import type { PumpNode, PumpPort } from './port.js';
import type { Endpoint } from './transport.js';
import { TerminalError } from '../platform/errors.js';

/** Pump's port. */
export const PUMP_PORT = 8250;

/** `PumpPort` for one TidbCluster (namespace and name). */
export class PumpClient implements PumpPort {
  constructor(
    private readonly caller: ComponentCaller,
    /** `scheme: 'https'` under cluster TLS (Pump then serves TLS with its `security.ssl-*`); http when unset. */
    readonly target: { namespace: string; tcName: string; scheme?: 'http' | 'https' },
  ) {}

  /** The endpoint of one Pump pod. */
  endpoint(podName: string): Endpoint {
    const { namespace, tcName, scheme } = this.target;
    return { type: 'pod', namespace, pod: podName, subdomain: `${tcName}-pump`, port: PUMP_PORT, ...(scheme ? { scheme } : {}) };
  }

  async getNodes(podName: string): Promise<PumpNode[]> {
    const body = asRecord(await this.caller.json(this.endpoint(podName), { method: 'GET', path: '/status' }, `Pump status via ${podName}`));
    return Object.values(asRecord(body.status)).map((v) => {
      const n = asRecord(v);
      return { nodeId: asString(n.nodeId), host: asString(n.host), state: asString(n.state) };
    });
  }

  async offline(nodeId: string): Promise<void> {
    const what = `Pump offline ${nodeId}`;
    const pod = podOfNode(nodeId, what);
    await this.caller.call(this.endpoint(pod), { method: 'PUT', path: `/state/${encodeURIComponent(nodeId)}/close` }, what, () => false, { idempotent: true });
  }
}

/** The pod name of a node id `<pod>:<port>`; anything else is refused before a request is sent. */
export function podOfNode(nodeId: string, what: string): string {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?):\d+$/.exec(nodeId);
  if (!match?.[1]) throw new TerminalError(`${what}: node id ${JSON.stringify(nodeId)} is not <pod>:<port>`, { field: 'nodeId' });
  return match[1];
}
