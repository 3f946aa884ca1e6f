/**
 * Pump's Service, as TiDB Operator v1's `getNewPumpHeadlessService` (§2.6): the headless `<tc>-pump`
 * (port `pump` 8250, not-ready addresses published), which is also the StatefulSet's serviceName, so
 * a Pump advertises `<pod>.<tc>-pump:8250`.
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { componentLabels, ownerReference } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { PUMP_PORT, pumpSetName } from './names.js';

/** The headless Service `<tc>-pump`. */
export function pumpService(tc: TidbCluster): IService {
  const selector = componentLabels(tc, 'pump');
  const metadata = { name: pumpSetName(tc), namespace: tc.metadata.namespace, labels: selector, annotations: {}, ownerReferences: [ownerReference(tc)] };
  const spec = {
    clusterIP: 'None',
    ports: [{ name: 'pump', port: PUMP_PORT, targetPort: PUMP_PORT, protocol: 'TCP' as const }],
    selector,
    publishNotReadyAddresses: true,
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}
