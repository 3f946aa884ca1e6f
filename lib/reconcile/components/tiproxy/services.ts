/**
 * TiProxy's Services, as TiDB Operator v1.6's `syncProxyService` builds them: the client Service
 * `<tc>-tiproxy` of type NodePort (ports `tiproxy-api` 3080 and `tiproxy-sql` 6000) and the headless
 * peer Service `<tc>-tiproxy-peer` (`tiproxy-api` 3080, `tiproxy-peer` 3081). Both select the
 * component's pods and publish not-ready addresses; with `spec.preferIPv6` both are IPv6
 * single-stack. Each records its spec in the last-applied annotation the apply protocol compares.
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { LABEL, componentLabels, ownerReference } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { TIPROXY_API_PORT, TIPROXY_PEER_PORT, TIPROXY_SQL_PORT, tiproxyPeerServiceName, tiproxySetName } from './names.js';

type ServiceSpec = NonNullable<IService['spec']>;

const port = (name: string, p: number) => ({ name, port: p, targetPort: p, protocol: 'TCP' as const });

// As v1's SetServiceWhenPreferIPv6: IPv6 single-stack.
const ipv6 = (tc: TidbCluster): Partial<ServiceSpec> => (tc.spec.preferIPv6 === true ? { ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack' } : {});

function service(tc: TidbCluster, name: string, usedBy: 'end-user' | 'peer', spec: ServiceSpec): IService {
  const selector = componentLabels(tc, 'tiproxy');
  const metadata = { name, namespace: tc.metadata.namespace, labels: { ...selector, [LABEL.usedBy]: usedBy }, annotations: {}, ownerReferences: [ownerReference(tc)] };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec: { ...spec, selector, publishNotReadyAddresses: true, ...ipv6(tc) } });
}

/** The client Service `<tc>-tiproxy`: NodePort, `tiproxy-api` 3080 and `tiproxy-sql` 6000. */
export function tiproxyClientService(tc: TidbCluster): IService {
  return service(tc, tiproxySetName(tc), 'end-user', { type: 'NodePort', ports: [port('tiproxy-api', TIPROXY_API_PORT), port('tiproxy-sql', TIPROXY_SQL_PORT)] });
}

/** The headless Service `<tc>-tiproxy-peer` the StatefulSet names: `tiproxy-api` 3080 and `tiproxy-peer` 3081. */
export function tiproxyPeerService(tc: TidbCluster): IService {
  return service(tc, tiproxyPeerServiceName(tc), 'peer', { type: 'ClusterIP', clusterIP: 'None', ports: [port('tiproxy-api', TIPROXY_API_PORT), port('tiproxy-peer', TIPROXY_PEER_PORT)] });
}
