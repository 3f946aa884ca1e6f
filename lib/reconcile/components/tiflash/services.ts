/**
 * TiFlash's one Service, as TiDB Operator v1's `getNewHeadlessService` (§2.3): the headless
 * `<tc>-tiflash-peer` with ports `tiflash` 3930, `proxy` 20170, `metrics` 8234 and `proxy-metrics`
 * 20292, not-ready addresses published (a store must be reachable by PD before its pod is Ready).
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { LABEL, componentLabels, ownerReference } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { TIFLASH_PORTS, tiflashPeerServiceName } from './names.js';

/** The headless peer Service `<tc>-tiflash-peer`. */
export function tiflashPeerService(tc: TidbCluster): IService {
  const selector = componentLabels(tc, 'tiflash');
  const port = (name: string, p: number) => ({ name, port: p, targetPort: p, protocol: 'TCP' as const });
  const spec: NonNullable<IService['spec']> = {
    clusterIP: 'None',
    ports: [
      port('tiflash', TIFLASH_PORTS.tiflash),
      port('proxy', TIFLASH_PORTS.proxy),
      port('metrics', TIFLASH_PORTS.metrics),
      port('proxy-metrics', TIFLASH_PORTS.proxyMetrics),
    ],
    selector,
    publishNotReadyAddresses: true,
  };
  const metadata = {
    name: tiflashPeerServiceName(tc),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'peer' },
    annotations: {},
    ownerReferences: [ownerReference(tc)],
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}
