/**
 * Reading TiDB Operator's controller managers for the coexistence verdict (lib/model/tidb-operator.ts),
 * only when the key's persisted verdict is due for a re-check: one label-selected LIST of Deployments
 * in every namespace, then one GET of the Lease named like each Deployment found (none in a cluster
 * without TiDB Operator). A reconciler deployed for some namespaces only (`WATCH_NAMESPACES`) lists
 * those of the cluster's namespace instead (`scope: 'namespace'`): a cluster-scoped operator in
 * another namespace is then not seen (docs/migrating-from-tidb-operator.md says so).
 */

import type { KubeObject, KubePort } from '../kube/port.js';
import { OPERATOR_DEPLOYMENT_SELECTOR, clusterScopedOf, isControllerManager, type ObservedLease, type ObservedOperator, type OperatorObservation } from '../model/tidb-operator.js';
import { withinBudget } from './abortable.js';

export { clusterScopedOf } from '../model/tidb-operator.js';

/**
 * Reads the controller managers that could manage a TidbCluster in `namespace`: those of every
 * namespace (`scope` 'cluster'), or of `namespace` only ('namespace': a reconciler deployed for some
 * namespaces, which may list no other).
 */
export async function readTidbOperators(kube: KubePort, namespace: string, scope: OperatorObservation['scope'], signal: AbortSignal): Promise<OperatorObservation> {
  const where = scope === 'cluster' ? undefined : namespace;
  const listed = await withinBudget(signal, `list TiDB Operator Deployments in ${where ?? 'every namespace'}`, () => kube.listDeployments(where, OPERATOR_DEPLOYMENT_SELECTOR));
  const deployments = listed.items;
  const candidates = deployments.filter(isControllerManager);
  const operators = await Promise.all(
    candidates.map(async (d): Promise<ObservedOperator> => {
      const ns = d.metadata.namespace ?? '';
      const name = d.metadata.name ?? '';
      const lease = await withinBudget(signal, `get Lease ${ns}/${name}`, () => kube.getLease(ns, name));
      const observedLease = lease === undefined ? undefined : leaseOf(lease);
      return {
        namespace: ns,
        name,
        readyReplicas: typeof d.status?.readyReplicas === 'number' ? d.status.readyReplicas : 0,
        clusterScoped: clusterScopedOf(d),
        ...(observedLease === undefined ? {} : { lease: observedLease }),
      };
    }),
  );
  return { operators, scope };
}

/** The Lease's holder, renew time and duration as the rule reads them. */
function leaseOf(lease: KubeObject): ObservedLease {
  const spec = (lease.spec ?? {}) as { holderIdentity?: unknown; renewTime?: unknown; leaseDurationSeconds?: unknown };
  const renew = typeof spec.renewTime === 'string' ? Date.parse(spec.renewTime) : NaN;
  return {
    ...(typeof spec.holderIdentity === 'string' ? { holderIdentity: spec.holderIdentity } : {}),
    ...(Number.isFinite(renew) ? { renewTimeMs: renew } : {}),
    ...(typeof spec.leaseDurationSeconds === 'number' ? { leaseDurationMs: spec.leaseDurationSeconds * 1000 } : {}),
  };
}
