/**
 * The Pump adapter: port 8250 of each `<tc>-pump-<i>` pod (under the `<tc>-pump` headless Service),
 * tidb-binlog's pump HTTP API. `/status` on any running Pump lists every node the binlog registry
 * holds (what TiDB Operator reads as `PumpNodeStatus`); a node goes offline by
 * `PUT /state/<nodeId>/close` on its own pod, the call `binlogctl -cmd offline-pump` makes.
 *
 * Pump answers both with 200 and tells failures in the body (tidb-binlog pump/server.go): `/status`
 * has `"status": null` and an `ErrMsg` when it could not read the registry or a TSO from PD — a
 * registry that could not be read, never "no nodes" (`PumpUnreadableError`); the close call's body
 * carries `code` 200 on success and an error code with a message otherwise (pkg/util/http.go).
 */
import type { ComponentCaller } from './caller.js';
import { asRecord, asString } from './json.js';
import type { PumpNode, PumpPort } from './port.js';
import type { Endpoint } from './transport.js';
import { TerminalError, TransientError } from '../platform/errors.js';
import { RefusalError } from './refusal.js';

/** Pump's `/status` said it could not read the registry (`ErrMsg`, no `status`): retry, do not read as empty. */
export class PumpUnreadableError extends TransientError {}

/** `util.SuccessResponse`'s code in tidb-binlog's answers. */
const PUMP_SUCCESS_CODE = 200;

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
    const what = `Pump status via ${podName}`;
    const body = asRecord(await this.caller.json(this.endpoint(podName), { method: 'GET', path: '/status' }, what));
    const isMap = typeof body.status === 'object' && body.status !== null && !Array.isArray(body.status);
    if (!isMap) throw new PumpUnreadableError(`${what}: the registry could not be read: ${asString(body.ErrMsg) || 'no status in the answer'}`);
    return Object.values(asRecord(body.status)).map((v) => {
      const n = asRecord(v);
      return { nodeId: asString(n.nodeId), host: asString(n.host), state: asString(n.state) };
    });
  }

  async offline(nodeId: string): Promise<void> {
    const what = `Pump offline ${nodeId}`;
    const pod = podOfNode(nodeId, what);
    const answer = await this.caller.call(this.endpoint(pod), { method: 'PUT', path: `/state/${encodeURIComponent(nodeId)}/close` }, what, () => false, { idempotent: true });
    checkCloseAnswer(answer.text, what);
  }
}

/**
 * The body of a close call (200 in every case, see the module comment): success; a node already
 * closing or offline is done (the call is repeated after a lost answer); any other state (pausing)
 * is a refusal time lifts; another node's id is a request no retry fixes.
 */
export function checkCloseAnswer(text: string, what: string): void {
  let body: Record<string, unknown>;
  try {
    body = asRecord(JSON.parse(text));
  } catch (err) {
    throw new TransientError(`${what}: the answer is not JSON: ${text.slice(0, 200)}`, { cause: err });
  }
  if (body.code === PUMP_SUCCESS_CODE) return;
  const message = asString(body.message);
  if (/state is (closing|offline)/.test(message)) return;
  if (/invalide? nodeID/.test(message)) throw new TerminalError(`${what}: ${message}`, { field: 'nodeId' });
  throw new RefusalError(`${what}: ${message || text.slice(0, 200)}`);
}

/** The pod name of a node id `<pod>:<port>`; anything else is refused before a request is sent. */
export function podOfNode(nodeId: string, what: string): string {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?):\d+$/.exec(nodeId);
  if (!match?.[1]) throw new TerminalError(`${what}: node id ${JSON.stringify(nodeId)} is not <pod>:<port>`, { field: 'nodeId' });
  return match[1];
}
