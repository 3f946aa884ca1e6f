/**
 * The simulated API server's storage: every object of every served kind, one global resourceVersion
 * counter, a bounded event history for watch resumption, and the write rules the real API server
 * applies (optimistic concurrency, generation, status subresource, graceful deletion, finalizers).
 * The HTTP layer and the in-process controllers both go through this class, so a controller's write
 * is seen by watchers exactly like a client's.
 */
import type { Clock } from '../platform/clock.js';
import { ApiError, alreadyExists, conflict, invalid, notFound } from './api-error.js';
import { NodePorts } from './node-ports.js';
import { type KubeObject, jsonEqual, objectKey, rfc3339 } from './object.js';
import { type ResourceDef, apiVersionOf } from './resources.js';
import { validateObject } from './validation.js';
import { CRD_KIND, ResourceRegistry } from './crd/registry.js';
import { admitCustomResource, prepareCrd, validateCrdAgainst } from './crd/admission.js';
import { CRD_CLEANUP_FINALIZER } from './crd/definitions.js';
import { EventHistory, KindBucket, type LabelEquals, ServiceIps, compareKeys, deepFreeze, keyOf } from './store-bucket.js';
import { ClusterIpAllocator, applyCreateDefaults, applySpecDefaults } from './defaults.js';
import { generateJobSelector } from './job-strategy.js';
import { admitClaimResize, claimUpdateCauses } from './claim-update.js';
import { statefulSetUpdateCauses } from './statefulset-update.js';
import { defaultClassName, defaultStorageClass } from './storage-classes.js';

/** A change as watchers see it. `object` is the stored object after the change (before, for DELETED). */
export type StoreEvent = {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  kind: string;
  object: KubeObject;
  /** The object before the change, for MODIFIED/DELETED. */
  previous?: KubeObject;
  resourceVersion: number;
};

/** Filters a watcher or list applies; the store evaluates them against each object. */
export type ObjectFilter = (obj: KubeObject) => boolean;

/** Options of `delete`, as in DeleteOptions. */
export type DeleteOptions = {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
};

/**
 * How unknown fields of a custom resource are treated, as the `fieldValidation` query parameter:
 * `Strict` refuses the write (400), `Warn` (the default) and `Ignore` prune them, `Warn` telling
 * the client through `warnings`.
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Options of writes; `warnings` collects what the server tells the client in `Warning` headers. */
export type WriteOptions = { subresource?: 'status'; dryRun?: boolean; fieldValidation?: FieldValidation; warnings?: string[] };

type Listener = (ev: StoreEvent) => void;

/** Finalizers the garbage collector implements. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

/**
 * Object storage with Kubernetes write semantics. Listeners run synchronously inside each write and
 * must not write back (schedule work on the clock instead).
 */
export class ObjectStore {
  private readonly objects = new Map<string, KindBucket>();
  private readonly history: EventHistory;
  private readonly listeners = new Set<Listener>();
  private rv = 1;
  private readonly ips = new ClusterIpAllocator();
  /** The kinds served: built-ins and those the stored CustomResourceDefinitions add. */
  readonly resources = new ResourceRegistry();
  /** The cluster IPs of the stored Services, kept by `emit`, so allocating one lists nothing. */
  private readonly ipsInUse = new ServiceIps();
  /** The node ports the stored Services hold, kept by `emit`. */
  private readonly nodePorts = new NodePorts();

  private readonly random: () => number;

  /** `random` makes uids and generated names reproducible for a seeded run (default Math.random). */
  constructor(
    readonly clock: Clock,
    opts: { historyLimit?: number; random?: () => number } = {},
  ) {
    this.history = new EventHistory(opts.historyLimit ?? 20000);
    this.random = opts.random ?? Math.random;
    // The CRD controllers: a stored CRD is served at once; a deleted one no longer is.
    this.subscribe((ev) => {
      if (ev.kind !== CRD_KIND) return;
      if (ev.type === 'DELETED') this.resources.drop(ev.object.metadata.name ?? '');
      else this.resources.put(ev.object);
    });
  }

