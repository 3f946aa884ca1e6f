/**
 * `LiveObserver`: the Observer port over the Kubernetes API and PD. One step reads, in this order:
 * the TidbCluster (GET); then, together, one label-selected LIST per owned kind (discovery's
 * Deployment, Service, ServiceAccount, Role and RoleBinding carry the same labels, so they come with
 * them) and, when the spec has PD, PD's members, health, leader, stores, config and evict-leader
 * schedulers (under cluster TLS over https, and only once `<tc>-cluster-client-secret` is seen to
 * exist, docs/adr/0005); last, together, each listed PD pod's own readiness and the PersistentVolumes
 * bound to the listed claims (see `observe-volumes.ts`). The persisted part of the snapshot (fence, failures, wake-up, deadlines) is not read
 * here: the engine has it from its claim and reads the deadlines itself, alongside this observer.
 */

import { OWNED_KINDS as KUBE_OWNED_KINDS, type KubeObject, type OwnedKind as KubeOwnedKind } from '../kube/port.js';
import type { ClusterRef } from '../model/key.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import type { PdView } from '../model/pd.js';
import type { PdReadFailure } from '../model/snapshot.js';
import { NotFoundError, TerminalError } from '../platform/errors.js';
import { clusterClientSecretName, isTlsCluster } from '../reconcile/cluster/tls.js';
import { errorText } from '../step/error-outcome.js';
import { NO_OWNED_OBJECTS, type Observation, type Observer, type ObserveRequest } from '../step/ports.js';
import { abortError, withinBudget } from './abortable.js';
import type { ClusterClients } from './clients.js';
import { instanceOf, LABEL, ObservedIndex, ownedLabels } from './observed.js';
import { readBoundVolumes } from './observe-volumes.js';
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
    // The bound claims' volumes and the PD members' readiness both follow from the owned objects.
    const [volumes, readiness] = await Promise.all([
      readBoundVolumes(this.clients.kube, ref.namespace, instance, owned, signal),
      pd.pd ? this.readReadiness(pd.pd, owned, ref, signal, isTlsCluster(cluster)) : undefined,
    ]);
    const withVolumes = { cluster, owned, ...(volumes === undefined ? {} : { volumes }) };
    if (!readiness) return { ...withVolumes, ...pd };
    return { ...withVolumes, pd: readiness };
  }

  /** Members' readiness, asked of the PD pods this observation listed (see `withMemberReadiness`). */
  private async readReadiness(view: PdView, owned: OwnedObjects, ref: ClusterRef, signal: AbortSignal, tls: boolean): Promise<PdView> {
    const pdPods = new Set(owned.Pod.filter((p) => p.metadata?.labels?.[LABEL.component] === 'pd').map((p) => p.metadata?.name ?? ''));
    const pd = this.clients.pd({ namespace: ref.namespace, tcName: ref.name, tls });
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

  private async readPdView(cluster: TidbCluster, ref: ClusterRef, signal: AbortSignal): Promise<PdRead> {
    if (!hasPd(cluster)) return { pd: undefined };
    const tls = isTlsCluster(cluster);
    if (tls) {
      const missing = await this.missingClientSecret(ref, signal);
      if (missing) return { pd: undefined, pdError: missing.why, missingSecrets: [missing.name] };
    }
    const pd = this.clients.pd({ namespace: ref.namespace, tcName: ref.name, tls });
    try {
      return { pd: toPdView(await withinBudget(signal, 'read PD', () => readPd(pd))) };
    } catch (err) {
      // Running out of budget is the step's problem, not a fact about PD.
      if (signal.aborted) throw abortError(signal, 'read PD');
      return { pd: undefined, pdError: errorText(err), pdErrorKind: pdReadFailureOf(err) };
    }
  }

  private async missingClientSecret(ref: ClusterRef, signal: AbortSignal): Promise<{ name: string; why: string } | undefined> {
    return withinBudget(signal, 'get the cluster client Secret', () => missingClientSecretOf(this.clients.kube, ref));
  }
}

/**
 * With cluster TLS, PD is reached over https only when `<tc>-cluster-client-secret` exists (see
 * docs/adr/0005): without it the cluster is half-wired, and talking to PD anyway would hide that.
 */
async function missingClientSecretOf(kube: ClusterClients['kube'], ref: ClusterRef): Promise<{ name: string; why: string } | undefined> {
  const name = clusterClientSecretName(ref.name);
  if (await kube.hasSecret(ref.namespace, name)) return undefined;
  return { name, why: `cluster TLS is on but Secret ${ref.namespace}/${name} does not exist; PD is not contacted without the cluster client certificate` };
}

type PdRead = { pd: PdView | undefined; pdError?: string; pdErrorKind?: PdReadFailure; missingSecrets?: readonly string[] };

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
