/**
 * `LiveObserver`: the Observer port over the Kubernetes API and the components' own APIs. One step
 * reads, in this order: the TidbCluster (GET); then, together, one label-selected LIST per owned
 * kind (discovery's Deployment, Service, ServiceAccount, Role and RoleBinding carry the same labels,
 * so they come with them) and the API of each component of `COMPONENT_READERS` the spec has (under
 * cluster TLS over https with that certificate, and only once `<tc>-cluster-client-secret` is seen to exist, docs/adr/0018);
 * last, together, the PersistentVolumes bound to the listed claims (see `observe-volumes.ts`), the
 * leader counts of TiKV pods being evicted (see `observe-tikv-leaders.ts`) and
 * the Nodes of TiKV pods when store labels are wanted and of failure stores' pods with
 * `detectNodeFailure` (see `observe-nodes.ts`), the StorageClasses of claims the spec grows (see
 * `observe-storage-classes.ts`), and
 * what each component's own objects add to its view (PD: each listed PD pod's readiness, TiDB: each
 * server's `/status`); then, only when some healthy TiDB server still needs its server labels, the
 * Nodes those servers run on (`serverNodeNames`; none at rest). The listed objects are split by their component label: each observed component's go to
 * `components[name].objects`, the rest stay in `owned`. At rest (`ObserveRequest.verified` names the
 * TidbCluster read, same uid and generation) the kinds only the discovery rule reads are not listed
 * (`DISCOVERY_ONLY_KINDS`) and the observation says `reads: 'rest'`; what no watch reports (Services,
 * ConfigMaps, the bound volumes, the cluster client Secret) is then taken from the step before when
 * this process ran it and it wrote none of them (`ObservedIndex.keptFor`), and read otherwise. A
 * health check (`ObserveRequest.health`, docs/adr/0024) whose step before ran here and wrote nothing
 * takes the TidbCluster, the owned objects and the volumes from that step too, and reads only the
 * components (at the addresses their names last resolved to) and any Nodes the rules want (none at
 * rest). A health step of a process that did not run the step before takes that step's whole read
 * from the state table instead, when the state item names it (`ObserveRequest.persistedRead`;
 * `observe-persisted.ts`), with the addresses the components' names resolved to; every read from
 * the API server is kept there for the health steps after it (`ObserverOptions.restReads`). Only when the request says the key's TiDB Operator verdict is due (`checkTidbOperator`) and
 * the cluster is not annotated to take over: TiDB Operator's controller managers, beside the lists
 * (`observe-operator.ts`). The persisted part of the snapshot (fence,
 * failures, wake-up, deadlines) is not read here: the engine has it from its claim and reads the
 * deadlines itself, alongside this observer.
 */

import { isObjectPager } from './object-lister.js';
import { readPendingPitrRestores } from './observe-restores.js';
import { OWNED_KINDS as KUBE_OWNED_KINDS, type KubeObject, type OwnedKind as KubeOwnedKind } from '../kube/port.js';
import type { ClusterKey, ClusterRef } from '../model/key.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import type { PdView } from '../model/pd.js';
import type { TidbView } from '../model/tidb.js';
import { instanceName, isOtherResourceObject, ownedLabels } from '../model/labels.js';
import { OBSERVED_COMPONENTS, splitByComponent, type ComponentObservation, type ObservedComponents } from '../model/snapshot.js';
import { NotFoundError, TerminalError } from '../platform/errors.js';
import { DISCOVERY_KINDS } from '../reconcile/cluster/discovery.js';
import { clusterClientSecretName, isTlsCluster } from '../reconcile/cluster/tls.js';
import { errorText } from '../step/error-outcome.js';
import { NO_COMPONENTS, NO_OWNED_OBJECTS, type Observation, type Observer, type ObserveRequest } from '../step/ports.js';
import { abortError, withinBudget } from './abortable.js';
import type { ClusterClients } from './clients.js';
import { ClusterIdCache } from './pd-view.js';
import { COMPONENT_READERS, type ComponentReadContext, type ComponentReader } from './observe-components.js';
import { ObservedIndex, type KeptReads, type WholeRead } from './observed.js';
import { readStoreNodes, serverNodeNames, storeNodeNames, tiproxyNodeNames } from './observe-nodes.js';
import type { TiproxyView } from '../model/tiproxy.js';
import { readEbsModifications, readResizeStorageClasses } from './observe-storage-classes.js';
import type { Ec2Volumes } from '../ec2/port.js';
import { boundVolumeNames, readBoundVolumes } from './observe-volumes.js';
import { readTikvLeaders } from './observe-tikv-leaders.js';
import { plainJson } from './plain-json.js';
import { readTidbOperators } from './observe-operator.js';
import { keepRead, loadKeptRead, type LoadedRead } from './observe-persisted.js';
import type { RestReadStore } from '../state/rest-reads.js';
import { TAKE_OVER_ANNOTATION, type OperatorObservation } from '../model/tidb-operator.js';

