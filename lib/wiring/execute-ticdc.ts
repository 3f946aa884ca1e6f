/**
 * TiCDC calls of a plan (reference §3.3), addressed by capture id as TiCDC's own API names captures.
 * Which pod holds a capture, and which capture owns the changefeed cluster, is asked of the TiCDC
 * pods themselves (`GET /status` on each, found by one label-selected LIST), so a call goes to the
 * right pod even after captures restarted; a capture that is gone, or no longer the owner, needs
 * nothing (verified, not assumed).
 */

import type { TicdcCapture, TicdcPort } from '../components/port.js';
import type { KubePort } from '../kube/port.js';
import type { TicdcDrainCaptureAction, TicdcResignOwnerAction } from '../model/action.js';
import { TerminalError, TransientError } from '../platform/errors.js';
import { LABEL } from './observed.js';

/** The TiCDC actions. */
export type TicdcAction = TicdcResignOwnerAction | TicdcDrainCaptureAction;

/** Where the TiCDC pods of a cluster are: namespace and the owned-object labels. */
export type TicdcPods = { readonly namespace: string; readonly labels: Readonly<Record<string, string>> };

type Located = { readonly pod: string; readonly capture: TicdcCapture };

/** Runs one TiCDC action (see the module comment). */
export async function executeTicdc(kube: KubePort, ticdc: TicdcPort, pods: TicdcPods, action: TicdcAction): Promise<void> {
  const captures = await locateCaptures(kube, ticdc, pods);
  const target = captures.find((c) => c.capture.id === action.capture);
  switch (action.kind) {
    case 'ticdc.resignOwner':
      // Already resigned (or restarted as a new capture): nothing left to ask.
      if (!target?.capture.isOwner) return;
      return ticdc.resignOwner(target.pod);
    case 'ticdc.drainCapture': {
      if (!target) return;
      const owner = captures.find((c) => c.capture.isOwner);
      if (!owner) throw new TransientError(`TiCDC drain capture ${action.capture}: no capture is the owner right now`);
      await ticdc.drainCapture(owner.pod, action.capture);
      return;
    }
    default: {
      const never: never = action;
      throw new TerminalError(`unknown TiCDC action ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Every TiCDC pod's own capture. Pods that do not answer are left out (a restarting pod has no
 * capture yet); when none answers, nothing can be verified and the call is a `TransientError`.
 */
async function locateCaptures(kube: KubePort, ticdc: TicdcPort, pods: TicdcPods): Promise<Located[]> {
  const list = await kube.listOwned(pods.namespace, 'Pod', { ...pods.labels, [LABEL.component]: 'ticdc' });
  const names = list.items.map((p) => p.metadata.name).filter((n): n is string => n !== undefined);
  const answers = await Promise.allSettled(names.map(async (pod) => ({ pod, capture: await ticdc.getStatus(pod) })));
  const located = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
  if (located.length === 0) throw new TransientError(`no TiCDC pod in ${pods.namespace} answered /status (${names.length} listed)`);
  return located;
}
