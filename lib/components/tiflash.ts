/**
 * The TiFlash status adapter: the TiFlash proxy's `/tiflash/store-status` on port 20292 of each
 * `<tc>-tiflash-<i>` pod (under the `<tc>-tiflash-peer` headless service), read as TiDB Operator's
 * tiflashapi.go does before it lets an upgrade move past an updated pod.
 */
import type { ComponentCaller } from './caller.js';
import type { TiflashStatusPort } from './port.js';
import type { Endpoint } from './transport.js';

/** The TiFlash proxy's status port. */
export const TIFLASH_PROXY_STATUS_PORT = 20292;

/** `TiflashStatusPort` for one TidbCluster (namespace and name, https under cluster TLS). */
export class TiflashStatusClient implements TiflashStatusPort {
  constructor(
    private readonly caller: ComponentCaller,
    readonly target: { namespace: string; tcName: string; scheme?: 'http' | 'https' },
  ) {}

  /** The proxy status endpoint of one TiFlash pod. */
  endpoint(podName: string): Endpoint {
    const { namespace, tcName, scheme } = this.target;
    return { type: 'pod', namespace, pod: podName, subdomain: `${tcName}-tiflash-peer`, port: TIFLASH_PROXY_STATUS_PORT, ...(scheme ? { scheme } : {}) };
  }

  async getStoreStatus(podName: string): Promise<string> {
    const answer = await this.caller.call(this.endpoint(podName), { method: 'GET', path: '/tiflash/store-status' }, `TiFlash store status of ${podName}`);
    return answer.text.trim();
  }
}
