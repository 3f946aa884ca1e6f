/**
 * PD's Services, as TiDB Operator v1 builds them (§2.1): the client Service `<tc>-pd` (port `client`
 * 2379, the user's type, labels, annotations and load-balancer settings) and the headless peer
 * Service `<tc>-pd-peer` (2380 and 2379, `publishNotReadyAddresses`, so members find each other
 * before they are Ready). Each records its spec in the last-applied annotation; a Service is updated
 * only when that record differs from what is desired, and keeps the cluster IP it was given.
 */

import type { IService } from 'kubernetes-models/v1/Service';

import type { Action } from '../model/action.js';
import type { KubeObject, TidbCluster } from '../model/kube.js';
import { jsonEqual } from './equal.js';
import { LABEL, LAST_APPLIED_ANNOTATION, componentLabels, ownerReference } from '../model/labels.js';
import { complete } from './outcome.js';
import { PD_PORTS, gatePdAct, pdPeerServiceName, pdSetName } from './pd-common.js';
import type { Decision, RuleInput } from './rule.js';

type ServiceSpec = NonNullable<IService['spec']>;

const withRecord = (svc: IService): IService => ({
  ...svc,
  metadata: {
    ...svc.metadata,
    annotations: { ...svc.metadata?.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(svc.spec) },
  },
});

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
  return withRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
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
  return withRecord({ apiVersion: 'v1', kind: 'Service', metadata, spec });
}

/** Whether `live` already carries `desired`: same labels, annotations and last-applied spec. */
export function isServiceApplied(desired: IService, live: IService): boolean {
  const record = live.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  let applied: unknown;
  try {
    applied = record === undefined ? undefined : JSON.parse(record);
  } catch {
    applied = undefined;
  }
  return (
    applied !== undefined &&
    jsonEqual(applied, desired.spec) &&
    jsonEqual(desired.metadata?.labels ?? {}, live.metadata?.labels ?? {}) &&
    jsonEqual(desired.metadata?.annotations ?? {}, live.metadata?.annotations ?? {})
  );
}

/**
 * The object to update `live` with: `desired`, keeping the allocated cluster IP(s) and, per port
 * name, the allocated node ports (as TiDB Operator keeps ClusterIP on update).
 */
export function serviceUpdate(desired: IService, live: IService): KubeObject {
  const nodePort = (name: string | undefined) => live.spec?.ports?.find((p) => p.name === name)?.nodePort;
  const ports = (desired.spec?.ports ?? []).map((p) => {
    const allocated = desired.spec?.type === 'NodePort' || desired.spec?.type === 'LoadBalancer' ? nodePort(p.name) : undefined;
    return allocated === undefined ? p : { ...p, nodePort: allocated };
  });
  const kept = {
    ...(live.spec?.clusterIP === undefined ? {} : { clusterIP: live.spec.clusterIP }),
    ...(live.spec?.clusterIPs === undefined ? {} : { clusterIPs: live.spec.clusterIPs }),
  };
  const metadata = { ...live.metadata, labels: desired.metadata?.labels, annotations: desired.metadata?.annotations };
  return { ...live, apiVersion: 'v1', kind: 'Service', metadata, spec: { ...live.spec, ...desired.spec, ...kept, ports } };
}

/** The action that makes `desired` true: create, update under the observed resourceVersion, or none. */
export function planServiceWrite(desired: IService, live: IService | undefined): Action | undefined {
  const ref = { kind: 'Service' as const, namespace: desired.metadata?.namespace ?? '', name: desired.metadata?.name ?? '' };
  if (!live) return { kind: 'create', ref, object: desired as KubeObject };
  if (isServiceApplied(desired, live)) return undefined;
  return { kind: 'update', ref, object: serviceUpdate(desired, live), resourceVersion: live.metadata?.resourceVersion ?? '' };
}

/**
 * The `PdServices` rule. As TiDB Operator: both Services exist and carry the desired spec.
 * Guarantees: no action when both are up to date; otherwise create/update actions, client first.
 * Always completes: nothing waits on a Service.
 */
export function planPdServices(input: RuleInput): Decision {
  return gatePdAct((gated) => {
    const live = (name: string) => gated.snapshot.components.pd.objects.Service.find((s) => s.metadata?.name === name);
    const actions = [pdClientService(gated.cluster), pdPeerService(gated.cluster)].flatMap((svc) => {
      const action = planServiceWrite(svc, live(svc.metadata?.name ?? ''));
      return action ? [action] : [];
    });
    return { actions, outcome: complete(actions.length === 0 ? undefined : 'PD services written') };
  })(input);
}