/** The owned kinds the observer lists: every kind the Kubernetes port reads per TidbCluster but its Events (no rule reads them). */
const OWNED_KINDS = KUBE_OWNED_KINDS.filter((kind): kind is keyof OwnedObjects & KubeOwnedKind => kind !== 'Event');

/** The kinds only the discovery rule reads (its Service is listed anyway, with every other Service). */
const DISCOVERY_ONLY_KINDS: ReadonlySet<string> = new Set(DISCOVERY_KINDS.filter((kind) => kind !== 'Service'));

/** The kinds a step at rest lists. */
const REST_KINDS = OWNED_KINDS.filter((kind) => !DISCOVERY_ONLY_KINDS.has(kind));

/** The owned kinds no watch reports, which a step at rest takes from the step before (`KeptReads`). */
const KEPT_KINDS = ['Service', 'ConfigMap'] as const;

/** The kinds a step at rest lists when the step before kept its reads. */
const REST_KINDS_KEPT = REST_KINDS.filter((kind) => !(KEPT_KINDS as readonly string[]).includes(kind));

/** A component reader seen without its view's type (the table is walked generically). */
type AnyReader = ComponentReader<unknown, string>;

/** What reading one component's API gave: a view, or the error (and its kind) that prevented it. */
type ApiRead = { readonly view: unknown; readonly error?: string; readonly errorKind?: string };

/** Every component's API read, and the Secrets found missing on the way (or the cluster client Secret seen to exist). */
type ApiReads = { readonly reads: readonly ApiRead[]; readonly missingSecrets?: readonly string[]; readonly clientSecretSeen?: true };

/**
 * What the observer reads besides the defaults: `detectNodeFailure` adds the Nodes of failure stores'
 * pods; `operatorScope` bounds where TiDB Operator is looked for. `clusterIds` is where PD cluster ids read before are kept: pass the runtime's, so the
 * observers of a warm container's steps share it (default: one of this observer's own).
 */
export type ObserverOptions = {
  readonly detectNodeFailure?: boolean;
  readonly clusterIds?: ClusterIdCache;
  /**
   * Where TiDB Operator's controller managers are looked for: in every namespace (default), or only
   * the cluster's — a reconciler deployed for some namespaces (`WATCH_NAMESPACES`) may list no other.
   */
  readonly operatorScope?: OperatorObservation['scope'];
  /** Where whole reads are kept for health steps in other processes (docs/adr/0024); none kept without it. */
  readonly restReads?: RestReadStore;
  /**
   * The `VolumeModifying` gate's EC2 (docs/reference/volumes.md §V5): with it, the classes of claims
   * whose class the spec changes are read, and EC2's last modification of the volumes the EBS
   * modifier works on next. Absent: the gate is off.
   */
  readonly volumeModifying?: { readonly ec2?: Ec2Volumes };
};

/**
 * Reads one cluster's world. Guarantees: a missing TidbCluster is `cluster: undefined` with nothing
 * owned and no component read (not an error); any Kubernetes read failure is thrown as the client's
 * typed error; a component API failure is not — it becomes that component's `error` (with its
 * `errorKind`) and no `view`, because "PD is down" or "PD has no leader" is a fact rules act on. Every
 * call ends when the step's budget signal aborts (then the abort is thrown). The identities observed
 * are left in `index` for the executor of the same step (fence).
 */
export class LiveObserver implements Observer {
  constructor(
    private readonly clients: ClusterClients,
    private readonly index: ObservedIndex = new ObservedIndex(),
    private readonly options: ObserverOptions = {},
  ) {
    this.clusterIds = options.clusterIds ?? new ClusterIdCache();
  }

  /** The PD cluster ids read before: the runtime's when given, so two worlds in one process never share one. */
  private readonly clusterIds: ClusterIdCache;

