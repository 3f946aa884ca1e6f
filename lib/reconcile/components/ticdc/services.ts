/**
 * TiCDC's Service, as TiDB Operator v1's `getNewCDCHeadlessService` (§2.5): the headless
 * `<tc>-ticdc-peer`, port `ticdc` 8301, not-ready addresses published (captures advertise
 * `<pod>.<tc>-ticdc-peer.<ns>.svc:8301` before they are Ready). TiCDC has no client Service.
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { componentLabels, ownerReference } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { TICDC_PORT, ticdcPeerServiceName } from './names.js';

/** The headless Service `<tc>-ticdc-peer` (labels and selector: the component's, as TiDB Operator). */
export function ticdcPeerService(tc: TidbCluster): IService {
  const selector = componentLabels(tc, 'ticdc');
  const metadata = { name: ticdcPeerServiceName(tc), namespace: tc.metadata.namespace, labels: selector, annotations: {}, ownerReferences: [ownerReference(tc)] };
  const spec = {
    clusterIP: 'None',
    ports: [{ name: 'ticdc', port: TICDC_PORT, targetPort: TICDC_PORT, protocol: 'TCP' as const }],
    selector,
    publishNotReadyAddresses: true,
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}