  /** The current resourceVersion (the last one issued). */
  currentResourceVersion(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch can still resume from. */
  oldestResumableVersion(): number {
    const first = this.history.first();
    return first ? first.resourceVersion - 1 : this.rv;
  }

  /** One stored object (frozen: copy it to change it), or undefined. */
  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.bucket(kind).get(objectKey(this.nsFor(kind, namespace), name));
  }

  /** Like `get`, but 404 when missing. */
  mustGet(kind: string, namespace: string | undefined, name: string): KubeObject {
    const obj = this.get(kind, namespace, name);
    if (!obj) throw notFound(this.mustResource(kind).plural, name, this.mustResource(kind).group);
    return obj;
  }

  /**
   * The stored objects of a kind (in a namespace, or all) that pass `filter`, sorted by
   * namespace/name. They are the stored objects themselves, deeply frozen, so listing costs no copy;
   * the array is the caller's. `labels`, terms `filter` also requires, let the store read only the
   * objects carrying them (a selected LIST of a cluster-scoped kind costs what it returns, not what
   * is stored).
   */
  list(kind: string, namespace?: string, filter?: ObjectFilter, labels?: LabelEquals): KubeObject[] {
    const out: KubeObject[] = [];
    for (const obj of this.bucket(kind).values(namespace, labels)) {
      if (filter && !filter(obj)) continue;
      out.push(obj);
    }
    return out.sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
  }

  /** Creates an object: name/generateName, uid, resourceVersion, creationTimestamp, generation. */
  create(kind: string, input: KubeObject, opts: Omit<WriteOptions, 'subresource'> & { keepStatus?: boolean } = {}): KubeObject {
    const res = this.mustResource(kind);
    let obj = copy(input);
    obj.apiVersion = apiVersionOf(res);
    obj.kind = res.kind;
    obj.metadata = obj.metadata ?? {};
    if (!res.namespaced) delete obj.metadata.namespace;
    if (!obj.metadata.name && obj.metadata.generateName) obj.metadata.name = obj.metadata.generateName + randomSuffix(this.random);
    if (res.custom && this.resources.isTerminating(kind)) {
      throw new ApiError(405, 'MethodNotAllowed', `create not allowed while custom resource definition is terminating`);
    }
    // As PrepareForCreate: a kind with a status subresource drops the status before validation.
    if (res.subresources.includes('status') && !opts.keepStatus && kind !== 'Pod') delete obj.status;
    obj = this.validate(res, obj, opts);
    const name = obj.metadata.name ?? '';
    const ns = obj.metadata.namespace;
    if (res.namespaced && ns && kind !== 'Namespace') this.requireNamespace(ns);
    const key = objectKey(ns, name);
    if (this.bucket(kind).has(key)) throw alreadyExists(res.plural, name, res.group);
    applyCreateDefaults(kind, obj, () => this.ips.allocate(this.ipsInUse));
    if (kind === 'Service') this.assignNodePorts(obj);
    if (kind === 'StorageClass') defaultStorageClass(obj);
    if (kind === CRD_KIND) prepareCrd(obj, rfc3339(this.clock.nowMs()), true);
    // As the DefaultStorageClass admission plugin: a claim that names no class gets the default one.
    if (kind === 'PersistentVolumeClaim' && obj.spec && obj.spec.storageClassName === undefined) {
      const fallback = defaultClassName(this.list('StorageClass'));
      if (fallback !== undefined) obj.spec.storageClassName = fallback;
    }
    const meta = obj.metadata;
    meta.uid = uuidFrom(this.random);
    meta.creationTimestamp = rfc3339(this.clock.nowMs());
    // As the Job strategy's generateSelector, which runs once the uid is known.
    if (kind === 'Job') generateJobSelector(obj);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (res.hasGeneration) meta.generation = 1;
    if (opts.dryRun) return deepFreeze(obj);
    meta.resourceVersion = String(++this.rv);
    this.bucket(kind).set(obj);
    this.emit({ type: 'ADDED', kind, object: obj, resourceVersion: this.rv });
    return obj;
  }

