/**
 * `LiveObserver`: the Observer port over the Kubernetes API and PD. One step reads, in this order:
 * the TidbCluster (GET); then, together, one label-selected LIST per owned kind (discovery's
 * Deployment, Service, ServiceAccount, Role and RoleBinding carry the same labels, so they come with
 * them) and, when the spec has PD, PD's members, health, leader, stores, config and evict-leader
 * schedulers; last, each listed PD pod's own readiness. The persisted part of the snapshot (fence, failures, wake-up, deadlines) is not read
 * here: the engine has it from its claim and reads the deadlines itself, alongside this observer.
 */

import { OWNED_KINDS as KUBE_OWNED_KINDS, type KubeObject, type OwnedKind as KubeOwnedKind } from '../kube/port.js';
import type { ClusterRef } from '../model/key.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import type { PdView } from '../model/pd.js';
import type { PdReadFailure } from '../model/snapshot.js';
import { NotFoundError, TerminalError } from '../platform/errors.js';
import { errorText } from '../step/error-outcome.js';
import { NO_OWNED_OBJECTS, type Observation, type Observer, type ObserveRequest } from '../step/ports.js';
import { abortError, withinBudget } from './abortable.js';
import type { ClusterClients } from './clients.js';
import { instanceOf, LABEL, ObservedIndex, ownedLabels } from './observed.js';
import { pdReadFailureOf, readPd, toPdView, withMemberReadiness } from './pd-view.js';
import { plainJson } from './plain-json.js';

/** The owned kinds the observer lists: every kind the Kubernetes port reads per TidbCluster. */
const OWNED_KINDS: readonly (keyof OwnedObjects & KubeOwnedKind)[] = KUBE_OWNED_KINDS;

/**
 * Reads one cluster's world. Guarantees: a missing TidbCluster is `cluster: undefined` with nothing
 * owned and no PD (not an error); any Kubernetes read failure is thrown as the client's typed error;
 * a PD failure is not — it becomes `pdError` (with its `pdErrorKind`) and `pd: undefined`, because
 * "PD is down" or "PD has no leader" is a fact rules act on. Every call ends when the step's budget signal aborts (then the abort is thrown).
 */
export class LiveObserver implements Observer {
  constructor(
    private readonly clients: ClusterClients,
    private readonly index: ObservedIndex = new ObservedIndex(),
  ) {}

  async observe(request: ObserveRequest): Promise<Observation> {
    const { key, ref, signal } = request;
    const cluster = await this.readCluster(ref, signal);
    if (!cluster) {
      this.index.forget(key);
      return { cluster: undefined, owned: NO_OWNED_OBJECTS, pd: undefined };
    }
    const instance = instanceOf(cluster, ref.name);
    const [owned, pd] = await Promise.all([this.readOwned(ref.namespace, instance, signal), this.readPdView(cluster, ref, signal)]);
    this.index.remember(key, instance, cluster, owned);
    if (!pd.pd) return { cluster, owned, ...pd };
    return { cluster, owned, pd: await this.readReadiness(pd.pd, owned, ref, signal) };
  }

  /** Members' readiness, asked of the PD pods this observation listed (see `withMemberReadiness`). */
  private async readReadiness(view: PdView, owned: OwnedObjects, ref: ClusterRef, signal: AbortSignal): Promise<PdView> {
    const pdPods = new Set(owned.Pod.filter((p) => p.metadata?.labels?.[LABEL.component] === 'pd').map((p) => p.metadata?.name ?? ''));
    const pd = this.clients.pd({ namespace: ref.namespace, tcName: ref.name });
    return withinBudget(signal, 'read PD member readiness', () => withMemberReadiness(view, pd, pdPods));
  }

  private async readCluster(ref: ClusterRef, signal: AbortSignal): Promise<TidbCluster | undefined> {
    const what = `get TidbCluster ${ref.namespace}/${ref.name}`;
    try {
      const object = await withinBudget(signal, what, () => this.clients.kube.getTidbCluster(ref.namespace, ref.name));
      return asTidbCluster(object, what);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** One LIST per kind, all selected by the cluster's instance and `managed-by` labels. */
  private async readOwned(namespace: string, instance: string, signal: AbortSignal): Promise<OwnedObjects> {
    const selector = ownedLabels(instance);
    const lists = await Promise.all(
      OWNED_KINDS.map((kind) =>
        withinBudget(signal, `list ${kind}`, () => this.clients.kube.listOwned(namespace, kind, selector)),
      ),
    );
    const owned: Record<string, readonly KubeObject[]> = {};
    OWNED_KINDS.forEach((kind, i) => {
      owned[kind] = lists[i]?.items ?? [];
    });
    return plainJson<OwnedObjects>(owned);
  }

  private async readPdView(cluster: TidbCluster, ref: ClusterRef, signal: AbortSignal): Promise<{ pd: PdView | undefined; pdError?: string; pdErrorKind?: PdReadFailure }> {
    if (!hasPd(cluster)) return { pd: undefined };
    const pd = this.clients.pd({ namespace: ref.namespace, tcName: ref.name });
    try {
      return { pd: toPdView(await withinBudget(signal, 'read PD', () => readPd(pd))) };
    } catch (err) {
      // Running out of budget is the step's problem, not a fact about PD.
      if (signal.aborted) throw abortError(signal, 'read PD');
      return { pd: undefined, pdError: errorText(err), pdErrorKind: pdReadFailureOf(err) };
    }
  }
}

/** Whether the spec has a PD of its own to read (a cluster joining another one's PD has none). */
export function hasPd(cluster: TidbCluster): boolean {
  return cluster.spec.pd !== undefined && cluster.spec.pd !== null;
}

/** The API server's JSON as the model's type; a TidbCluster without a spec is not one rules can read. */
function asTidbCluster(object: KubeObject, what: string): TidbCluster {
  if (typeof object.spec !== 'object' || object.spec === null) {
    throw new TerminalError(`${what}: the TidbCluster has no spec`, { field: 'spec' });
  }
  return plainJson<TidbCluster>(object);
}
