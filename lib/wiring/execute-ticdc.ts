/**
 * TiCDC and Pump calls of a plan (reference §2.5, §2.6, §3.3), each verified or idempotent: an owner
 * resignation is sent only while the pod's capture is still the one named and still the owner (a
 * restarted pod is a new capture, which the rules have not judged); a Pump offline call is repeatable
 * (a node already closing stays closing).
 */

import type { PumpOfflineAction, TicdcResignOwnerAction } from '../model/action.js';
import type { PumpPort, TicdcPort } from '../components/port.js';

/** Resigns the owner `action.capture` on `action.pod`, after checking it still is (see the module comment). */
export async function executeTicdcResign(ticdc: TicdcPort, action: TicdcResignOwnerAction): Promise<void> {
  const status = await ticdc.getStatus(action.pod);
  if (status.id !== action.capture || !status.isOwner) return;
  await ticdc.resignOwner(action.pod);
}

/** Takes the Pump node offline (see the module comment). */
export async function executePumpOffline(pump: PumpPort, action: PumpOfflineAction): Promise<void> {
  await pump.offline(action.nodeId);
}