  /**
   * Replaces an object (or its status). A non-empty metadata.resourceVersion must match the stored
   * one (409 otherwise). A write that changes nothing keeps the resourceVersion and emits no event.
   */
  update(kind: string, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    const res = this.mustResource(kind);
    const name = input.metadata?.name ?? '';
    const ns = this.nsFor(kind, input.metadata?.namespace);
    const old = this.bucket(kind).get(objectKey(ns, name));
    if (!old) throw notFound(res.plural, name, res.group);
    const wantRv = input.metadata.resourceVersion;
    if (wantRv && wantRv !== old.metadata.resourceVersion) throw conflict(res.plural, name, res.group);
    const statusOnly = opts.subresource === 'status';
    let next = this.merged(res, old, copy(input), statusOnly);
    // A status write keeps the stored (already defaulted, frozen) spec.
    if (!statusOnly) applySpecDefaults(res.kind, next);
    if (!statusOnly && kind === 'Service') this.assignNodePorts(next, old);
    next = this.validate(res, next, opts);
    if (kind === 'PersistentVolumeClaim' && !statusOnly) this.checkClaimUpdate(old, next);
    if (kind === 'StatefulSet' && !statusOnly) this.checkStatefulSetUpdate(old, next);
    if (kind === CRD_KIND) prepareCrd(next, rfc3339(this.clock.nowMs()), false);
    return this.commit(res, old, next, opts.dryRun === true);
  }

  /** Deletes an object, honouring grace periods (pods), finalizers and propagation policy. */
  delete(kind: string, namespace: string | undefined, name: string, opts: DeleteOptions = {}): { object: KubeObject; gone: boolean } {
    const res = this.mustResource(kind);
    const ns = this.nsFor(kind, namespace);
    const old = this.bucket(kind).get(objectKey(ns, name));
    if (!old) throw notFound(res.plural, name, res.group);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw new ApiError(409, 'Conflict', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) throw conflict(res.plural, name, res.group);
    // Only top-level metadata (and a namespace's status) change below; the rest stays shared and frozen.
    const next: KubeObject = { ...old, metadata: { ...old.metadata } };
    const finalizers = new Set(next.metadata.finalizers ?? []);
    if (opts.propagationPolicy === 'Foreground') finalizers.add(FOREGROUND_FINALIZER);
    if (opts.propagationPolicy === 'Orphan') finalizers.add(ORPHAN_FINALIZER);
    // As the CRD registry's delete: a CRD waits for its custom resources to go, whatever it was stored with.
    if (kind === CRD_KIND && !old.metadata.deletionTimestamp) finalizers.add(CRD_CLEANUP_FINALIZER);
    const graceSeconds = this.gracePeriodFor(kind, old, opts);
    if (kind === 'Namespace') return { object: this.terminateNamespace(res, old, next), gone: false };
    if (finalizers.size === 0 && graceSeconds === 0) {
      if (opts.dryRun) return { object: old, gone: true };
      this.remove(kind, old);
      return { object: old, gone: true };
    }
    next.metadata.finalizers = finalizers.size ? [...finalizers] : undefined;
    if (!next.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = rfc3339(this.clock.nowMs() + graceSeconds * 1000);
      next.metadata.deletionGracePeriodSeconds = graceSeconds;
    } else if (graceSeconds < (next.metadata.deletionGracePeriodSeconds ?? Infinity)) {
      // A second delete may shorten the grace period, never lengthen it (as the API server).
      next.metadata.deletionTimestamp = rfc3339(this.clock.nowMs() + graceSeconds * 1000);
      next.metadata.deletionGracePeriodSeconds = graceSeconds;
    }
    const stored = this.commit(res, old, next, opts.dryRun === true);
    return { object: stored, gone: false };
  }

  /**
   * Completes a graceful deletion (the kubelet's final delete with grace 0): removes the object if it
   * is marked for deletion and has no finalizers left.
   */
  finishDeletion(kind: string, namespace: string | undefined, name: string): boolean {
    const old = this.bucket(kind).get(objectKey(this.nsFor(kind, namespace), name));
    if (!old || !old.metadata.deletionTimestamp) return false;
    if ((old.metadata.finalizers?.length ?? 0) > 0) {
      // The grace period is over: the object goes as soon as its last finalizer is removed.
      if ((old.metadata.deletionGracePeriodSeconds ?? 0) > 0) {
        this.commit(this.mustResource(kind), old, { ...old, metadata: { ...old.metadata, deletionGracePeriodSeconds: 0 } }, false);
      }
      return false;
    }
    this.remove(kind, old);
    return true;
  }

