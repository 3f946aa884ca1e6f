/**
 * TiKV's one Service, as TiDB Operator v1 builds it (§2.2): the headless peer Service
 * `<tc>-tikv-peer`, port `peer` 20160, publishing not-ready addresses so stores reach each other
 * (and PD reaches them) before their pods are Ready. It records its spec in the last-applied
 * annotation, which the shared apply protocol (member/apply.ts) compares against.
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { LABEL, componentLabels, ownerReference } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { TIKV_PORTS, tikvPeerServiceName } from './names.js';

/** The headless peer Service `<tc>-tikv-peer`: port `peer` 20160, not-ready addresses published. */
export function tikvPeerService(tc: TidbCluster): IService {
  const selector = componentLabels(tc, 'tikv');
  const metadata = {
    name: tikvPeerServiceName(tc),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'peer' },
    annotations: {},
    ownerReferences: [ownerReference(tc)],
  };
  const spec: NonNullable<IService['spec']> = {
    clusterIP: 'None',
    ports: [{ name: 'peer', port: TIKV_PORTS.server, targetPort: TIKV_PORTS.server, protocol: 'TCP' }],
    selector,
    publishNotReadyAddresses: true,
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}
