/**
 * TiDB's Services, as TiDB Operator v1 builds them (§2.4): the headless peer Service
 * `<tc>-tidb-peer` (port `status` 10080, not-ready addresses published) always, and the client
 * Service `<tc>-tidb` only when `spec.tidb.service` is set — port `mysql-client` (or `portName`)
 * `port` (default 4000) → 4000, `status` 10080 unless `exposeStatus: false`, the user's type,
 * node ports, load-balancer fields, traffic policy, labels, annotations and additional ports.
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../model/kube.js';
import { LABEL, componentLabels, ownerReference } from '../../../model/labels.js';
import { withServiceRecord } from '../../member/apply.js';
import { defined } from '../../member/pod-spec.js';
import { TIDB_PORTS, tidbPeerServiceName, tidbSetName } from './names.js';

type ServiceSpec = NonNullable<IService['spec']>;
type ServicePort = NonNullable<ServiceSpec['ports']>[number];

const withNodePort = (port: ServicePort, nodePort: number | undefined, type: string): ServicePort =>
  nodePort !== undefined && (type === 'NodePort' || type === 'LoadBalancer') ? { ...port, nodePort } : port;

const trafficPolicy = (value: string | undefined): ServiceSpec['externalTrafficPolicy'] =>
  value === 'Cluster' || value === 'Local' ? value : undefined;

/** The client Service `<tc>-tidb`, or undefined when `spec.tidb.service` is not set. */
export function tidbClientService(tc: TidbCluster): IService | undefined {
  const user = tc.spec.tidb?.service;
  if (!user) return undefined;
  const selector = componentLabels(tc, 'tidb');
  const type = user.type ?? 'ClusterIP';
  const mysql: ServicePort = { name: user.portName ?? 'mysql-client', port: user.port ?? TIDB_PORTS.server, targetPort: TIDB_PORTS.server, protocol: 'TCP' };
  const status: ServicePort = { name: 'status', port: TIDB_PORTS.status, targetPort: TIDB_PORTS.status, protocol: 'TCP' };
  const ports = [
    withNodePort(mysql, user.mysqlNodePort, type),
    // As TiDB Operator: the status port is exposed unless `exposeStatus: false`.
    ...(user.exposeStatus === false ? [] : [withNodePort(status, user.statusNodePort, type)]),
    ...(user.additionalPorts ?? []),
  ];
  const spec: ServiceSpec = defined({
    type,
    ports,
    selector,
    clusterIP: user.clusterIP,
    loadBalancerIP: user.loadBalancerIP,
    loadBalancerSourceRanges: user.loadBalancerSourceRanges,
    loadBalancerClass: user.loadBalancerClass,
    // Only NodePort and LoadBalancer Services take an external traffic policy.
    externalTrafficPolicy: type === 'NodePort' || type === 'LoadBalancer' ? trafficPolicy(user.externalTrafficPolicy) : undefined,
  });
  const metadata = {
    name: tidbSetName(tc),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'end-user', ...user.labels },
    annotations: { ...user.annotations },
    ownerReferences: [ownerReference(tc)],
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}

/** The headless peer Service `<tc>-tidb-peer`: port `status` 10080, not-ready addresses published. */
export function tidbPeerService(tc: TidbCluster): IService {
  const selector = componentLabels(tc, 'tidb');
  const spec: ServiceSpec = {
    clusterIP: 'None',
    ports: [{ name: 'status', port: TIDB_PORTS.status, targetPort: TIDB_PORTS.status, protocol: 'TCP' }],
    selector,
    publishNotReadyAddresses: true,
  };
  const metadata = {
    name: tidbPeerServiceName(tc),
    namespace: tc.metadata.namespace,
    labels: { ...selector, [LABEL.usedBy]: 'peer' },
    annotations: {},
    ownerReferences: [ownerReference(tc)],
  };
  return withServiceRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}

/** TiDB's Services in the order they are written: the client Service (when asked for), then the peer. */
export function tidbServices(tc: TidbCluster): IService[] {
  const client = tidbClientService(tc);
  return client ? [client, tidbPeerService(tc)] : [tidbPeerService(tc)];
}