  /** Removes a Terminating namespace (the namespace controller calls this once it is empty). */
  finishNamespace(name: string): boolean {
    const old = this.bucket('Namespace').get(name);
    if (!old || !old.metadata.deletionTimestamp) return false;
    this.remove('Namespace', old);
    return true;
  }

  /** Subscribes to every change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The retained events of `kind` after `fromRv`, for a watch resuming there; 410 Gone when that
   * version is older than the retained history.
   */
  eventsSince(kind: string, fromRv: number): StoreEvent[] {
    if (fromRv < this.oldestResumableVersion()) {
      throw new ApiError(410, 'Expired', `too old resource version: ${fromRv} (${this.oldestResumableVersion()})`);
    }
    return this.history.since(kind, fromRv);
  }

  private merged(res: ResourceDef, old: KubeObject, input: KubeObject, statusOnly: boolean): KubeObject {
    if (statusOnly) return { ...old, metadata: { ...old.metadata }, status: input.status };
    const next: KubeObject = { ...input, apiVersion: apiVersionOf(res), kind: res.kind };
    // Server-owned metadata cannot be changed by an update.
    const m = old.metadata;
    next.metadata = {
      ...input.metadata,
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      creationTimestamp: m.creationTimestamp,
      deletionTimestamp: m.deletionTimestamp,
      deletionGracePeriodSeconds: m.deletionGracePeriodSeconds,
      generation: m.generation,
      resourceVersion: m.resourceVersion,
      // As the field manager: an update that sends no managedFields keeps the recorded ones.
      managedFields: input.metadata.managedFields ?? m.managedFields,
    };
    if (res.subresources.includes('status')) next.status = old.status;
    return next;
  }

  private commit(res: ResourceDef, old: KubeObject, next: KubeObject, dryRun: boolean): KubeObject {
    if (res.hasGeneration && !jsonEqual(specOf(old), specOf(next))) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    dropUndefined(next.metadata);
    if (jsonEqual({ ...next, metadata: { ...next.metadata, resourceVersion: '' } }, { ...old, metadata: { ...old.metadata, resourceVersion: '' } })) {
      return old;
    }
    if (dryRun) return deepFreeze(next);
    const gone = res.kind !== 'Namespace' && next.metadata.deletionTimestamp && (next.metadata.finalizers?.length ?? 0) === 0 && (next.metadata.deletionGracePeriodSeconds ?? 0) === 0;
    if (gone) {
      this.remove(res.kind, next);
      return deepFreeze(next);
    }
    next.metadata.resourceVersion = String(++this.rv);
    this.bucket(res.kind).set(next);
    this.emit({ type: 'MODIFIED', kind: res.kind, object: next, previous: old, resourceVersion: this.rv });
    return next;
  }

  private terminateNamespace(res: ResourceDef, old: KubeObject, next: KubeObject): KubeObject {
    // A namespace stays Terminating until its content is gone (the GC empties it).
    next.metadata.deletionTimestamp = next.metadata.deletionTimestamp ?? rfc3339(this.clock.nowMs());
    next.metadata.deletionGracePeriodSeconds = 0;
    next.metadata.finalizers = next.metadata.finalizers?.length ? next.metadata.finalizers : undefined;
    next.status = { ...(next.status ?? {}), phase: 'Terminating' };
    next.metadata.resourceVersion = String(++this.rv);
    this.bucket(res.kind).set(next);
    this.emit({ type: 'MODIFIED', kind: res.kind, object: next, previous: old, resourceVersion: this.rv });
    return next;
  }

  private remove(kind: string, obj: KubeObject): void {
    this.bucket(kind).delete(obj);
    const gone = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    deepFreeze(gone);
    this.emit({ type: 'DELETED', kind, object: gone, previous: obj, resourceVersion: this.rv });
  }

  private emit(ev: StoreEvent): void {
    if (ev.kind === 'Service') this.ipsInUse.follow(ev.type === 'DELETED', ev.object);
    if (ev.kind === 'Service') this.nodePorts.follow(ev.type === 'DELETED', ev.object);
    this.history.push(ev);
    for (const l of [...this.listeners]) l(ev);
  }