  async observe(request: ObserveRequest): Promise<Observation> {
    const { key, ref, signal } = request;
    const memory = this.wholeFor(request);
    const loaded = memory === undefined ? await this.keptReadFor(request) : undefined;
    const whole = memory ?? loaded?.whole;
    const cluster = whole?.cluster ?? (await this.readCluster(ref, signal));
    if (!cluster) {
      this.index.forget(key);
      return { cluster: undefined, owned: NO_OWNED_OBJECTS, components: NO_COMPONENTS };
    }
    const instance = instanceName(cluster);
    // A health step reaches each component at the address its name last resolved to (docs/adr/0024).
    const clients = whole ? (this.clients.reusing?.() ?? this.clients) : this.clients;
    const context: ComponentReadContext = { clients, target: { namespace: ref.namespace, tcName: ref.name, tls: isTlsCluster(cluster) }, cluster, clusterIds: this.clusterIds };
    const atRest = request.verified !== undefined && request.verified.uid === cluster.metadata.uid && request.verified.generation === cluster.metadata.generation;
    const kept = atRest ? (this.index.keptFor(key, request.fence) ?? loaded?.kept) : undefined;
    const kinds = atRest ? (kept ? REST_KINDS_KEPT : REST_KINDS) : OWNED_KINDS;
    const operator = request.checkTidbOperator && cluster.metadata.annotations?.[TAKE_OVER_ANNOTATION] !== 'true' ? readTidbOperators(this.clients.kube, ref.namespace, this.options.operatorScope ?? 'cluster', signal) : undefined;
    // A health step (its whole read kept) does not list Restores: TiKV's PiTR overlay then stays as the live ConfigMap has it.
    const pager = whole || !isObjectPager(this.clients.objects) ? undefined : this.clients.objects;
    const restores = pager && readPendingPitrRestores(pager, cluster, this.options.operatorScope ?? 'cluster', signal);
    const [listed, api, tidbOperator, pendingPitrRestores] = await Promise.all([whole ? whole.owned : this.readOwned(ref.namespace, instance, kinds, signal), this.readApis(cluster, ref, context, signal, kept), operator, restores]);
    const owned: OwnedObjects = whole ? whole.owned : kept ? { ...listed, Service: kept.Service, ConfigMap: kept.ConfigMap } : listed;
    this.index.remember(key, request.fence, instance, cluster, owned);
    const { rest, byComponent } = splitByComponent(owned, OBSERVED_COMPONENTS);
    // The bound claims' volumes and what each component's objects add to its view both follow from the owned objects.
    const pdView = api.reads[OBSERVED_COMPONENTS.indexOf('pd')]?.view as PdView | undefined;
    // Nodes change without events the exporter sees: read as on every step (none at rest).
    const storeNodes = storeNodeNames(cluster, owned, pdView, this.options.detectNodeFailure);
    const volumeNames = boundVolumeNames(owned);
    const keptVolumes = kept && sameNames(kept.volumes.names, volumeNames) ? kept.volumes : undefined;
    const [volumes, storageClasses, tikvLeaders, read, ...completed] = await Promise.all([
      keptVolumes ? keptVolumes.items : readBoundVolumes(this.clients.kube, ref.namespace, instance, owned, signal),
      readResizeStorageClasses(this.clients.kube, cluster, owned, signal, this.options.volumeModifying !== undefined),
      withinBudget(signal, 'read TiKV leader counts', () => readTikvLeaders(clients.tikv(context.target), owned, signal)),
      readStoreNodes(this.clients.kube, storeNodes, signal),
      ...OBSERVED_COMPONENTS.map((name, i) => this.complete(reader(name), api.reads[i], byComponent[name], context, signal)),
    ]);
    // Server labels go to healthy TiDB servers and TiProxy members only, known once their /status or
    // health was read: the few nodes that adds (none once every running process has its labels) are read after it.
    const tidbView = completed[OBSERVED_COMPONENTS.indexOf('tidb')]?.view as TidbView | undefined;
    const tiproxyView = completed[OBSERVED_COMPONENTS.indexOf('tiproxy')]?.view as TiproxyView | undefined;
    const labelled = [...serverNodeNames(cluster, owned, pdView, tidbView), ...tiproxyNodeNames(cluster, owned, pdView, tiproxyView)];
    const serverNodes = [...new Set(labelled)].filter((name) => !storeNodes.includes(name)).sort();
    const more = await readStoreNodes(this.clients.kube, serverNodes, signal);
    const nodes = read === undefined && more === undefined ? undefined : [...(read ?? []), ...(more ?? [])];
    const ebs = await readEbsModifications(this.options.volumeModifying?.ec2, cluster, owned, volumes ?? [], storageClasses ?? [], request.nowMs, signal);
    const persistedAt = whole ? whole.persistedAt : await this.keepRead(request, { cluster, owned, volumes }, api.clientSecretSeen === true);
    this.index.keep(key, request.fence, {
      Service: owned.Service,
      ConfigMap: owned.ConfigMap,
      volumes: { names: volumeNames, items: volumes },
      ...(api.clientSecretSeen ? { clientSecretSeen: true as const } : {}),
      whole: { cluster, owned, volumes, ...(persistedAt === undefined ? {} : { persistedAt }) },
    });
    const components = Object.fromEntries(
      OBSERVED_COMPONENTS.map((name, i): [string, ComponentObservation<unknown, string>] => [name, observed(byComponent[name], completed[i])]),
    ) as unknown as ObservedComponents;
    return {
      cluster,
      owned: rest,
      components,
      ...(volumes === undefined ? {} : { volumes }),
      ...(tikvLeaders === undefined ? {} : { tikvLeaders }),
      ...(nodes === undefined ? {} : { nodes }),
      ...(storageClasses === undefined ? {} : { storageClasses }),
      ...ebs,
      ...(api.missingSecrets === undefined ? {} : { missingSecrets: api.missingSecrets }),
      ...(atRest ? { reads: 'rest' as const } : {}),
      ...(tidbOperator === undefined ? {} : { tidbOperator }),
      ...(pendingPitrRestores === undefined ? {} : { pendingPitrRestores }),
    };
  }

