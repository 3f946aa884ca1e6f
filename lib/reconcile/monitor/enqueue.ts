/**
 * Which events step a TidbMonitor, as v1's controller (`pkg/controller/tidbmonitor/
 * tidb_monitor_controller.go`) enqueues them: every add, update and delete of a TidbMonitor, and of a
 * StatefulSet it controls (resolved through the controller ownerReference).
 */

import type { KubeObject } from '../../model/kube.js';

/** The name of the TidbMonitor controlling `obj`, or undefined. */
export function controllingMonitor(obj: Pick<KubeObject, 'metadata'>): string | undefined {
  const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true && r.kind === 'TidbMonitor' && r.apiVersion.startsWith('pingcap.com/'));
  return ref?.name;
}
