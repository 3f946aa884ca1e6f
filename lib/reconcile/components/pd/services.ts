/**
 * PD's Services, as TiDB Operator v1 builds them (§2.1): the client Service `<tc>-pd` (port `client`
 * 2379, the user's type, labels, annotations and load-balancer settings) and the headless peer
 * Service `<tc>-pd-peer` (2380 and 2379, `publishNotReadyAddresses`, so members find each other
 * before they are Ready). Each records its spec in the last-applied annotation, which the shared
 * apply protocol (member/apply.ts) compares against.
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { LABEL, componentLabels, ownerReference } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { PD_PORTS, pdPeerServiceName, pdSetName } from './names.js';

type ServiceSpec = NonNullable<IService['spec']>;

/** The client Service `<tc>-pd`: port `client` (or `spec.pd.service.portName`) 2379 → 2379. */
export function pdClientService(tc: TidbCluster): IService {
  const user = tc.spec.pd?.service;
  const selector = componentLabels(tc, 'pd');
  const spec: ServiceSpec = {
    type: user?.type ?? 'ClusterIP',
    ports: [{ name: user?.portName ?? 'client', port: PD_PORTS.client, targetPort: PD_PORTS.client, protocol: 'TCP' }],
    selector,
    ...(user?.clusterIP === undefined ? {} : { clusterIP: user.clusterIP }),
    ...(user?.loadBalancerIP === undefined ? {} : { loadBalancerIP: user.loadBalancerIP }),
    ...(user?.loadBalancerSourceRanges === undefined ? {} : { loadBalancerSourceRanges: user.loadBalancerSourceRanges }),
    ...(user?.loadBalancerClass === undefined ? {} : { loadBalancerClass: user.loadBalancerClass }),
  };
  const metadata = {
    name: pdSetName(tc),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'end-user', ...user?.labels },
    annotations: { ...user?.annotations },
    ownerReferences: [ownerReference(tc)],
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}

/** The headless peer Service `<tc>-pd-peer`: `tcp-peer-2380` and `tcp-peer-2379`, not-ready addresses published. */
export function pdPeerService(tc: TidbCluster): IService {
  const selector = componentLabels(tc, 'pd');
  const port = (p: number) => ({ name: `tcp-peer-${p}`, port: p, targetPort: p, protocol: 'TCP' as const });
  const spec: ServiceSpec = {
    clusterIP: 'None',
    ports: [port(PD_PORTS.peer), port(PD_PORTS.client)],
    selector,
    publishNotReadyAddresses: true,
  };
  const metadata = {
    name: pdPeerServiceName(tc),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'peer' },
    annotations: {},
    ownerReferences: [ownerReference(tc)],
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}