  /**
   * What a health step takes from the step before instead of the API server: that step's whole read,
   * when it ran in this process just before (fence − 1), wrote nothing to the API server, and read
   * the TidbCluster this step may read at rest against (same uid and generation). Anything else
   * reads as every step at rest does.
   */
  private wholeFor(request: ObserveRequest): WholeRead | undefined {
    if (request.health !== true || request.verified === undefined) return undefined;
    const whole = this.index.keptFor(request.key, request.fence)?.whole;
    const { uid, generation } = whole?.cluster.metadata ?? {};
    return whole && uid === request.verified.uid && generation === request.verified.generation ? whole : undefined;
  }

  persistedRead(key: ClusterKey, fence: number): number | undefined {
    return this.index.persistedAt(key, fence);
  }

  /**
   * A health step's whole read from the state table when this process has none: the one the state
   * item names, of the verified TidbCluster; its addresses are adopted by direct access (names this
   * process resolved itself stay as they are).
   */
  private async keptReadFor(request: ObserveRequest): Promise<LoadedRead | undefined> {
    const store = this.options.restReads;
    if (store === undefined || request.health !== true || request.verified === undefined || request.persistedRead === undefined) return undefined;
    const loaded = await loadKeptRead(store, request.key, request.persistedRead, request.verified, request.signal);
    if (loaded !== undefined) this.clients.resolvedNames?.()?.adopt(loaded.addresses);
    return loaded;
  }

