/**
 * A PD microservice's Services, as TiDB Operator v1.6's `getNewPDMSService` and
 * `getNewPDMSHeadlessService`: the client Service `<tc>-<svc>` (port `client` 2379, the user's type,
 * labels, annotations and addresses from `spec.pdms[].service`) and the headless `<tc>-<svc>-peer`
 * (2380 and 2379, not-ready addresses published, so a server's DNS name resolves before it is Ready).
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { LABEL, componentLabels, ownerReference, type PdmsServiceName } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { PDMS_PORTS, pdmsPeerServiceName, pdmsSetName, pdmsSpecOf } from './names.js';

type ServiceSpec = NonNullable<IService['spec']>;

/** The client Service `<tc>-<svc>`: port `client` (or `service.portName`) 2379 → 2379. */
export function pdmsClientService(tc: TidbCluster, service: PdmsServiceName): IService {
  const user = pdmsSpecOf(tc, service)?.service;
  const selector = componentLabels(tc, service);
  const spec: ServiceSpec = {
    type: user?.type ?? 'ClusterIP',
    ports: [{ name: user?.portName ?? 'client', port: PDMS_PORTS.client, targetPort: PDMS_PORTS.client, protocol: 'TCP' }],
    selector,
    ...(user?.clusterIP === undefined ? {} : { clusterIP: user.clusterIP }),
    ...(user?.loadBalancerIP === undefined ? {} : { loadBalancerIP: user.loadBalancerIP }),
  };
  const metadata = {
    name: pdmsSetName(tc, service),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'end-user', ...user?.labels },
    annotations: { ...user?.annotations },
    ownerReferences: [ownerReference(tc)],
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}

/** The headless Service `<tc>-<svc>-peer`: `tcp-peer-2380` and `tcp-peer-2379`, not-ready addresses published. */
export function pdmsPeerService(tc: TidbCluster, service: PdmsServiceName): IService {
  const selector = componentLabels(tc, service);
  const port = (p: number) => ({ name: `tcp-peer-${p}`, port: p, targetPort: p, protocol: 'TCP' as const });
  const spec: ServiceSpec = { clusterIP: 'None', ports: [port(PDMS_PORTS.peer), port(PDMS_PORTS.client)], selector, publishNotReadyAddresses: true };
  const metadata = {
    name: pdmsPeerServiceName(tc, service),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'peer' },
    annotations: {},
    ownerReferences: [ownerReference(tc)],
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}