  /** NodePort allocation (node-ports.ts); a refused port is 422 as kube-apiserver answers. */
  private assignNodePorts(svc: KubeObject, old?: KubeObject): void {
    const causes = this.nodePorts.assign(svc, old);
    if (causes.length > 0) throw invalid('Service', svc.metadata.name ?? '', causes);
  }

  private gracePeriodFor(kind: string, obj: KubeObject, opts: DeleteOptions): number {
    // As the pod strategy's CheckGracefulDelete (pkg/registry/core/pod/strategy.go): an unscheduled
    // pod, or one already Failed or Succeeded, goes at once whatever grace the caller asked for.
    const terminal = obj.status?.phase === 'Failed' || obj.status?.phase === 'Succeeded';
    if (kind === 'Pod' && (!obj.spec?.nodeName || terminal)) return 0;
    if (opts.gracePeriodSeconds !== undefined) return Math.max(0, opts.gracePeriodSeconds);
    // Only pods are deleted gracefully.
    if (kind !== 'Pod') return 0;
    return typeof obj.spec?.terminationGracePeriodSeconds === 'number' ? obj.spec.terminationGracePeriodSeconds : 30;
  }

  /** Validates an object about to be stored; a custom resource comes back pruned and defaulted. */
  private validate(res: ResourceDef, obj: KubeObject, opts: WriteOptions): KubeObject {
    const schema = res.custom ? this.resources.schemaFor(res.kind) : undefined;
    const admitted = schema ? admitCustomResource(schema, obj, opts) : { object: obj, causes: [] };
    const causes = [...validateObject(res.kind, admitted.object), ...admitted.causes];
    if (res.kind === CRD_KIND) causes.push(...validateCrdAgainst(obj, this.resources));
    if (causes.length > 0) throw invalid(res.kind, obj.metadata?.name ?? '', causes, res.group);
    return admitted.object;
  }

  /** A claim's spec update: validated against the stored claim, then the resize admission plugin (claim-update.ts). */
  private checkClaimUpdate(old: KubeObject, next: KubeObject): void {
    const causes = claimUpdateCauses(old, next);
    if (causes.length > 0) throw invalid('PersistentVolumeClaim', next.metadata.name ?? '', causes);
    const className = typeof next.spec?.storageClassName === 'string' ? next.spec.storageClassName : '';
    admitClaimResize(old, next, className === '' ? undefined : this.get('StorageClass', undefined, className));
  }

  /** A StatefulSet's spec update: only the fields `ValidateStatefulSetUpdate` lets change (statefulset-update.ts). */
  private checkStatefulSetUpdate(old: KubeObject, next: KubeObject): void {
    const causes = statefulSetUpdateCauses(old, next);
    if (causes.length > 0) throw invalid('StatefulSet', next.metadata.name ?? '', causes, 'apps');
  }

  /** The served resource of a kind; a programming error when the kind is not served. */
  mustResource(kind: string): ResourceDef {
    return this.resources.mustByKind(kind);
  }

  private requireNamespace(ns: string): void {
    const nsObj = this.bucket('Namespace').get(ns);
    if (!nsObj) throw notFound('namespaces', ns);
    if (nsObj.metadata.deletionTimestamp) {
      throw new ApiError(403, 'Forbidden', `unable to create new content in namespace ${ns} because it is being terminated`);
    }
  }

  private nsFor(kind: string, namespace: string | undefined): string | undefined {
    // A kind no longer (or not yet) served has no objects; reads of it find nothing.
    return this.resources.byKind(kind)?.namespaced === false ? undefined : namespace;
  }

  private bucket(kind: string): KindBucket {
    let b = this.objects.get(kind);
    if (!b) {
      b = new KindBucket();
      this.objects.set(kind, b);
    }
    return b;
  }
}

/** Everything but metadata and status: what a generation bump is about. */
function specOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

function dropUndefined(meta: Record<string, unknown>): void {
  for (const k of Object.keys(meta)) if (meta[k] === undefined) delete meta[k];
}

function randomSuffix(random: () => number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(random() * alphabet.length)];
  return s;
}

/** A version-4-shaped UUID drawn from `random`. */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A deep copy of a stored value. Objects here are JSON values (they arrive as JSON and leave as
 * JSON), and a JSON round trip copies them several times faster than structuredClone — which
 * matters for large objects such as a CRD with its schema.
 */
function copy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