  /** Keeps what this step read from the API server for the health steps after it; the fence it is kept under, or undefined. */
  private async keepRead(request: ObserveRequest, whole: Omit<WholeRead, 'persistedAt'>, clientSecretSeen: boolean): Promise<number | undefined> {
    const store = this.options.restReads;
    if (store === undefined) return undefined;
    const addresses = this.clients.resolvedNames?.()?.ofCluster(request.ref.namespace, request.ref.name) ?? [];
    const kept = await keepRead(store, request.key, request.fence, request.nowMs, whole, addresses, clientSecretSeen, request.signal);
    return kept ? request.fence : undefined;
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

  /** One LIST per kind of `kinds`, all selected by the cluster's instance and `managed-by` labels; the other kinds are empty. */
  private async readOwned(namespace: string, instance: string, kinds: readonly (keyof OwnedObjects & KubeOwnedKind)[], signal: AbortSignal): Promise<OwnedObjects> {
    const selector = ownedLabels(instance);
    const lists = await Promise.all(
      kinds.map((kind) =>
        withinBudget(signal, `list ${kind}`, () => this.clients.kube.listOwned(namespace, kind, selector)),
      ),
    );
    const owned: Record<string, readonly KubeObject[]> = Object.fromEntries(OWNED_KINDS.map((kind) => [kind, []]));
    kinds.forEach((kind, i) => {
      // A TidbDashboard or TidbNGMonitoring named like the cluster shares its instance label: not the cluster's.
      owned[kind] = (lists[i]?.items ?? []).filter((o) => !isOtherResourceObject(o.metadata.labels));
    });
    return plainJson<OwnedObjects>(owned);
  }

  /**
   * The API of every component the spec has, together. Under cluster TLS none is contacted before the
   * client Secret is seen to exist; without it each such component's error says so.
   */
  private async readApis(cluster: TidbCluster, ref: ClusterRef, context: ComponentReadContext, signal: AbortSignal, kept: KeptReads | undefined): Promise<ApiReads> {
    const wanted = OBSERVED_COMPONENTS.map((name) => reader(name).inSpec(cluster));
    if (!wanted.some(Boolean)) return { reads: wanted.map(() => ({ view: undefined })) };
    if (context.target.tls === true && kept?.clientSecretSeen !== true) {
      const missing = await this.missingClientSecret(ref, signal);
      if (missing) return { reads: wanted.map((w) => (w ? { view: undefined, error: missing.why } : { view: undefined })), missingSecrets: [missing.name] };
    }
    const reads = await Promise.all(OBSERVED_COMPONENTS.map((name, i) => (wanted[i] ? this.readApi(reader(name), context, signal) : { view: undefined })));
    return { reads, ...(context.target.tls === true ? { clientSecretSeen: true as const } : {}) };
  }

  private async readApi(read: AnyReader, context: ComponentReadContext, signal: AbortSignal): Promise<ApiRead> {
    const what = `read ${read.title}`;
    try {
      return { view: await withinBudget(signal, what, () => read.read(context)) };
    } catch (err) {
      // Running out of budget is the step's problem, not a fact about the component.
      if (signal.aborted) throw abortError(signal, what);
      return { view: undefined, error: errorText(err), errorKind: read.failureOf(err) };
    }
  }

  /** The view completed from the component's own objects (see `ComponentReader.complete`). */
  private async complete(read: AnyReader, api: ApiRead | undefined, objects: OwnedObjects, context: ComponentReadContext, signal: AbortSignal): Promise<ApiRead> {
    const done = api ?? { view: undefined };
    const { complete } = read;
    if (done.view === undefined || !complete) return done;
    const view = done.view;
    const what = read.completeWhat ?? `read ${read.title}`;
    try {
      return { view: await withinBudget(signal, what, () => complete(view, objects, context)) };
    } catch (err) {
      // As for `read`: a component that cannot be read is a fact for the rules, the budget is not.
      if (signal.aborted) throw abortError(signal, what);
      return { view: undefined, error: errorText(err), errorKind: read.failureOf(err) };
    }
  }

  private async missingClientSecret(ref: ClusterRef, signal: AbortSignal): Promise<{ name: string; why: string } | undefined> {
    return withinBudget(signal, 'get the cluster client Secret', () => missingClientSecretOf(this.clients.kube, ref));
  }
}

/** Whether two lists of volume names are the same, in the same order. */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/** A component's observation: its objects and what reading its API gave. */
function observed(objects: OwnedObjects, read: ApiRead | undefined): ComponentObservation<unknown, string> {
  return {
    objects,
    view: read?.view,
    ...(read?.error === undefined ? {} : { error: read.error }),
    ...(read?.errorKind === undefined ? {} : { errorKind: read.errorKind }),
  };
}

function reader(name: keyof typeof COMPONENT_READERS): AnyReader {
  return COMPONENT_READERS[name] as unknown as AnyReader;
}

/**
 * With cluster TLS, components are reached over https only when `<tc>-cluster-client-secret` exists
 * (see docs/adr/0018): without it the cluster is half-wired, and talking to them anyway would hide that.
 */
async function missingClientSecretOf(kube: ClusterClients['kube'], ref: ClusterRef): Promise<{ name: string; why: string } | undefined> {
  const name = clusterClientSecretName(ref.name);
  if (await kube.hasSecret(ref.namespace, name)) return undefined;
  return { name, why: `cluster TLS is on but Secret ${ref.namespace}/${name} does not exist; PD is not contacted without the cluster client certificate` };
}

/** The API server's JSON as the model's type; a TidbCluster without a spec is not one rules can read. */
function asTidbCluster(object: KubeObject, what: string): TidbCluster {
  if (typeof object.spec !== 'object' || object.spec === null) {
    throw new TerminalError(`${what}: the TidbCluster has no spec`, { field: 'spec' });
  }
  return plainJson<TidbCluster>(object);
}
