/**
 * The garbage collector and namespace controller: dependents whose owners are all gone are deleted
 * (background propagation); `foregroundDeletion` owners wait until their dependents are gone;
 * `orphan` owners release their dependents first; a Terminating namespace is emptied, then removed.
 * Each pass after a change looks at what that change can affect — the changed object, the dependents
 * of an owner that went or is going, the owners of a dependent that went, a Terminating namespace —
 * found through an ownership index kept from the store's events; `runOnce` still looks at everything.
 */
import type { TimerHandle } from '../platform/clock.js';
import type { KubeObject } from './object.js';
import { CRD_CLEANUP_FINALIZER } from './crd/definitions.js';
import { CRD_KIND } from './crd/registry.js';
import { OwnershipIndex } from './gc-index.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type ObjectStore, type StoreEvent } from './store.js';
import { compareKeys, keyOf } from './store-bucket.js';

/** Runs garbage collection passes on the store's clock after relevant changes. */
export class GarbageCollector {
  private pending: TimerHandle | undefined;
  private readonly unsubscribe: () => void;
  private readonly index = new OwnershipIndex();
  /** What the changes since the last pass may have affected (uids; namespace names). */
  private readonly dependentsToCheck = new Set<string>();
  private readonly ownersToFinish = new Set<string>();
  private readonly namespacesToEmpty = new Set<string>();
  /** CRDs being deleted whose custom resources are to go (names). */
  private readonly crdsToFinish = new Set<string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly delayMs = 0,
  ) {
    for (const kind of this.servedKinds()) for (const obj of store.list(kind)) this.index.add(obj);
    this.unsubscribe = store.subscribe((ev) => {
      this.index.apply(ev);
      if (ev.type === 'DELETED' || ev.object.metadata.deletionTimestamp || ev.object.metadata.ownerReferences?.length) {
        this.note(ev);
        this.schedule();
      }
    });
  }

  /** Stops reacting to changes. */
  stop(): void {
    this.unsubscribe();
    if (this.pending) this.store.clock.clearTimer(this.pending);
  }

  /** One full pass over the whole store; returns how many writes it made (tests use it). */
  runOnce(): number {
    let writes = 0;
    // CRDs are large (their schemas): only those being deleted or owned take part in a pass.
    const kinds = [...new Set(this.store.resources.all().map((r) => r.kind))];
    const all = kinds.flatMap((k) => this.store.list(k, undefined, k === CRD_KIND ? (o) => !!o.metadata.deletionTimestamp || !!o.metadata.ownerReferences?.length : undefined));
    const byUid = new Map(all.map((o) => [o.metadata.uid ?? '', o]));
    for (const obj of all) writes += this.collectDependent(obj, byUid);
    for (const owner of all) writes += this.finishOwner(owner, all);
    writes += this.finishNamespaces(all.filter((o) => o.kind === 'Namespace' && o.metadata.deletionTimestamp), all);
    writes += this.finishCrds(all);
    return writes;
  }

  /** Which objects a change may let the collector act on. */
  private note(ev: StoreEvent): void {
    const obj = ev.object;
    const uid = obj.metadata.uid ?? '';
    if (ev.type !== 'DELETED' && obj.metadata.ownerReferences?.length) this.dependentsToCheck.add(uid);
    if (ev.type === 'DELETED' || obj.metadata.deletionTimestamp) {
      // Its dependents may be orphans now, or due for a foreground deletion.
      for (const dependent of this.index.dependentsOf(uid)) this.dependentsToCheck.add(dependent);
      if (ev.type !== 'DELETED') this.ownersToFinish.add(uid);
    }
    // An owner waiting for its dependents (foreground) re-checks when one goes or lets go of it.
    if (ev.type !== 'ADDED') for (const r of (ev.type === 'DELETED' ? obj : ev.previous ?? obj).metadata.ownerReferences ?? []) this.ownersToFinish.add(r.uid);
    const ns = obj.kind === 'Namespace' ? obj.metadata.name : obj.metadata.namespace;
    if (ns && this.store.get('Namespace', undefined, ns)?.metadata.deletionTimestamp) this.namespacesToEmpty.add(ns);
    // A CRD going, or one of its custom resources gone while it goes: its cleanup may go on.
    if (obj.kind === CRD_KIND && obj.metadata.deletionTimestamp && ev.type !== 'DELETED') this.crdsToFinish.add(obj.metadata.name ?? '');
    const crdName = this.store.resources.isTerminating(obj.kind ?? '') ? this.store.resources.ownerOfKind(obj.kind ?? '') : undefined;
    if (ev.type === 'DELETED' && crdName !== undefined) this.crdsToFinish.add(crdName);
  }

  /** The kinds served now (built-ins, then each CRD's), each once, in the order a full pass visits them. */
  private servedKinds(): string[] {
    return [...new Set(this.store.resources.all().map((r) => r.kind))];
  }

  /** The order a full pass visits objects in: by kind as the served kinds are listed, then namespace/name. */
  private fullPassOrder(): (a: KubeObject, b: KubeObject) => number {
    const order = new Map(this.servedKinds().map((k, i) => [k, i]));
    return (a, b) => (order.get(a.kind ?? '') ?? 0) - (order.get(b.kind ?? '') ?? 0) || compareKeys(keyOf(a), keyOf(b));
  }

  /**
   * A pass over what the noted changes may have affected, in the order a full pass would visit it
   * (kind, then namespace/name), against the store as it was when the pass began (stored objects
   * are immutable, so holding them is the snapshot).
   */
  private runNoted(): number {
    const stored = (uid: string): KubeObject | undefined => {
      const at = this.index.placeOf(uid);
      const obj = at && this.store.get(at.kind, at.namespace, at.name);
      return obj?.metadata.uid === uid ? obj : undefined;
    };
    const order = this.fullPassOrder();
    const take = (set: Set<string>): KubeObject[] => {
      const objs = [...set].flatMap((uid) => stored(uid) ?? []);
      set.clear();
      return objs.sort(order);
    };
    const dependents = take(this.dependentsToCheck);
    const owners = take(this.ownersToFinish);
    const byUid = new Map<string, KubeObject>();
    for (const d of dependents) for (const r of d.metadata.ownerReferences ?? []) {
      const owner = stored(r.uid);
      if (owner) byUid.set(r.uid, owner);
    }
    const dependentsOfOwners = owners.flatMap((o) => this.index.dependentsOf(o.metadata.uid ?? '').flatMap((uid) => stored(uid) ?? []));
    const namespaces = [...this.namespacesToEmpty].sort(compareKeys).flatMap((n) => this.store.get('Namespace', undefined, n) ?? []);
    this.namespacesToEmpty.clear();
    const namespacedKinds = [...new Set(this.store.resources.all().filter((r) => r.namespaced).map((r) => r.kind))];
    const content = namespaces.flatMap((ns) => namespacedKinds.flatMap((kind) => this.store.list(kind, ns.metadata.name)));
    const crds = [...this.crdsToFinish].sort(compareKeys).flatMap((n) => this.store.get(CRD_KIND, undefined, n) ?? []);
    this.crdsToFinish.clear();
    const crdContent = crds.flatMap((crd) => this.store.list((crd.spec?.names as { kind?: string } | undefined)?.kind ?? ''));
    let writes = 0;
    for (const obj of dependents) writes += this.collectDependent(obj, byUid);
    for (const owner of owners) writes += this.finishOwner(owner, dependentsOfOwners);
    writes += this.finishNamespaces(namespaces.filter((ns) => ns.metadata.deletionTimestamp), content);
    return writes + this.finishCrds([...crds, ...crdContent]);
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = this.store.clock.setTimer(() => {
      this.pending = undefined;
      // What a pass writes is noted like any change, and schedules the next pass.
      this.runNoted();
    }, this.delayMs);
  }

  private collectDependent(obj: KubeObject, byUid: Map<string, KubeObject>): number {
    const refs = obj.metadata.ownerReferences ?? [];
    if (refs.length === 0 || obj.metadata.deletionTimestamp) return 0;
    const live = refs.filter((r) => {
      const owner = byUid.get(r.uid);
      return owner !== undefined && owner.kind === r.kind && owner.metadata.name === r.name;
    });
    if (live.length === refs.length) {
      // Owners being deleted in the foreground take their dependents with them.
      const foreground = live.some((r) => byUid.get(r.uid)?.metadata.finalizers?.includes(FOREGROUND_FINALIZER));
      return foreground ? this.deleteQuietly(obj, 'Foreground') : 0;
    }
    if (live.length === 0) return this.deleteQuietly(obj, 'Background');
    // Some owners remain: only the dangling references go.
    this.store.update(obj.kind ?? '', { ...obj, metadata: { ...obj.metadata, ownerReferences: live } });
    return 1;
  }

  private finishOwner(owner: KubeObject, all: readonly KubeObject[]): number {
    const fins = owner.metadata.finalizers ?? [];
    if (!owner.metadata.deletionTimestamp) return 0;
    const uid = owner.metadata.uid;
    const dependents = all.filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === uid));
    let writes = 0;
    if (fins.includes(ORPHAN_FINALIZER)) {
      for (const d of dependents) {
        const stored = this.store.get(d.kind ?? '', d.metadata.namespace, d.metadata.name ?? '');
        if (!stored) continue;
        const refs = (stored.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        this.store.update(d.kind ?? '', { ...stored, metadata: { ...stored.metadata, ownerReferences: refs.length ? refs : undefined } });
        writes++;
      }
      return writes + this.dropFinalizer(owner, ORPHAN_FINALIZER);
    }
    if (fins.includes(FOREGROUND_FINALIZER)) {
      const blocking = dependents.filter((d) => this.store.get(d.kind ?? '', d.metadata.namespace, d.metadata.name ?? ''));
      if (blocking.length === 0) return this.dropFinalizer(owner, FOREGROUND_FINALIZER);
    }
    return writes;
  }

  private finishNamespaces(terminating: readonly KubeObject[], all: readonly KubeObject[]): number {
    let writes = 0;
    for (const ns of terminating) {
      const name = ns.metadata.name ?? '';
      const content = all.filter((o) => o.metadata.namespace === name && this.store.resources.byKind(o.kind ?? '')?.namespaced);
      for (const o of content) writes += this.deleteQuietly(o, 'Background');
      if (content.length === 0 && this.store.finishNamespace(name)) writes++;
    }
    return writes;
  }

  /** As the CRD finalizer controller: a deleted CRD's custom resources go, then the CRD itself. */
  private finishCrds(all: readonly KubeObject[]): number {
    let writes = 0;
    for (const crd of all.filter((o) => o.kind === CRD_KIND && o.metadata.deletionTimestamp && o.metadata.finalizers?.includes(CRD_CLEANUP_FINALIZER))) {
      const kind = (crd.spec?.names as { kind?: string } | undefined)?.kind ?? '';
      const content = all.filter((o) => o.kind === kind);
      for (const o of content) writes += this.deleteQuietly(o, 'Background');
      if (content.length === 0) writes += this.dropFinalizer(crd, CRD_CLEANUP_FINALIZER);
    }
    return writes;
  }

  private dropFinalizer(owner: KubeObject, finalizer: string): number {
    const stored = this.store.get(owner.kind ?? '', owner.metadata.namespace, owner.metadata.name ?? '');
    if (!stored) return 0;
    const rest = (stored.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.store.update(owner.kind ?? '', { ...stored, metadata: { ...stored.metadata, finalizers: rest.length ? rest : undefined } });
    return 1;
  }

  private deleteQuietly(obj: KubeObject, propagationPolicy: 'Background' | 'Foreground'): number {
    if (obj.metadata.deletionTimestamp) return 0;
    try {
      this.store.delete(obj.kind ?? '', obj.metadata.namespace, obj.metadata.name ?? '', {
        propagationPolicy,
        preconditions: { uid: obj.metadata.uid },
      });
      return 1;
    } catch {
      // Already gone or replaced by a new object of the same name: nothing to collect.
      return 0;
    }
  }
}
