/**
 * The one Pump call the reconciler makes: taking a Pump node offline before its pod goes away, as
 * `PUT /state/<nodeId>/close` on that node's own port 8250 (tidb-binlog's pump HTTP API). A node id
 * is `<pod>:8250`, so the pod to call is the part before the colon; it is reached through the API
 * server's pod proxy under the `<tc>-pump` headless service, like every other component port.
 */

import type { ComponentCaller } from '../components/caller.js';
import type { Endpoint } from '../components/transport.js';
import { TerminalError } from '../platform/errors.js';

/** Pump's port. */
export const PUMP_PORT = 8250;

/** The Pump operations of one TidbCluster. */
export interface PumpPort {
  /** Asks node `nodeId` to flush and go offline (closing, then offline); repeating it is harmless. */
  offline(nodeId: string): Promise<void>;
}

/** `PumpPort` for one TidbCluster (namespace and name). */
export class PumpClient implements PumpPort {
  constructor(
    private readonly caller: ComponentCaller,
    readonly target: { namespace: string; tcName: string },
  ) {}

  /** The endpoint of one Pump pod. */
  endpoint(podName: string): Endpoint {
    return { type: 'pod', namespace: this.target.namespace, pod: podName, subdomain: `${this.target.tcName}-pump`, port: PUMP_PORT };
  }

  async offline(nodeId: string): Promise<void> {
    const what = `Pump offline ${nodeId}`;
    const pod = podOfNode(nodeId, what);
    await this.caller.call(this.endpoint(pod), { method: 'PUT', path: `/state/${encodeURIComponent(nodeId)}/close` }, what);
  }
}

/** The pod name of a node id `<pod>:<port>`; anything else is refused before a request is sent. */
export function podOfNode(nodeId: string, what: string): string {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?):\d+$/.exec(nodeId);
  if (!match?.[1]) throw new TerminalError(`${what}: node id ${JSON.stringify(nodeId)} is not <pod>:<port>`, { field: 'nodeId' });
  return match[1];
}
