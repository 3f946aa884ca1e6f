/**
 * The TiCDC adapter: port 8301 of each `<tc>-ticdc-<i>` pod (under `<tc>-ticdc-peer`), as TiDB
 * Operator's ticdc_control.go uses it to move the owner and drain a capture before a restart.
 */
import type { ComponentCaller } from './caller.js';
import { asArray, asBoolean, asNumber, asRecord, asString, stringifyLossless } from './json.js';
import type { TicdcCapture, TicdcPort } from './port.js';
import type { Endpoint } from './transport.js';
import { refusedWith } from './refusal.js';

/**
 * `PUT /api/v1/captures/drain` refusals time lifts, each 400 (tiflow cdc/api/v1/api_test.go
 * `TestDrainCapture`): `ErrSchedulerRequestFailed` — one capture alive, or the target is the owner
 * — and `ErrCaptureNotExist`, a capture that left (its pod restarted: the next read names the new
 * one). `ErrAPIInvalidParam`, a malformed request, stays terminal; 503 (not ready, or the owner's
 * own refusal) is transient already.
 */
const DRAIN_REFUSALS = refusedWith(400, 'ErrSchedulerRequestFailed', 'ErrCaptureNotExist');

/** TiCDC's port. */
export const TICDC_PORT = 8301;

/** `TicdcPort` for one TidbCluster (namespace and name). */
export class TicdcClient implements TicdcPort {
  constructor(
    private readonly caller: ComponentCaller,
    /** `scheme: 'https'` under cluster TLS (TiCDC then serves TLS, as v1's `tc.Scheme()` URLs); http when unset. */
    readonly target: { namespace: string; tcName: string; scheme?: 'http' | 'https' },
  ) {}

  /** The same client with every call also ending by `deadlineAtMs`. */
  withDeadline(deadlineAtMs: number): TicdcClient {
    return new TicdcClient(this.caller.withDeadline(deadlineAtMs), this.target);
  }

  /** The endpoint of one TiCDC pod. */
  endpoint(podName: string): Endpoint {
    const { namespace, tcName, scheme } = this.target;
    return { type: 'pod', namespace, pod: podName, subdomain: `${tcName}-ticdc-peer`, port: TICDC_PORT, ...(scheme ? { scheme } : {}) };
  }

  async getStatus(podName: string): Promise<TicdcCapture> {
    return toCapture(await this.caller.json(this.endpoint(podName), { method: 'GET', path: '/status' }, `TiCDC status of ${podName}`));
  }

  async getCaptures(podName: string): Promise<TicdcCapture[]> {
    const body = await this.caller.json(this.endpoint(podName), { method: 'GET', path: '/api/v1/captures' }, `TiCDC captures via ${podName}`);
    return asArray(body).map(toCapture);
  }

  async resignOwner(podName: string): Promise<void> {
    await this.caller.call(this.endpoint(podName), { method: 'POST', path: '/api/v1/owner/resign' }, `TiCDC resign owner ${podName}`);
  }

  async drainCapture(ownerPodName: string, captureId: string): Promise<number> {
    const what = `TiCDC drain capture ${captureId} via ${ownerPodName}`;
    const body = await this.caller.json(this.endpoint(ownerPodName), { method: 'PUT', path: '/api/v1/captures/drain', body: stringifyLossless({ capture_id: captureId }) }, what, { temporary: DRAIN_REFUSALS });
    return asNumber(asRecord(body).current_table_count);
  }

  async isHealthy(ownerPodName: string): Promise<boolean> {
    // Any status is the owner's verdict on the changefeed cluster, not a failure to ask.
    const answer = await this.caller.call(this.endpoint(ownerPodName), { method: 'GET', path: '/api/v1/health' }, `TiCDC health via ${ownerPodName}`, () => true);
    return answer.status < 400;
  }
}

/** `/status` uses `id`/`is_owner`; `/api/v1/captures` adds `address`. */
function toCapture(v: unknown): TicdcCapture {
  const c = asRecord(v);
  return { id: asString(c.id), isOwner: asBoolean(c.is_owner), address: asString(c.address), version: asString(c.version) };
}
