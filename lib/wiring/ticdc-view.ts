/**
 * Reading TiCDC and Pump into the snapshot (reference §2.5, §2.6, §3.3). TiCDC: each listed pod's
 * `/status` (a pod that does not answer is a capture not ready, as TiDB Operator records it); and
 * for a pod whose drain the reconciler began — it carries TiDB Operator's graceful-shutdown begin
 * annotation — the drain's progress, asked as TiDB Operator asks it every round: `PUT
 * /api/v1/captures/drain` again, which TiCDC answers with the tables still to move (repeating it
 * starts nothing new). Pump: the binlog registry's nodes, from the first Pump pod that answers.
 * Neither read throws: what could not be read is in the view, so the rules can tell.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import { ComponentStatusError } from '../components/caller.js';
import type { PumpPort, TicdcCapture, TicdcPort } from '../components/port.js';
import type { PumpView, TicdcCaptureView, TicdcDrainView, TicdcView } from '../model/ticdc.js';
import { NotFoundError } from '../platform/errors.js';
import { TICDC_GRACEFUL_SHUTDOWN_BEGIN } from '../reconcile/components/ticdc/names.js';
import { errorText } from '../step/error-outcome.js';

const nameOf = (pod: IPod): string => pod.metadata?.name ?? '';
const isDraining = (pod: IPod): boolean => pod.metadata?.annotations?.[TICDC_GRACEFUL_SHUTDOWN_BEGIN] !== undefined;

async function readCapture(ticdc: TicdcPort, podName: string): Promise<TicdcCaptureView> {
  try {
    const status = await ticdc.getStatus(podName);
    return { podName, ready: true, id: status.id, version: status.version, isOwner: status.isOwner };
  } catch (err) {
    return { podName, ready: false, detail: errorText(err) };
  }
}

/** `GET /api/v1/captures` through `podName`; a TiCDC without the API (404) lists none, as TiDB Operator reads it. */
async function listCaptures(ticdc: TicdcPort, podName: string): Promise<readonly TicdcCapture[]> {
  try {
    return await ticdc.getCaptures(podName);
  } catch (err) {
    if (err instanceof NotFoundError) return [];
    throw err;
  }
}

/**
 * As TiDB Operator's `ResignOwner` and `DrainCapture`: TiCDC's captures are listed first — one capture
 * or none leaves nowhere to move the ownership or the tables (`alone`, whether or not it is the
 * owner; a TiCDC that cannot list them, 404, is taken alike); the owner is not drained (it resigns
 * first); a TiCDC without the drain API (404) has nothing to drain (0); 503 asks to come back.
 */
async function readDrain(ticdc: TicdcPort, capture: TicdcCaptureView): Promise<TicdcDrainView> {
  if (!capture.ready) return { kind: 'retry', reason: `capture of ${capture.podName} did not answer: ${capture.detail}` };
  try {
    const captures = await listCaptures(ticdc, capture.podName);
    if (captures.length <= 1) return { kind: 'alone' };
    if (capture.isOwner) return { kind: 'retry', reason: `${capture.podName} is still the owner` };
    return { kind: 'tables', count: await ticdc.drainCapture(capture.podName, capture.id) };
  } catch (err) {
    if (err instanceof NotFoundError) return { kind: 'tables', count: 0 };
    const status = err instanceof Error && err.cause instanceof ComponentStatusError ? ` (HTTP ${err.cause.status})` : '';
    return { kind: 'retry', reason: `drain of ${capture.podName} not answered${status}: ${errorText(err)}` };
  }
}

/** TiCDC's view from its own pods (see the module comment). */
export async function readTicdc(ticdc: TicdcPort, pods: readonly IPod[]): Promise<TicdcView> {
  const live = pods.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const captures = await Promise.all(live.map((p) => readCapture(ticdc, nameOf(p))));
  const drains = await Promise.all(
    live.flatMap((p, i) => {
      const capture = captures[i];
      return isDraining(p) && capture ? [readDrain(ticdc, capture).then((d): [string, TicdcDrainView] => [nameOf(p), d])] : [];
    }),
  );
  return { captures: Object.fromEntries(captures.map((c) => [c.podName, c])), drains: Object.fromEntries(drains) };
}

/** Pump's view: the registry as the first Pump pod (by name) that answers lists it. */
export async function readPump(pump: PumpPort, pods: readonly IPod[]): Promise<PumpView> {
  const names = pods.filter((p) => p.metadata?.deletionTimestamp === undefined).map(nameOf).sort();
  const failures: string[] = [];
  for (const podName of names) {
    try {
      return { nodes: await pump.getNodes(podName) };
    } catch (err) {
      failures.push(`${podName}: ${errorText(err)}`);
    }
  }
  return { nodes: undefined, detail: names.length === 0 ? 'no Pump pod to ask' : `no Pump pod answered /status (${failures.join('; ')})` };
}
